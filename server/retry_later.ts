/**
 * A refusal that passes with time: 429 with the seconds to wait, which the
 * REST API sends as `Retry-After`.
 * @module
 */
import { SvcError } from "../components/core/errors.ts";

/** A 429 whose message says when to try again, and `retryAfter` the seconds. */
export class RetryLaterError extends SvcError {
  /** The seconds to wait, whole, at least 1. */
  readonly retryAfter: number;

  constructor(message: string, retryAfter: number) {
    super(message, { status: 429 });
    this.name = "RetryLaterError";
    this.retryAfter = Math.max(1, Math.ceil(retryAfter));
  }
}
