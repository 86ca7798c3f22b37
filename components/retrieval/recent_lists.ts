/**
 * Lists given again as the ones given before when they hold the same items,
 * so that what was made of those can be known again by their identity: the
 * documents of the chats asked last, whose questions interleave.
 * @module
 */

// The chats of a server's last few questions.
const KEPT = 8;

/**
 * The lists given last, each given again in place of an equal one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RecentLists } from "./recent_lists.ts";
 * const lists = new RecentLists<string>((a, b) => a === b);
 * const first = lists.of(["a", "b"]);
 * const second = lists.of(["b"]);
 * assert.equal(lists.of(["a", "b"]), first);
 * assert.equal(lists.of(["b"]), second);
 * assert.notEqual(lists.of(["b", "a"]), first);
 * ```
 */
export class RecentLists<T> {
  // The most recent first.
  #lists: (readonly T[])[] = [];
  readonly #same: (a: T, b: T) => boolean;

  /** Lists whose items are the same by `same`. */
  constructor(same: (a: T, b: T) => boolean) {
    this.#same = same;
  }

  /** `list`, or a list given before that has the same items in the same order. */
  of(list: readonly T[]): readonly T[] {
    const found = this.#lists.findIndex((kept) =>
      kept.length === list.length && kept.every((item, i) => this.#same(item, list[i]!))
    );
    const kept = found < 0 ? list : this.#lists[found]!;
    if (found >= 0) this.#lists.splice(found, 1);
    this.#lists.unshift(kept);
    this.#lists.length = Math.min(this.#lists.length, KEPT);
    return kept;
  }
}
