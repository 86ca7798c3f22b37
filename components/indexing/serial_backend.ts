/**
 * The half of an {@linkcode IndexBackend} that a store without transactions
 * (LanceDB, Chroma) shares: its writes go one at a time, and the links from
 * chats to indexes are kept the same way whatever the store. A store says how
 * it reads and writes a link and an index's settings, and how it removes an
 * index no chat links to; this class says when.
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
    const earlier = await this.linkedKey(link);
    if (earlier === link.key) return true;
    await this.writeLink(link, { replaces: earlier !== undefined });
    if (earlier !== undefined) await this.removeOrphans([earlier]);
    return await this.stillThere(link);
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
  /** The key a chat's document is linked to now, if any. */
  protected abstract linkedKey(link: IndexLink): Promise<string | undefined>;
  /**
   * Writes a link, replacing the chat's document's earlier one; `replaces` says whether there was
   * one when the queue's holder read it (another process may have written one since).
   */
  protected abstract writeLink(link: IndexLink, options: { replaces: boolean }): Promise<void>;
  /** Removes every link of a chat. */
  protected abstract deleteLinks(chatId: string): Promise<void>;
  /** Removes each of the indexes that no chat links to any more, with its chunks. */
  protected abstract removeOrphans(keys: Iterable<string>): Promise<void>;
}
