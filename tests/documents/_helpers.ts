/**
 * Helpers shared by the document handler tests.
 * @module
 */
import assert from "node:assert/strict";
import { SvcError } from "../../components/core/errors.ts";

/** The bytes of a file in tests/fixtures/ (made by tests/fixtures/make.sh). */
export function fixture(name: string): Promise<Uint8Array> {
  return Deno.readFile(new URL(`../fixtures/${name}`, import.meta.url));
}

/**
 * A validator for `assert.rejects` and `assert.throws`: the error must be a 422 `SvcError` whose
 * message is exactly `message`.
 */
export function refusal(message: string): (error: unknown) => true {
  return (error) => {
    assert.ok(error instanceof SvcError, `expected an SvcError, got ${error}`);
    assert.equal(error.message, message);
    assert.equal(error.status, 422);
    return true;
  };
}
