/**
 * What the reliability tests check of a running `svc api`: the temporary
 * files of its uploads, how much its local root holds, and the failures its
 * log reports.
 * @module
 */
import { join } from "node:path";
import type { Svc } from "./_server.ts";

/** The names of the uploads' temporary files in the local root. */
export async function temporaryUploads(svc: Svc): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(join(svc.root, "documents"))) {
      if (entry.name.startsWith(".upload-")) names.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names;
}

/** The bytes of every file under `folder`; a file removed while counting counts nothing. */
export async function diskUse(folder: string): Promise<number> {
  let total = 0;
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(folder));
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory) total += await diskUse(path);
    else total += await Deno.stat(path).then((info) => info.size, () => 0);
  }
  return total;
}

/** The request log lines of the process with a status of 500 or more. */
export function failures(svc: Svc): string[] {
  return svc.stderr().split("\n").filter((line) => {
    try {
      return JSON.parse(line).status >= 500;
    } catch {
      return false;
    }
  });
}
