/**
 * Faults of the disk, told apart from other failures: a full disk (507) and a
 * disk that svc may not write to, read-only or refused (503). A write that
 * meets one is the disk's fault, not the request's and not a bug, so it is
 * answered with a sentence that names what could not be written, never with
 * "Something went wrong on the server".
 * @module
 */
import { SvcError } from "./core/errors.ts";

/** A fault of the disk: full, mounted read-only, or refusing svc's writes. */
export type DiskFault = "full" | "read-only" | "permission";

// Error codes as Node, SQLite (through libSQL) and the operating system name them.
const CODES: Record<string, DiskFault> = {
  ENOSPC: "full",
  EDQUOT: "full",
  SQLITE_FULL: "full",
  EROFS: "read-only",
  SQLITE_READONLY: "read-only",
  EACCES: "permission",
  EPERM: "permission",
  SQLITE_PERM: "permission",
};

// Deno and Rust libraries (LanceDB) name the error of the OS in their messages:
// ENOSPC is 28, EDQUOT 122, EROFS 30, EACCES 13 and EPERM 1 on Linux.
const MESSAGES: [RegExp, DiskFault][] = [
  [
    /\(os error (?:28|122)\)|No space left on device|Disk quota exceeded|database or disk is full/i,
    "full",
  ],
  [/\(os error 30\)|Read-only file system|attempt to write a readonly database/i, "read-only"],
  [/\(os error (?:13|1)\)/, "permission"],
];

/**
 * The fault of the disk behind an error, looking through its causes; none for
 * any other error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { diskFault } from "./disk_faults.ts";
 * assert.equal(diskFault(new Error("No space left on device (os error 28)")), "full");
 * assert.equal(diskFault(new Error("fetch failed")), undefined);
 * ```
 */
export function diskFault(error: unknown): DiskFault | undefined {
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    if (e instanceof SvcError) return faultOfStatus(e);
    if (e instanceof Deno.errors.PermissionDenied) return "permission";
    const { code, extendedCode } = e as { code?: unknown; extendedCode?: unknown };
    for (const name of [extendedCode, code]) {
      if (typeof name !== "string") continue;
      const found = CODES[name] ?? CODES[name.replace(/_[A-Z]+$/, "")];
      if (found) return found;
    }
    const message = e instanceof Error ? e.message : String(e);
    for (const [pattern, fault] of MESSAGES) if (pattern.test(message)) return fault;
    e = e instanceof Error ? e.cause : undefined;
  }
  return undefined;
}

/** The status of each fault: 507 Insufficient Storage, else 503 Service Unavailable. */
export const DISK_FAULT_STATUS: Record<DiskFault, number> = {
  "full": 507,
  "read-only": 503,
  "permission": 503,
};

const PROBLEMS: Record<DiskFault, string> = {
  "full": "the disk is full",
  "read-only": "the disk is read-only",
  "permission": "permission to write was denied",
};

/**
 * The error for a write that met a fault of the disk: `what` says what could
 * not be written (`Cannot store the upload`), and the sentence goes on with
 * the fault. The original error is its cause, for the log. Undefined for an
 * error that is no fault of the disk, which the caller handles as before.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { diskFaultError } from "./disk_faults.ts";
 * const error = diskFaultError("Cannot write to the database", new Error("SQLITE_FULL: database or disk is full"));
 * assert.equal(error?.message, "Cannot write to the database: the disk is full");
 * assert.equal(error?.status, 507);
 * ```
 */
export function diskFaultError(what: string, error: unknown): SvcError | undefined {
  const fault = diskFault(error);
  if (fault === undefined) return undefined;
  // Already said by whoever met it first: the inner sentence names the place.
  if (error instanceof SvcError) return error;
  return new SvcError(`${what}: ${PROBLEMS[fault]}`, {
    status: DISK_FAULT_STATUS[fault],
    cause: error,
  });
}

/**
 * Opens each existing file for writing and closes it again, so that a file
 * that svc may not write (a read-only disk, a file of another user) is known
 * before a database is opened on it: SQLite would open it read-only without a
 * word, and stay so after the disk became writable again.
 *
 * @throws the error of the operating system for the first file that cannot be written
 */
export async function assertWritable(paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, { write: true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      throw error;
    }
    file.close();
  }
}

function faultOfStatus(error: SvcError): DiskFault | undefined {
  if (error.status === 507) return "full";
  if (error.status === 503 && error.cause !== undefined && error.cause !== error) {
    return diskFault(error.cause);
  }
  return undefined;
}
