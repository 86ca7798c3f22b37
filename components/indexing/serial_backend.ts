/**
 * The half of an {@linkcode IndexBackend} that a store without transactions
 * (LanceDB, Chroma) shares: its writes go one at a time, indexes are stored
 * and linked as one step (each key once, an index stored meanwhile only
 * linked to, none left that no chat links to), and the links from chats to
 * indexes are kept the same way whatever the store. A store says how it
 * reads and writes links and an index's settings, how it writes an index and
 * takes it back, and how it removes an index no chat links to; this class
 * says when.
 * @module
 */
import type {
  IndexBackend,
  IndexInfo,
  IndexLink,
  NewIndex,
  SearchQuery,
  StoredChunk,
} from "./backend.ts";

/** A link as a store keeps it: a document of a chat, and the key of its index. */
export interface StoredLink {
  documentId: string;
  key: string;
}

/**
 * An {@linkcode IndexBackend} whose writes go one at a time, so that storing
 * an index and linking it is one step, and every write checks what it depends
 * on first.
 */
export abstract class SerialBackend implements IndexBackend {
  #queue: Promise<unknown> = Promise.resolve();

  async link(link: IndexLink): Promise<boolean> {
    // No index under the key (a document new to the store): nothing to link, without waiting
    // for the writes queued, which may be a store's own documents parsed before this one.
    if (!(await this.infos([link.key])).has(link.key)) return false;
    return this.exclusive(() => this.linkHeld(link));
  }

  abstract add(index: NewIndex, link: IndexLink): Promise<void>;

  async links(chatId: string): Promise<Map<string, IndexInfo>> {
    const links = await this.chatLinks(chatId);
    const infos = await this.infos([...new Set(links.map((link) => link.key))]);
    const result = new Map<string, IndexInfo>();
    for (const link of links) {
      const info = infos.get(link.key);
      if (info) result.set(link.documentId, info);
    }
    return result;
  }

  unlink(chatId: string): Promise<void> {
    return this.exclusive(async () => {
      const links = await this.chatLinks(chatId);
      if (links.length === 0) return;
      await this.deleteLinks(chatId);
      await this.removeOrphans(new Set(links.map((link) => link.key)));
    });
  }

  abstract search(keys: readonly string[], query: SearchQuery): Promise<StoredChunk[][]>;
  abstract chunks(key: string): Promise<StoredChunk[]>;

  /**
   * {@linkcode IndexBackend.link} for a caller that holds the queue: links to
   * a complete index only, replaces the document's earlier link, and removes
   * the index that one pointed to when no chat links to it any more. With
   * `indexed`, the caller has just stored the index while holding the queue,
   * so it is not read again.
   */
  protected async linkHeld(link: IndexLink, { indexed = false } = {}): Promise<boolean> {
    if (!indexed && !(await this.infos([link.key])).has(link.key)) return false;
    const earlier = (await this.linkedKeys([link])).get(linkName(link));
    if (earlier === link.key) return true;
    await this.writeLinks([link], { replaces: earlier !== undefined });
    if (earlier !== undefined) await this.removeOrphans([earlier]);
    return await this.stillThere(link);
  }

  /**
   * Stores indexes added together and links each to its chat's document,
   * while holding the queue: each key once, and an index stored meanwhile (by
   * another process) only linked to. `store.write` writes the others, and
   * `store.remove` takes them back when writing or linking them fails, so
   * that no index is left that no chat links to. Gives those written.
   */
  protected async storeAll<T extends { index: NewIndex; link: IndexLink }>(
    added: readonly T[],
    store: { write(fresh: T[]): Promise<void>; remove(fresh: T[]): Promise<void> },
  ): Promise<T[]> {
    const stored = await this.infos(added.map(({ index }) => index.key));
    const fresh: T[] = [];
    const again: T[] = [];
    for (const item of added) {
      const { key } = item.index;
      // Stored meanwhile (by another process), or added twice: linked to that one.
      if (stored.has(key) && await this.linkHeld(item.link)) continue;
      if (fresh.some(({ index }) => index.key === key)) again.push(item);
      else fresh.push(item);
    }
    if (fresh.length === 0) return fresh;
    try {
      await store.write(fresh);
      await this.#linkStored(fresh.map(({ link }) => link));
    } catch (error) {
      await store.remove(fresh).catch(() => {});
      throw error;
    }
    for (const { link } of again) await this.linkHeld(link, { indexed: true });
    return fresh;
  }

  /**
   * Links chats' documents to the indexes just stored for them: those not
   * linked before in one write, the others (and a document given twice,
   * after its first) as `linkHeld()` replaces a link.
   *
   * @throws {Error} when an index went as it was linked (another process removed it)
   */
  async #linkStored(links: readonly IndexLink[]): Promise<void> {
    const linked = await this.linkedKeys(links);
    const added = links.filter((link) => {
      if (linked.has(linkName(link))) return false;
      linked.set(linkName(link), link.key);
      return true;
    });
    if (added.length > 0) await this.writeLinks(added, { replaces: false });
    for (const link of links) {
      const there = added.includes(link)
        ? await this.stillThere(link)
        : await this.linkHeld(link, { indexed: true });
      if (!there) throw new Error("the index was removed as it was stored");
    }
  }

  /** Runs `fn` after the writes queued before it, and before those queued after. */
  protected exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(fn);
    this.#queue = result.catch(() => {});
    return result;
  }

  /**
   * Whether the index a link was just written to is still there; a store that
   * other processes write to checks again, and takes the link back when it is
   * gone. True by default.
   */
  protected stillThere(_link: IndexLink): Promise<boolean> {
    return Promise.resolve(true);
  }

  /** The complete indexes among `keys`, by key. */
  protected abstract infos(keys: readonly string[]): Promise<Map<string, IndexInfo>>;
  /** A chat's links. */
  protected abstract chatLinks(chatId: string): Promise<StoredLink[]>;
  /**
   * The keys the chats' documents of `links` are linked to now, by
   * {@linkcode linkName}; a store may give those of others too.
   */
  protected abstract linkedKeys(links: readonly IndexLink[]): Promise<Map<string, string>>;
  /**
   * Writes links, each replacing its chat's document's earlier one; `replaces` says whether there
   * were such when the queue's holder read them (another process may have written some since).
   */
  protected abstract writeLinks(
    links: readonly IndexLink[],
    options: { replaces: boolean },
  ): Promise<void>;
  /** Removes every link of a chat. */
  protected abstract deleteLinks(chatId: string): Promise<void>;
  /** Removes each of the indexes that no chat links to any more, with its chunks. */
  protected abstract removeOrphans(keys: Iterable<string>): Promise<void>;
}

/** A link's chat and document, as one name: `["chat", "document"]`. */
export function linkName(link: { chatId: unknown; documentId: unknown }): string {
  return JSON.stringify([link.chatId, link.documentId]);
}
