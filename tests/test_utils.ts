import { localRoot } from "../components/core/local_root.ts";

/** The folder of the committed test fixtures. */
export const FIXTURES: string = new URL("./fixtures/", import.meta.url).pathname;

/** A fresh temporary folder, removed when disposed. */
export async function tmpDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "svc-test-" });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  };
}

/** A fresh temporary local root, set for the test and restored when disposed. */
export async function tmpLocalRoot(): Promise<AsyncDisposable & { path: string }> {
  const previous = localRoot();
  const dir = await tmpDir();
  localRoot(dir.path);
  return {
    path: dir.path,
    [Symbol.asyncDispose]: async () => {
      localRoot(previous);
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** Writes a file under a folder and returns its path. */
export async function writeFile(folder: string, name: string, text: string): Promise<string> {
  const path = `${folder}/${name}`;
  await Deno.writeTextFile(path, text);
  return path;
}

/** What {@linkcode svcToml} writes. */
export interface SvcTomlOptions {
  /** @default {"root"} */
  localRoot?: string;
  sourceStorage: string;
  assistant: string;
  /** The API's port on 127.0.0.1. */
  port: number;
}

/** The text of a `svc.toml` with one source storage and one assistant, the API on loopback. */
export function svcToml(options: SvcTomlOptions): string {
  return [
    `local_root = ${JSON.stringify(options.localRoot ?? "root")}`,
    `source_storages = [${JSON.stringify(options.sourceStorage)}]`,
    `assistants = [${JSON.stringify(options.assistant)}]`,
    "[api]",
    'hostname = "127.0.0.1"',
    `port = ${options.port}`,
    "",
  ].join("\n");
}
