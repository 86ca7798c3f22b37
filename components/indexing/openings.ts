/**
 * Backends opened once per location (a folder, a database, a server) and
 * shared by whoever uses that location; an opening that failed is forgotten,
 * so that the next use tries again, once the server answers or the disk can
 * be written.
 * @module
 */

/**
 * The backends opened, or opening, by location.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Openings } from "./openings.ts";
 * const openings = new Openings<object>();
 * const first = openings.get("here", () => Promise.resolve({}));
 * assert.equal(openings.get("here", () => Promise.resolve({})), first);
 * ```
 */
export class Openings<T> {
  readonly #opened = new Map<string, Promise<T>>();

  /** The backend at `location`: the one opened or opening there, else what `open` opens. */
  get(location: string, open: () => Promise<T>): Promise<T> {
    let opened = this.#opened.get(location);
    if (!opened) {
      opened = open();
      this.#opened.set(location, opened);
      opened.catch(() => this.#opened.delete(location));
    }
    return opened;
  }

  /** The locations of the backends opened, or opening. */
  locations(): string[] {
    return [...this.#opened.keys()];
  }

  /** Forgets the backend at `location`, so that the next use opens it again. */
  delete(location: string): Promise<T> | undefined {
    const opened = this.#opened.get(location);
    this.#opened.delete(location);
    return opened;
  }
}
