/**
 * A chat's links as a backend last read them, kept while its store is
 * unchanged: a question finds its chat's indexes without reading the links,
 * which a chat of many documents felt at every question.
 * @module
 */

/**
 * Each chat's links as last read, with the state of the storage they were
 * read at (a version, a count of writes): given again while the state is the
 * same. The chats whose links were read from the store last are kept, at
 * most `size`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { KeptLinks } from "./kept_links.ts";
 * const kept = new KeptLinks<number>();
 * let reads = 0;
 * const read = () => Promise.resolve(new Map([["doc", ++reads]]));
 * assert.deepEqual(await kept.read("chat", "v1", read), new Map([["doc", 1]]));
 * assert.deepEqual(await kept.read("chat", "v1", read), new Map([["doc", 1]]));
 * assert.deepEqual(await kept.read("chat", "v2", read), new Map([["doc", 2]]));
 * ```
 */
export class KeptLinks<T> {
  readonly #chats = new Map<string, { state: string; links: Map<string, T> }>();
  readonly #size: number;

  constructor(size = 1024) {
    this.#size = size;
  }

  /**
   * A copy of the chat's links: those kept when they were read at `state`,
   * else what `read` reads, then kept with `state`. Read at every call when
   * `state` is undefined: a store that cannot tell whether it changed. The
   * caller reads the state before the links, so that links read meanwhile
   * are never kept as newer than they are.
   */
  async read(
    chatId: string,
    state: string | undefined,
    read: () => Promise<Map<string, T>>,
  ): Promise<Map<string, T>> {
    const held = this.#chats.get(chatId);
    if (state !== undefined && held?.state === state) return new Map(held.links);
    const links = await read();
    if (state === undefined) return links;
    // The chat read longest ago goes beyond the size.
    this.#chats.delete(chatId);
    if (this.#chats.size >= this.#size) this.#chats.delete(this.#chats.keys().next().value!);
    this.#chats.set(chatId, { state, links: new Map(links) });
    return links;
  }
}
