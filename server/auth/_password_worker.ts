/**
 * The worker of the password hashes (`password_hash.ts`): argon2id through
 * hash-wasm, away from the thread that answers requests, which a hash would
 * otherwise hold for as long as it takes.
 * @module
 */
import type * as HashWasm from "npm:hash-wasm@4.13.0";
import { importPackage } from "../../components/packages.ts";
import { SvcError } from "../../components/core/errors.ts";
import { lowerThreadPriority } from "../../components/core/thread_priority.ts";
import type { PasswordJob, PasswordReply } from "./password_hash.ts";

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<PasswordJob>) => void) | null;
  postMessage(data: PasswordReply): void;
};

lowerThreadPriority();

scope.onmessage = async ({ data: job }) => {
  try {
    const { argon2id, argon2Verify } = await importPackage<typeof HashWasm>("hash-wasm");
    let value: string | boolean;
    if (job.kind === "hash") {
      value = await argon2id({
        password: job.password,
        salt: crypto.getRandomValues(new Uint8Array(16)),
        hashLength: 32,
        outputType: "encoded",
        ...job.costs,
      });
    } else {
      // A hash that cannot be read matches nothing.
      value = await argon2Verify({ password: job.password, hash: job.hash }).catch(() => false);
    }
    scope.postMessage({ id: job.id, value });
  } catch (error) {
    const status = error instanceof SvcError ? error.status : 500;
    scope.postMessage({ id: job.id, error: { message: (error as Error).message, status } });
  }
};
