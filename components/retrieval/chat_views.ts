/**
 * What a search derives from a chat's indexes as a whole (their vector codes
 * laid end to end, their postings merged), kept for the chats searched last.
 * @module
 */

/**
 * Views of chats, each made from a chat's indexes and known by them (the
 * same objects in the same order, held weakly: a cache that drops an index
 * is not kept from freeing it), the latest kept within `maxBytes`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ChatViews } from "./chat_views.ts";
 * const dropped: string[] = [];
 * const views = new ChatViews<{ name: string }, string>(10, (view) => dropped.push(view));
 * const [a, b] = [{ name: "a" }, { name: "b" }];
 * const joined = (parts: readonly { name: string }[]) => parts.map((part) => part.name).join("");
 * assert.equal(views.add([a, b], 6, joined), "ab");
 * assert.equal(views.find([a, b]), "ab");
 * assert.equal(views.find([b, a]), undefined);
 * assert.equal(views.add([b, a], 6, joined), "ba");
 * assert.deepEqual(dropped, ["ab"]);
 * views.drop("ba");
 * assert.equal(views.find([b, a]), undefined);
 * assert.deepEqual(dropped, ["ab", "ba"]);
 * ```
 */
export class ChatViews<Part extends object, View> {
  // The latest first.
  #chats: { parts: WeakRef<Part>[]; view: View; bytes: number }[] = [];
  readonly #maxBytes: number;
  readonly #drop: (view: View) => void;

  /** Views within `maxBytes`; `drop` is given each view that is no longer kept. */
  constructor(maxBytes: number, drop: (view: View) => void = () => {}) {
    this.#maxBytes = maxBytes;
    this.#drop = drop;
  }

  /** The view of `parts` kept from before, now the latest; undefined when none is kept. */
  find(parts: readonly Part[]): View | undefined {
    const found = this.#chats.findIndex((chat) =>
      chat.parts.length === parts.length && chat.parts.every((part, i) => part.deref() === parts[i])
    );
    if (found < 0) return undefined;
    const [chat] = this.#chats.splice(found, 1);
    this.#chats.unshift(chat!);
    return chat!.view;
  }

  /** Stops keeping `view`, which is dropped. */
  drop(view: View): void {
    const found = this.#chats.findIndex((chat) => chat.view === view);
    if (found < 0) return;
    this.#chats.splice(found, 1);
    this.#drop(view);
  }

  /**
   * The view of `parts` made now by `make` and kept, `bytes` being what it takes. The oldest
   * are dropped before it is made, to make room.
   */
  add(parts: readonly Part[], bytes: number, make: (parts: readonly Part[]) => View): View {
    let total = bytes;
    this.#chats = this.#chats.filter((chat) => {
      total += chat.bytes;
      if (total > this.#maxBytes) this.#drop(chat.view);
      return total <= this.#maxBytes;
    });
    const view = make(parts);
    this.#chats.unshift({ parts: parts.map((part) => new WeakRef(part)), view, bytes });
    return view;
  }
}
