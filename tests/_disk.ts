/**
 * A small disk for the tests of full and read-only disks. Where the machine
 * lets the tests mount one (root), it is a real tmpfs of a few MiB: filled by
 * a file that takes what is left, made read-only by a remount. Elsewhere the
 * same faults are injected: Deno's file functions fail for paths on the
 * "disk", and a libSQL client wrapped by {@linkcode SmallDisk.client} fails
 * its writes, with the errors a real disk gives, as in the unit tier, which
 * runs no `mount`. Either way the tests run the same assertions; none is
 * skipped.
 * @module
 */
import { type Client, LibsqlError } from "@libsql/client";
import { join } from "node:path";
import { run } from "./_process.ts";
import { unitTier } from "./_tier.ts";

/** A fault of the disk that a test makes. */
export type Fault = "full" | "read-only";

/** Options of {@linkcode SmallDisk.fill}. */
export interface FillOptions {
  /**
   * Bytes left free, so that a write fails in its middle rather than at once.
   * @default {0}
   */
  leave?: number;
}

/** A small disk, unmounted (or its faults lifted) and removed when disposed. */
export interface SmallDisk extends AsyncDisposable {
  /** Its folder. */
  path: string;
  /** A real file system, or faults injected into Deno and libSQL clients. */
  kind: "tmpfs" | "injected";
  /** Takes the free space, or all but `leave` bytes of it. */
  fill(options?: FillOptions): Promise<void>;
  /** Gives back what {@linkcode SmallDisk.fill} took. */
  free(): Promise<void>;
  /** Makes the disk read-only; on a tmpfs no file may be open for writing. */
  readOnly(): Promise<void>;
  /** Makes the disk writable again. */
  writable(): Promise<void>;
  /** The client as it is on a tmpfs; with injected faults, one whose writes meet them. */
  client(client: Client): Client;
}

const FILLER = ".filler";
const PAGE = 4096;

/**
 * A small disk of `size` bytes: a tmpfs when `mount` works, else a folder
 * with injected faults. `TEST_DISK_FAULTS=injected` injects them where mount
 * works too, to run the tests as a machine without it does.
 */
export async function smallDisk(size: number): Promise<SmallDisk> {
  const path = await Deno.makeTempDir({ prefix: "svc-disk-" });
  if (unitTier() || Deno.env.get("TEST_DISK_FAULTS") === "injected") return injectedDisk(path);
  const mounted = await sh("mount", "-t", "tmpfs", "-o", `size=${size}`, "tmpfs", path);
  return mounted.ok ? tmpfsDisk(path) : injectedDisk(path);
}

function tmpfsDisk(path: string): SmallDisk {
  const filler = join(path, FILLER);
  return {
    path,
    kind: "tmpfs",
    async fill({ leave = 0 } = {}) {
      const file = await Deno.open(filler, { write: true, create: true, append: true });
      try {
        const block = new Uint8Array(64 * 1024);
        // What df says is free, in pages; asked again whenever a write finds less.
        for (let tries = 0; tries < 32; tries++) {
          let left = await freeBytes(path) - leave;
          if (left < PAGE) break;
          try {
            while (left >= PAGE) {
              left -= await file.write(
                block.subarray(0, Math.min(block.length, left - left % PAGE)),
              );
            }
          } catch {
            // Fuller than df said.
          }
        }
        // Then the last bytes, where nothing is to be left.
        for (let tries = 0; leave === 0 && tries < 64; tries++) {
          try {
            await file.write(block.subarray(0, 512));
          } catch {
            break;
          }
        }
      } finally {
        file.close();
      }
    },
    async free() {
      await Deno.remove(filler).catch(() => {});
    },
    async readOnly() {
      const done = await sh("mount", "-o", "remount,ro", path);
      if (!done.ok) throw new Error(`Cannot make ${path} read-only: ${done.stderr}`);
    },
    async writable() {
      const done = await sh("mount", "-o", "remount,rw", path);
      if (!done.ok) throw new Error(`Cannot make ${path} writable: ${done.stderr}`);
    },
    client: (client) => client,
    async [Symbol.asyncDispose]() {
      // A libSQL client keeps its files open until it is collected: detached at once, then gone.
      if (!(await sh("umount", path)).ok) await sh("umount", "-l", path);
      await Deno.remove(path, { recursive: true });
    },
  };
}

/** The free bytes of the file system that holds `path`, from `df`. */
async function freeBytes(path: string): Promise<number> {
  const { stdout } = await sh("df", "-B1", "--output=avail", path);
  return Number(stdout.trim().split("\n").at(-1));
}

function injectedDisk(path: string): SmallDisk {
  let fault: Fault | undefined;
  // Bytes that may still be written while the disk is "full".
  let budget = 0;
  const on = (target: string | URL) =>
    (target instanceof URL ? target.pathname : String(target)).startsWith(path);
  const osError = (): Error =>
    fault === "full"
      ? new Error("No space left on device (os error 28)")
      : new Error("Read-only file system (os error 30)");
  const spend = (bytes: number) => {
    if (fault === undefined) return;
    if (fault === "full" && budget >= bytes) {
      budget -= bytes;
      return;
    }
    throw fault === "full"
      ? new LibsqlError("SQLITE_FULL: database or disk is full", "SQLITE_FULL")
      : new LibsqlError("SQLITE_READONLY: attempt to write a readonly database", "SQLITE_READONLY");
  };

  const real = {
    open: Deno.open,
    writeFile: Deno.writeFile,
    writeTextFile: Deno.writeTextFile,
    mkdir: Deno.mkdir,
    rename: Deno.rename,
    link: Deno.link,
    remove: Deno.remove,
  };
  const patched = Deno as unknown as Record<string, unknown>;
  patched.open = (target: string | URL, options?: Deno.OpenOptions) => {
    const writes = options?.write || options?.append || options?.create || options?.createNew;
    if (fault && writes && on(target) && !(fault === "full" && budget > 0)) {
      return Promise.reject(osError());
    }
    return real.open(target, options);
  };
  for (const name of ["writeFile", "writeTextFile", "mkdir", "rename", "link"] as const) {
    patched[name] = (target: string | URL, ...rest: unknown[]) => {
      if (fault && on(target)) return Promise.reject(osError());
      return (real[name] as (...args: unknown[]) => unknown)(target, ...rest);
    };
  }
  patched.remove = (target: string | URL, options?: Deno.RemoveOptions) => {
    if (fault === "read-only" && on(target)) return Promise.reject(osError());
    return real.remove(target, options);
  };

  return {
    path,
    kind: "injected",
    fill({ leave = 0 } = {}) {
      fault = "full";
      budget = leave;
      return Promise.resolve();
    },
    free() {
      fault = undefined;
      return Promise.resolve();
    },
    readOnly() {
      fault = "read-only";
      return Promise.resolve();
    },
    writable() {
      fault = undefined;
      return Promise.resolve();
    },
    client: (client) => faultyClient(client, spend),
    async [Symbol.asyncDispose]() {
      Object.assign(patched, real);
      await real.remove(path, { recursive: true });
    },
  };
}

const WRITE = /^\s*(?:INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|VACUUM|PRAGMA\s+\w+\s*=)/i;

/** The size of what a statement writes, roughly: its text and its arguments. */
function sizeOf(statement: unknown): number {
  if (typeof statement === "string") return statement.length;
  const { sql, args } = statement as { sql: string; args?: unknown[] | Record<string, unknown> };
  const values = Array.isArray(args) ? args : Object.values(args ?? {});
  return sql.length + values.reduce<number>(
    (sum, value) => sum + (value instanceof Uint8Array ? value.byteLength : String(value).length),
    0,
  );
}

function isWrite(statement: unknown): boolean {
  return WRITE.test(typeof statement === "string" ? statement : (statement as { sql: string }).sql);
}

/** A client whose writes `spend` their size first, which throws while a fault holds. */
function faultyClient(client: Client, spend: (bytes: number) => void): Client {
  const guard = (statements: unknown[]) => {
    const writes = statements.filter(isWrite);
    if (writes.length > 0) spend(writes.reduce<number>((sum, s) => sum + sizeOf(s), 0));
  };
  const wrapTransaction = <T extends object>(tx: T): T =>
    new Proxy(tx, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (name === "execute") {
          return (statement: unknown) => {
            guard([statement]);
            return (value as (s: unknown) => unknown).call(target, statement);
          };
        }
        if (name === "batch") {
          return (statements: unknown[]) => {
            guard(statements);
            return (value as (s: unknown[]) => unknown).call(target, statements);
          };
        }
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return new Proxy(client, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (name === "execute" || name === "batch") {
        return async (statements: unknown, ...rest: unknown[]) => {
          guard(Array.isArray(statements) ? statements : [statements]);
          return await (value as (...args: unknown[]) => unknown).call(target, statements, ...rest);
        };
      }
      if (name === "executeMultiple") {
        return async (sql: string) => {
          guard([sql]);
          return await (value as (sql: string) => unknown).call(target, sql);
        };
      }
      if (name === "transaction") {
        return async (mode: unknown) =>
          wrapTransaction(await (value as (m: unknown) => Promise<object>).call(target, mode));
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function sh(command: string, ...args: string[]) {
  try {
    const ended = await run(command, args, { deadline: 30_000 });
    return { ok: ended.success, stdout: ended.stdout, stderr: ended.stderr.trim() };
  } catch (error) {
    return { ok: false, stdout: "", stderr: (error as Error).message };
  }
}
