/**
 * A bound on the uploads that run at once, per user and overall, so that a
 * few clients cannot fill the disk with uploads in flight or starve the
 * others.
 * @module
 */
import { SvcError } from "../../components/core/errors.ts";
import { numberDefault } from "../settings.ts";

/** The default number of uploads that may run at once, all users together. */
export const DEFAULT_MAX_UPLOADS: number = numberDefault("SVC_API_MAX_UPLOADS");

/** The default number of uploads one user may run at once. */
export const DEFAULT_MAX_UPLOADS_PER_USER: number = numberDefault("SVC_API_MAX_UPLOADS_PER_USER");

/** Options of {@linkcode UploadSlots}. */
export interface UploadSlotsOptions {
  /**
   * Uploads at once, all users together.
   * @default {DEFAULT_MAX_UPLOADS}
   */
  total?: number;
  /**
   * Uploads at once per user.
   * @default {DEFAULT_MAX_UPLOADS_PER_USER}
   */
  perUser?: number;
}

/**
 * Counts the uploads in flight.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { UploadSlots } from "./upload_slots.ts";
 * const slots = new UploadSlots({ total: 2, perUser: 1 });
 * const release = slots.take("ada");
 * assert.throws(() => slots.take("ada"), { status: 429 });
 * release();
 * slots.take("ada");
 * ```
 */
export class UploadSlots {
  readonly total: number;
  readonly perUser: number;
  readonly #byUser = new Map<string, number>();
  #running = 0;

  constructor(options: UploadSlotsOptions = {}) {
    this.total = options.total ?? DEFAULT_MAX_UPLOADS;
    this.perUser = options.perUser ?? DEFAULT_MAX_UPLOADS_PER_USER;
  }

  /** How many uploads run now. */
  get running(): number {
    return this.#running;
  }

  /**
   * A slot for an upload of `user`; call the function it returns when the
   * upload has ended, however it ended (calling it again does nothing).
   *
   * @throws {SvcError} 429 when the user, or all users together, have as
   * many uploads running as allowed
   */
  take(user: string): () => void {
    const mine = this.#byUser.get(user) ?? 0;
    if (mine >= this.perUser) {
      throw busy(
        `you have ${mine} uploads running, the most one user may run at once ` +
          "(SVC_API_MAX_UPLOADS_PER_USER)",
      );
    }
    if (this.#running >= this.total) {
      throw busy(
        `the server is receiving ${this.#running} uploads, the most it takes at once ` +
          "(SVC_API_MAX_UPLOADS)",
      );
    }
    this.#byUser.set(user, mine + 1);
    this.#running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running--;
      const left = (this.#byUser.get(user) ?? 1) - 1;
      if (left > 0) this.#byUser.set(user, left);
      else this.#byUser.delete(user);
    };
  }
}

function busy(why: string): SvcError {
  return new SvcError(`Too many uploads at once: ${why}; send it again when one has finished`, {
    status: 429,
  });
}
