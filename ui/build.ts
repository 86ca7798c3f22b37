/**
 * Builds the web UI with esbuild (minified, content-hashed names) and writes
 * it as the module `server/ui_assets.ts`, which the UI server imports, so
 * that `deno compile` embeds the UI and nothing is built at run time.
 *
 * What the page needs at first is the entry script, the chunks it imports
 * and the style sheet; a module the app imports with `import()` (the PDF
 * view, with pdf.js) is a chunk of its own, loaded when it is first used,
 * and pdf.js's worker is a file of its own, which that chunk finds by the
 * name the build gives it (`PDF_WORKER_FILE`).
 *
 * Run it after changing `ui/`: `deno task build:ui`. A test rebuilds in
 * memory and fails when the committed module is stale.
 * @module
 */
import * as esbuild from "npm:esbuild@0.28.2";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root, which esbuild works from so that its output is the same on every machine. */
const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Where the generated module goes. */
export const ASSETS_MODULE: string = fileURLToPath(
  new URL("../server/ui_assets.ts", import.meta.url),
);

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

/** A built file. */
export interface BuiltAsset {
  /** The content-hashed file name: `app-3F2K1Q.js`. */
  name: string;
  contentType: string;
  body: string;
}

/** The built UI: its files, and the two the page loads. */
export interface UiBuild {
  script: string;
  style: string;
  assets: BuiltAsset[];
  /** The files the page loads before anything is clicked: the script, its static imports, the style. */
  firstLoad: string[];
}

const COMMON: esbuild.BuildOptions = {
  absWorkingDir: ROOT,
  outdir: "assets",
  entryNames: "[name]-[hash]",
  bundle: true,
  minify: true,
  write: false,
  format: "esm",
  target: ["es2022", "chrome120", "firefox121", "safari17"],
  charset: "utf8",
  // Packages by the path they have in node_modules, not the folder their links lead to, so
  // that the build is the same wherever the checkout and its node_modules are.
  preserveSymlinks: true,
  logLevel: "silent",
};

/** Bundles `ui/main.tsx` and `ui/styles.css` in memory, and pdf.js's worker. */
export async function buildUi(): Promise<UiBuild> {
  try {
    const worker = await pdfWorker();
    const result = await esbuild.build({
      ...COMMON,
      entryPoints: { app: "ui/main.tsx", style: "ui/styles.css" },
      chunkNames: "chunk-[hash]",
      splitting: true,
      metafile: true,
      define: { PDF_WORKER_FILE: JSON.stringify(worker.name) },
      jsx: "automatic",
      jsxImportSource: "preact",
    });
    const assets = result.outputFiles!.map((file) => {
      const name = basename(file.path);
      const suffix = name.slice(name.lastIndexOf("."));
      return {
        name,
        contentType: CONTENT_TYPES[suffix] ?? "application/octet-stream",
        body: file.text,
      };
    }).concat(worker).sort((a, b) => a.name.localeCompare(b.name));
    const find = (prefix: string) => {
      const asset = assets.find((a) => a.name.startsWith(prefix));
      if (!asset) throw new Error(`esbuild wrote no ${prefix}* file`);
      return asset.name;
    };
    const script = find("app-");
    const style = find("style-");
    return {
      script,
      style,
      assets,
      firstLoad: [...staticImports(result.metafile!, script), style],
    };
  } finally {
    await esbuild.stop();
  }
}

/**
 * pdf.js's worker as its package builds it (minified, with its license
 * notice), named after its content as esbuild names the other files.
 */
async function pdfWorker(): Promise<BuiltAsset> {
  const body = await Deno.readTextFile(`${ROOT}node_modules/pdfjs-dist/build/pdf.worker.min.mjs`);
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)),
  );
  // Base 32 without padding, as esbuild writes its hashes.
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0;
  let value = 0;
  let hash = "";
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && hash.length < 8) {
      hash += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return { name: `pdf.worker-${hash}.js`, contentType: CONTENT_TYPES[".js"]!, body };
}

/** The output `name` and every output it imports statically, through their imports. */
function staticImports(metafile: esbuild.Metafile, name: string): string[] {
  const found = new Set<string>();
  const visit = (path: string) => {
    if (found.has(basename(path))) return;
    found.add(basename(path));
    for (const imported of metafile.outputs[path]?.imports ?? []) {
      if (imported.kind === "import-statement") visit(imported.path);
    }
  };
  visit(`assets/${name}`);
  return [...found];
}

/**
 * A bundle's text as a string literal of the generated module. The
 * bundle's own `import.meta` (pdf.js has some) is data there, not the
 * module's code, so it is written with its dot escaped: the checks that scan
 * the program's code for `import.meta` then do not take it for the module's.
 */
function dataString(text: string): string {
  return JSON.stringify(text).replaceAll("import.meta", "import\\u002emeta");
}

/** The source of `server/ui_assets.ts` for a build. */
export function assetsModule(build: UiBuild): string {
  const assets = build.assets.map((asset) =>
    [
      "  {",
      `    name: ${JSON.stringify(asset.name)},`,
      `    contentType: ${JSON.stringify(asset.contentType)},`,
      `    body: ${dataString(asset.body)},`,
      "  },",
    ].join("\n")
  );
  return [
    "// deno-fmt-ignore-file",
    "// GENERATED by ui/build.ts from ui/: do not edit. After changing ui/, run `deno task build:ui`.",
    "/**",
    " * The web UI, built: what the UI server serves, embedded in the program.",
    " * @module",
    " */",
    "",
    "/** A built file of the web UI. */",
    "export interface UiAsset {",
    "  /** The content-hashed file name. */",
    "  name: string;",
    "  contentType: string;",
    "  body: string;",
    "}",
    "",
    "/** The script and the style sheet the page loads. */",
    `export const UI_ENTRY: { script: string; style: string } = ${
      JSON.stringify({ script: build.script, style: build.style })
    };`,
    "",
    "/** Every built file. */",
    "export const UI_ASSETS: readonly UiAsset[] = [",
    ...assets,
    "];",
    "",
  ].join("\n");
}

/** The size of a text, gzipped as the UI server sends it. */
export async function gzipSize(text: string): Promise<number> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

if (import.meta.main) {
  const build = await buildUi();
  await Deno.writeTextFile(ASSETS_MODULE, assetsModule(build));
  for (const asset of build.assets) {
    const size = new TextEncoder().encode(asset.body).byteLength;
    console.log(`${asset.name}: ${size} B minified, ${await gzipSize(asset.body)} B gzipped`);
  }
  console.log(`Wrote ${ASSETS_MODULE}`);
}
