/**
 * A chat's links as a backend last read them, kept while its store is
 * unchanged: a question finds its chat's indexes without reading the links,
 * which took some milliseconds a question for a chat of 1,000 documents.
 * @module
 */

/**
 * Each chat's links as last read, with the state of the storage they were
 * read at (a version, a count of writes): given again while the state is the
 * same. The chats read most recently are kept, at most `size`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { KeptLinks } from "./kept_links.ts";
 * const kept = new KeptLinks<number>();
 * kept.set("chat", "v1", new Map([["doc", 1]]));
 * assert.deepEqual(kept.get("chat", "v1"), new Map([["doc", 1]]));
 * assert.equal(kept.get("chat", "v2"), undefined);
 * ```
 */
export class KeptLinks<T> {
  readonly #chats = new Map<string, { state: string; links: Map<string, T> }>();
  readonly #size: number;

  constructor(size = 1024) {
    this.#size = size;
  }

  /** A copy of the chat's links, when they were read at `state`. */
  get(chatId: string, state: string): Map<string, T> | undefined {
    const held = this.#chats.get(chatId);
    return held?.state === state ? new Map(held.links) : undefined;
  }

  /** Keeps the chat's links, read at `state`, dropping the chat read longest ago beyond the size. */
  set(chatId: string, state: string, links: Map<string, T>): void {
    this.#chats.delete(chatId);
    if (this.#chats.size >= this.#size) this.#chats.delete(this.#chats.keys().next().value!);
    this.#chats.set(chatId, { state, links: new Map(links) });
  }
}
