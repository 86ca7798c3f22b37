/**
 * Turns of the event loop for long work on a server's thread.
 * @module
 */

/**
 * Lets other work (a request, a timer) in once long work held the thread for `ms` since the last
 * turn, and costs nothing before: a turn is a `setTimeout`, which Deno delays by a millisecond or
 * more when turns follow one another (2 ms each, measured, 3,000 in a row), so a turn for every
 * small step (a store's every document) slowed the work more than it helped the others.
 *
 * @example
 * ```ts
 * import { Turns } from "./turns.ts";
 * const turns = new Turns();
 * for (let i = 0; i < 1000; i++) await turns.maybe();
 * ```
 */
export class Turns {
  #since = performance.now();

  constructor(readonly ms = 8) {}

  /** A turn of the event loop if the work held the thread `ms` since the last, else none. */
  async maybe(): Promise<void> {
    if (performance.now() - this.#since < this.ms) return;
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.#since = performance.now();
  }
}
