/**
 * The contract of source storages, run against every registered storage but
 * the demo: store, retrieve, delete, data kept across a restart (of the object
 * and of the process), and retrieval good enough on the labelled fixtures.
 * @module
 */
import assert from "node:assert/strict";
import { countTokens } from "../../components/chunking.ts";
import { type ComponentClass, SourceStorage } from "../../components/core/component.ts";
import { LocalDocument } from "../../components/core/document.ts";
import { HashEmbedder } from "../../components/embeddings/hash.ts";
import { BUILTINS } from "../../components/registry.ts";
import type { IndexBackend } from "../../components/indexing/mod.ts";
import type {
  IndexedSourceStorage,
  IndexedSourceStorageOptions,
} from "../../components/retrieval/indexed_storage.ts";
import { SvcDemoSourceStorage } from "../../components/source_storages/demo.ts";
import { closePostgres } from "../../components/source_storages/postgres.ts";
import { denoArgs, run } from "../_process.ts";
import { sharedCluster } from "../_postgres.ts";
import { skipPostgres } from "./_pgvector.ts";
import { integration, slow } from "../_tier.ts";
import { FIXTURES, tmpLocalRoot, writeFile } from "../test_utils.ts";
import { type ChromaServer, startChroma } from "./_chroma.ts";
import { chatParams, copiedFixture, labelledScores, PDF_QUESTIONS } from "./_helpers.ts";

/** What a storage needs around its tests, such as a server it talks to. */
interface Setup {
  /** How the tests name the storage with this setup, when it has several. */
  label?: string;
  /** Whether to skip the test named so here (what the storage needs is not installed). */
  ignore?(name: string): boolean;
  /**
   * Starts what the storage needs; disposed after the test. Whatever it starts (a server
   * process, PostgreSQL) leaves the storage's tests out of the unit tier.
   */
  start?(): Promise<AsyncDisposable>;
  /** The storage's options for what was started, as JSON (a process of a test gets them too). */
  options?(started: AsyncDisposable): Record<string, unknown>;
}

/**
 * How each registered storage is tested: a new storage joins by adding its
 * entry, a list of setups when it is tested in several.
 */
const SETUPS: Record<string, Setup | Setup[]> = {
  "svc.source_storages.LibSQL": {},
  "svc.source_storages.LanceDB": {},
  "svc.source_storages.Chroma": {
    start: () => startChroma(),
    options: (server) => ({ url: (server as ChromaServer).url }),
  },
  "svc.source_storages.Postgres": [
    postgresSetup({ vector: true, label: "Postgres with pgvector" }),
    postgresSetup({ vector: false, label: "Postgres without pgvector" }),
  ],
};

const STORAGES = Object.entries(BUILTINS).filter(([path, value]) =>
  path.startsWith("svc.source_storages.") && typeof value === "function" &&
  value.prototype instanceof SourceStorage && value !== SvcDemoSourceStorage
) as [string, ComponentClass<SourceStorage>][];

/** Each storage with each of its setups. */
const RUNS = STORAGES.flatMap(([path, Storage]) =>
  [SETUPS[path] ?? {}].flat().map((setup) => [path, Storage, setup] as const)
);

Deno.test("every registered source storage but the demo is in the contract suite", () => {
  assert.ok(STORAGES.length > 0);
  for (const [path] of STORAGES) assert.ok(path in SETUPS, `${path} has an entry in SETUPS`);
});

for (const [path, Storage, setup] of RUNS) {
  const name = path.slice("svc.source_storages.".length);
  const label = setup.label ?? name;
  /**
   * A test of the storage; `child` when it starts a process of its own, `slow` when its own
   * work takes seconds (see tests/_tier.ts).
   */
  const test = (
    title: string,
    fn: () => void | Promise<void>,
    options: { child?: boolean; slow?: boolean } = {},
  ) =>
    Deno.test({
      name: title,
      ignore: (integration.ignore && Boolean(setup.start || options.child)) ||
        (slow.ignore && Boolean(options.slow)) || setup.ignore?.(title),
      fn,
    });

  /**
   * Runs `fn` with a fresh local root, whatever the storage needs, a maker of
   * the storage, and the options it is made with.
   */
  const withStorage = (
    fn: (
      folder: string,
      make: (options?: IndexedSourceStorageOptions) => IndexedSourceStorage,
      options: Record<string, unknown>,
    ) => Promise<void>,
  ) =>
  async () => {
    await using root = await tmpLocalRoot();
    await using started = await (setup.start?.() ?? Promise.resolve(nothing()));
    const given = setup.options?.(started) ?? {};
    const Made = Storage as unknown as new (
      options?: IndexedSourceStorageOptions,
    ) => IndexedSourceStorage;
    await fn(root.path, (options) => new Made({ ...given, ...options }), given);
  };

  test(`${label} takes chunk_size, chunk_overlap and num_tokens with defaults`, () => {
    const defaults = Object.fromEntries(
      Object.entries(Storage.params).map(([key, schema]) => [key, schema.parse(undefined)]),
    );
    assert.deepEqual(defaults, { chunk_size: 500, chunk_overlap: 100, num_tokens: 1536 });
  });

  test(
    `${label} stores a document without text beside one with, and retrieves only the other's`,
    withStorage(async (folder, make) => {
      const blank = LocalDocument.fromPath(await writeFile(folder, "blank.md", " \n\n "));
      const guide = await copiedFixture(folder, "guide.md");
      const storage = make();
      const params = chatParams("with-a-blank");
      await storage.store([blank, guide], params);
      const sources = await storage.retrieve([blank, guide], "How do I install it?", params);
      assert.ok(sources.length > 0);
      assert.ok(sources.every((source) => source.document === guide));
      assert.deepEqual(await storage.retrieve([blank], "How do I install it?", params), []);
      await storage.delete(params);
    }),
  );

  test(
    `${label} retrieves chunks of the chat's documents with pages, within num_tokens`,
    withStorage(async (folder, make) => {
      const report = await copiedFixture(folder, "report.pdf");
      const guide = await copiedFixture(folder, "guide.md");
      const params = chatParams("chat-1", { chunk_size: 40, chunk_overlap: 10, num_tokens: 100 });
      const storage = make();
      await storage.store([report, guide], params);
      const sources = await storage.retrieve(
        [report, guide],
        "What is the secret ingredient of the winter loaf?",
        params,
      );
      assert.ok(sources.length >= 2, `${sources.length} sources`);
      assert.equal(sources[0]!.document, report);
      assert.match(sources[0]!.content, /cardamom/);
      assert.match(sources[0]!.location, /(^|, |-)2(,|-|$)/);
      assert.ok(sources.reduce((sum, source) => sum + source.numTokens, 0) <= 100);
      assert.equal(new Set(sources.map((source) => source.id)).size, sources.length);
      for (const source of sources) {
        assert.ok(source.document === report || source.document === guide);
        assert.equal(countTokens(source.content), source.numTokens);
        // A chunk, or neighbouring chunks of one page joined (`key-3-4`): up to 40 tokens each.
        const [first, last = first] = source.id.split("-").slice(1).map(Number);
        assert.ok(
          source.numTokens <= 40 * (last! - first! + 1),
          `${source.id}: ${source.numTokens}`,
        );
        assert.match(
          source.location,
          source.document === guide ? /^$/ : /^\d+(-\d+)?(, \d+(-\d+)?)*$/,
        );
      }
    }),
  );

  test(
    `${label} gives neighbouring passages of a page that it chooses as one source`,
    withStorage(async (folder, make) => {
      const verbs = ["warm", "sift", "whisk", "fold", "knead", "rest", "shape", "proof", "score"];
      const things = [
        "milk",
        "flour",
        "eggs",
        "butter",
        "dough",
        "ball",
        "loaves",
        "tins",
        "crust",
      ];
      const steps = verbs.map((verb, i) =>
        `Step ${i + 1}: ${verb} the ${things[i]}, with cardamom.`
      );
      const path = await writeFile(folder, "loaf.md", `# Winter loaf\n\n${steps.join(" ")}`);
      const loaf = LocalDocument.fromPath(path);
      const params = chatParams("chat-1", { chunk_size: 40, chunk_overlap: 0, num_tokens: 200 });
      const storage = make();
      await storage.store([loaf], params);
      const sources = await storage.retrieve(
        [loaf],
        "How much cardamom in the winter loaf?",
        params,
      );
      const joined = sources.filter((source) => /-\d+-\d+$/.test(source.id));
      assert.ok(joined.length > 0, sources.map((source) => source.id).join());
      for (const source of joined) {
        assert.equal(countTokens(source.content), source.numTokens);
        // The heading once, and each step once and in order, though each passage opens with the heading.
        assert.equal(source.content.match(/Winter loaf/g)!.length, 1, source.content);
        const told = source.content.match(/Step \d+/g)!.map((step) => Number(step.slice(5)));
        assert.deepEqual(told, Array.from({ length: told.length }, (_, i) => told[0]! + i));
        assert.ok(told.length > 2, source.content);
      }
    }),
  );

  test(
    `${label} ranks the one relevant document of eleven first`,
    withStorage(async (folder, make) => {
      // A smoke test: ten irrelevant documents and the secret in the middle.
      const documents: LocalDocument[] = [];
      for (let i = 0; i < 10; i++) {
        const path = await writeFile(
          folder,
          `irrelevant${i}.txt`,
          `This is irrelevant for the ${i}-th time.`,
        );
        documents.push(LocalDocument.fromPath(path));
        if (i === 4) {
          documents.push(
            LocalDocument.fromPath(await writeFile(folder, "secret.txt", "The secret is Svc!")),
          );
        }
      }
      const storage = make();
      const params = chatParams("chat-smoke");
      await storage.store(documents, params);
      const sources = await storage.retrieve(documents, "What is the secret?", params);
      assert.equal(sources[0]!.document.name, "secret.txt");
      assert.match(sources[0]!.content, /The secret is Svc!/);
    }),
  );

  test(
    `${label} only retrieves from the documents it is given`,
    withStorage(async (folder, make) => {
      const report = await copiedFixture(folder, "report.pdf");
      const notes = await copiedFixture(folder, "notes.docx");
      const storage = make();
      const params = chatParams("chat-2", { chunk_size: 40, chunk_overlap: 10, num_tokens: 4000 });
      await storage.store([report, notes], params);
      const sources = await storage.retrieve([notes], "When does the bakery open?", params);
      assert.ok(sources.length > 0);
      assert.ok(sources.every((source) => source.document === notes));
    }),
  );

  test(
    `${label} keeps a chat's data across a restart, without reading the documents again`,
    withStorage(async (folder, make) => {
      const report = await copiedFixture(folder, "report.pdf");
      const params = chatParams("chat-3", { chunk_size: 40, chunk_overlap: 10 });
      const before = await make().retrieve([report], "closed on Mondays", params);
      await Deno.remove(report.path);
      const after = await make().retrieve([report], "closed on Mondays", params);
      assert.deepEqual(after.map(withoutDocument), before.map(withoutDocument));
      assert.ok(after.every((source) => source.document === report));
    }),
  );

  test(
    `${label} keeps a chat's links across a process restart`,
    withStorage(async (folder, make, options) => {
      const report = await copiedFixture(folder, "report.pdf");
      const module = new URL("../../components/mod.ts", import.meta.url).href;
      const storages = new URL("../../components/source_storages/mod.ts", import.meta.url).href;
      const script = `
        import { LocalDocument, localRoot } from ${JSON.stringify(module)};
        import { ${name} } from ${JSON.stringify(storages)};
        localRoot(${JSON.stringify(folder)});
        const report = LocalDocument.fromPath(${JSON.stringify(report.path)}, {
          id: ${JSON.stringify(report.id)},
        });
        await new ${name}(${JSON.stringify(options)}).store([report], {
          user: "ada", chat_id: "restart", chat_name: "x", signal: new AbortController().signal,
        });
      `;
      const output = await run(Deno.execPath(), denoArgs("eval", script));
      assert.equal(output.code, 0, output.stderr);
      await Deno.remove(report.path);
      const sources = await make().retrieve([report], "cardamom", chatParams("restart"));
      assert.match(sources[0]!.content, /cardamom/);
    }),
    { child: true },
  );

  test(
    `${label} has the answer's page among the first three sources of a PDF`,
    withStorage(async (_folder, make) => {
      const report = LocalDocument.fromPath(`${FIXTURES}report.pdf`);
      const params = chatParams("pdf", { chunk_size: 32, chunk_overlap: 16 });
      const storage = make();
      for (const [question, page] of PDF_QUESTIONS) {
        const sources = await storage.retrieve([report], question, params);
        const pages = sources.slice(0, 3).flatMap((source) => source.location.split(", "));
        assert.ok(pages.includes(page), `${question} -> ${pages}`);
      }
    }),
  );

  test(
    `${label}'s fusion ranks the labelled set at least as well as its full-text or vector arm`,
    withStorage(async (_folder, make) => {
      // The repository's labelled set (real documents, questions in other words) at the default
      // settings: the fusion adds the candidates' proximity and their pages' ranking to the arms.
      const scores = await labelledScores(
        make({ embedder: new HashEmbedder() }),
        chatParams("labelled"),
      );
      console.log(`${label}, the labelled set at the default settings`);
      console.table(scores);
      for (const measure of ["hitAt3", "mrr"] as const) {
        const best = Math.max(scores.bm25[measure], scores.vectors[measure]);
        assert.ok(scores.fusion[measure] > best, `${measure}: ${JSON.stringify(scores)}`);
      }
    }),
    { slow: true },
  );

  test(
    `${label} shares an index among one user's chats only, unless told to share it across users`,
    withStorage(async (folder, make) => {
      // Bob uploads the very bytes Ada did, as a document of his own.
      const report = await copiedFixture(folder, "report.pdf");
      await Deno.mkdir(`${folder}/bob`);
      await Deno.copyFile(report.path, `${folder}/bob/report.pdf`);
      const bobs = LocalDocument.fromPath(`${folder}/bob/report.pdf`, { id: "bobs-report" });
      const chats = [
        { ...chatParams("ada-1"), user: "ada", document: report },
        { ...chatParams("ada-2"), user: "ada", document: report },
        { ...chatParams("bob-1"), user: "bob", document: bobs },
      ];
      const question = "What is the secret ingredient of the winter loaf?";
      const keysAndSources = async (storage: SourceStorage) => {
        const sources = [];
        for (const { document, ...params } of chats) {
          await storage.store([document], params);
          sources.push((await storage.retrieve([document], question, params)).map((s) => s.id));
        }
        const keys = await indexKeys(
          storage,
          chats.map(({ chat_id, document }) => ({ chat_id, document: document.id })),
        );
        for (const chat of chats) await storage.delete(chat);
        return { keys, sources };
      };

      // By default: Ada's chats share one index; Bob's copy has an index of its own.
      const apart = await keysAndSources(make());
      assert.equal(apart.keys[0], apart.keys[1]);
      assert.notEqual(apart.keys[2], apart.keys[0]);
      assert.deepEqual(apart.sources[1], apart.sources[0]);
      assert.ok(apart.sources[0]!.length > 0);
      assert.ok(apart.sources[2]!.every((id) => !apart.sources[0]!.includes(id)));

      // Shared on purpose: all three chats use one index.
      const shared = await keysAndSources(make({ shareIndexes: true }));
      assert.equal(new Set(shared.keys).size, 1);
      assert.deepEqual(shared.sources[2], shared.sources[0]);
    }),
  );

  test(
    `${label} forgets a deleted chat, and keeps what another chat still uses`,
    withStorage(async (folder, make) => {
      const report = await copiedFixture(folder, "report.pdf");
      const first = chatParams("chat-4");
      const second = chatParams("chat-5");
      const storage = make();
      await storage.store([report], first);
      await storage.store([report], second);
      await storage.delete(first);
      await Deno.remove(report.path);

      const restarted = make();
      const kept = await restarted.retrieve([report], "winter loaf", second);
      assert.ok(kept.length > 0);
      // The deleted chat has nothing stored: its documents must be read again.
      await assert.rejects(
        async () => await restarted.retrieve([report], "winter loaf", first),
        /Cannot read "report\.pdf": the file does not exist/,
      );
      await restarted.delete(second);
      await restarted.delete(second);
    }),
  );
}

/** The key of the index each chat's document is linked to, as the storage's backend keeps it. */
async function indexKeys(
  storage: SourceStorage,
  chats: { chat_id: string; document: string }[],
): Promise<string[]> {
  const backend: IndexBackend = await (storage as IndexedSourceStorage)["backend"]();
  return await Promise.all(chats.map(async ({ chat_id, document }) => {
    const key = (await backend.links(chat_id)).get(document)?.key;
    assert.ok(key, `${chat_id} has an index of ${document}`);
    return key;
  }));
}

function withoutDocument({ document: _, ...rest }: { document: unknown }) {
  return rest;
}

function nothing(): AsyncDisposable {
  return { [Symbol.asyncDispose]: () => Promise.resolve() };
}

/**
 * The Postgres storage on a fresh database of the file's cluster, with the
 * vector extension or without.
 */
function postgresSetup(options: { vector: boolean; label: string }): Setup {
  return {
    label: options.label,
    ignore: (name) => skipPostgres(name, options),
    async start() {
      const cluster = await sharedCluster();
      const database = await cluster.database({ vector: options.vector });
      return {
        url: database.url,
        async [Symbol.asyncDispose]() {
          await closePostgres(database.url);
          await cluster.drop(database);
        },
      };
    },
    options: (started) => ({ url: (started as unknown as { url: string }).url }),
  };
}
