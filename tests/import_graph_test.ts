/**
 * The shape of the house, checked on the import graph of every module of
 * `components/`, `server/` and `cli/` as `deno info` resolves it (type-only
 * imports included): no module reaches itself through its imports,
 * `components/core/` is the bottom layer, the PDF reader is entered by its
 * `mod.ts`, dependencies point one way, `cli -> server -> components`, and
 * within components `source_storages -> retrieval -> (indexing, embeddings,
 * text, core)`.
 * @module
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { info, ROOT } from "./dist/_graph.ts";
import { integration } from "./_tier.ts";

/** The folders whose modules make up svc's program. */
const AREAS = ["components", "server", "cli"];

/** One import of a module of the checkout: the file it names, and the line it is on. */
interface Import {
  file: string;
  line: number;
}

/** The checkout's file of a module specifier, relative to the root; `undefined` for npm, node, ... */
function localFile(specifier: string): string | undefined {
  if (!specifier.startsWith("file:")) return undefined;
  return relative(ROOT, new URL(specifier).pathname);
}

async function* sources(folder: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(join(ROOT, folder))) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory) yield* sources(path);
    else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

/** Every module of the areas (and what they import), with its imports of the checkout's files. */
async function importGraph(): Promise<Map<string, Import[]>> {
  const graph = new Map<string, Import[]>();
  const files = ["main.ts"];
  for (const area of AREAS) for await (const file of sources(area)) files.push(file);
  for (const file of files) {
    // One `deno info` covers everything its root imports; only what none reached needs another.
    if (graph.has(file)) continue;
    const { modules } = await info(file);
    for (const module of modules) {
      const from = localFile(module.specifier);
      if (from === undefined || graph.has(from)) continue;
      const imports = (module.dependencies ?? []).flatMap(({ code, type }) => {
        const resolved = code ?? type;
        const target = resolved && localFile(resolved.specifier);
        return target === undefined ? [] : [{ file: target, line: resolved!.span!.start.line + 1 }];
      });
      graph.set(from, imports);
    }
  }
  return graph;
}

/** Each cycle of the graph, once, as the files it goes through, back to its first. */
function cycles(graph: Map<string, Import[]>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string) => {
    path.push(file);
    for (const { file: next } of graph.get(file) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) found.push([...path.slice(at), next]);
      else if (!done.has(next)) visit(next);
    }
    path.pop();
    done.add(file);
  };
  for (const file of [...graph.keys()].sort()) if (!done.has(file)) visit(file);
  return found;
}

/** The imports that leave what `allowed` says a file may import, as `from:line -> file`. */
function crossings(
  graph: Map<string, Import[]>,
  from: (file: string) => boolean,
  allowed: (file: string) => boolean,
): string[] {
  return [...graph].filter(([file]) => from(file)).flatMap(([file, imports]) =>
    imports.filter((target) => !allowed(target.file))
      .map((target) => `${file}:${target.line} -> ${target.file}`)
  );
}

let reading: Promise<Map<string, Import[]>> | undefined;
/**
 * The import graph, read once by the first test that needs it: `deno info` runs as a child
 * process, which leaves these tests out of the unit tier.
 */
function theGraph(): Promise<Map<string, Import[]>> {
  return reading ??= importGraph();
}
const under = (folder: string) => (file: string) => file.startsWith(`${folder}/`);

integration.test("the import graph walks every module of components/, server/ and cli/", async () => {
  const graph = await theGraph();
  for (const area of AREAS) {
    for await (const file of sources(area)) assert.ok(graph.has(file), `${file} is in the graph`);
  }
  assert.ok(graph.get("components/core/chat.ts")!.length > 0);
});

integration.test("no module of components/, server/ or cli/ reaches itself through its imports", async () => {
  assert.deepEqual(cycles(await theGraph()).map((cycle) => cycle.join(" -> ")), []);
});

Deno.test("cycles() finds a loop of imports and names the files it goes through", () => {
  const loop = new Map<string, Import[]>([
    ["a.ts", [{ file: "b.ts", line: 1 }]],
    ["b.ts", [{ file: "c.ts", line: 1 }, { file: "d.ts", line: 2 }]],
    ["c.ts", [{ file: "a.ts", line: 1 }]],
    ["d.ts", []],
  ]);
  assert.deepEqual(cycles(loop), [["a.ts", "b.ts", "c.ts", "a.ts"]]);
  loop.set("c.ts", []);
  assert.deepEqual(cycles(loop), []);
});

integration.test("components/core/ is the bottom layer: it imports nothing of svc outside itself", async () => {
  const core = under("components/core");
  assert.deepEqual(crossings(await theGraph(), core, core), []);
});

integration.test("components/indexing/ knows the source storages only by the backend contract it defines", async () => {
  const indexing = under("components/indexing");
  assert.deepEqual(
    crossings(await theGraph(), indexing, (file) => !under("components/source_storages")(file)),
    [],
  );
});

integration.test("components/retrieval/ knows no storage: source storages hand it their data, never back", async () => {
  const graph = await theGraph();
  const retrieval = under("components/retrieval");
  assert.deepEqual(
    crossings(graph, retrieval, (file) => !under("components/source_storages")(file)),
    [],
  );
});

integration.test("retrieval sits above indexing, embeddings, text and core: none of them imports it", async () => {
  const graph = await theGraph();
  const below = ["indexing", "embeddings", "text", "core", "documents", "assistants"]
    .map((folder) => under(`components/${folder}`));
  assert.deepEqual(
    crossings(
      graph,
      (file) => below.some((folder) => folder(file)),
      (file) => !under("components/retrieval")(file),
    ),
    [],
  );
});

integration.test("source storages reach retrieval through its door, retrieval/mod.ts", async () => {
  const graph = await theGraph();
  const retrieval = under("components/retrieval");
  assert.deepEqual(
    crossings(
      graph,
      under("components/source_storages"),
      (file) => !retrieval(file) || file === "components/retrieval/mod.ts",
    ),
    [],
  );
});

integration.test("components/documents/pdf/ is entered by its mod.ts and reaches only core/ and documents/", async () => {
  const graph = await theGraph();
  const pdf = under("components/documents/pdf");
  const door = "components/documents/pdf/mod.ts";
  assert.deepEqual(
    crossings(graph, (file) => !pdf(file), (file) => !pdf(file) || file === door),
    [],
  );
  assert.deepEqual(
    crossings(
      graph,
      pdf,
      (file) => under("components/core")(file) || under("components/documents")(file),
    ),
    [],
  );
});

integration.test("dependencies point one way: cli -> server -> components", async () => {
  const graph = await theGraph();
  const components = under("components");
  const server = under("server");
  const lower = (file: string) => components(file) || server(file) || file === "deno.json";
  assert.deepEqual(
    crossings(graph, components, (file) => !server(file) && !under("cli")(file)),
    [],
  );
  assert.deepEqual(crossings(graph, server, lower), []);
});
