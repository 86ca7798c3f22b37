/**
 * The npm packages that only some components need, each loaded the first
 * time one of those components is used. They are not in deno.json's imports:
 * Deno installs every package listed there (and in deno.lock) before it runs
 * anything, so a first `deno task ui` on the demo components would download
 * LanceDB, Chroma and the provider SDKs (some 700 MB) for nothing.
 *
 * The specifier is a variable on purpose: Deno fetches every import it can
 * read ahead of time, `import("npm:…")` included. A compiled `svc` carries
 * these packages through `deploy/compile.ts`, which includes each of them.
 * @module
 */
import { quote, SvcError } from "./core/errors.ts";

/** Each optional package and the exact version svc uses. */
export const OPTIONAL_PACKAGES = {
  "@inquirer/prompts": "npm:@inquirer/prompts@8.8.0",
  "@lancedb/lancedb": "npm:@lancedb/lancedb@0.31.0",
  "apache-arrow": "npm:apache-arrow@18.1.0",
  chromadb: "npm:chromadb@3.5.0",
  "eventsource-parser": "npm:eventsource-parser@4.1.3",
  "hash-wasm": "npm:hash-wasm@4.13.0",
  "@modelcontextprotocol/sdk": "npm:@modelcontextprotocol/sdk@1.32.2",
  openai: "npm:openai@7.57.0",
  "openid-client": "npm:openid-client@6.8.9",
  postgres: "npm:postgres@3.4.9",
} as const;

/** The name of an optional package. */
export type OptionalPackage = keyof typeof OPTIONAL_PACKAGES;

/**
 * The modules of optional packages that svc loads by a subpath rather than as
 * the package's main module: a compiled `svc` includes them as well.
 */
export const OPTIONAL_SUBPATHS: Readonly<Partial<Record<OptionalPackage, readonly string[]>>> = {
  "eventsource-parser": ["stream"],
  "@modelcontextprotocol/sdk": [
    "server/mcp.js",
    "server/stdio.js",
    "server/webStandardStreamableHttp.js",
  ],
};

const loading = new Map<string, Promise<unknown>>();

/**
 * Imports an optional package once; the first call downloads it when Deno's
 * cache does not hold it yet. `T` is the module's type, taken from a type-only
 * import of the same specifier, which Deno does not fetch to run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { importPackage } from "./packages.ts";
 * import type * as Arrow from "npm:apache-arrow@18.1.0";
 * const arrow = await importPackage<typeof Arrow>("apache-arrow");
 * assert.equal(typeof arrow.tableFromArrays, "function");
 * ```
 *
 * A `subpath` loads one module of the package (`server/stdio.js`), for the
 * packages whose main module is not the one wanted.
 *
 * @throws {SvcError} 422 naming the package when it cannot be loaded
 */
export function importPackage<T>(name: OptionalPackage, subpath?: string): Promise<T> {
  const specifier: string = OPTIONAL_PACKAGES[name] + (subpath ? `/${subpath}` : "");
  let module = loading.get(specifier);
  if (!module) {
    module = import(specifier).catch((error) => {
      loading.delete(specifier);
      throw new SvcError(
        `Cannot load the npm package ${quote(name)}: ${(error as Error).message}`,
        { status: 422, cause: error },
      );
    });
    loading.set(specifier, module);
  }
  return module as Promise<T>;
}
