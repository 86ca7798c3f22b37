import assert from "node:assert/strict";
import { apiPostgresUrl, setApiPostgresUrl } from "../../components/core/api_database.ts";
import { LocalDocument } from "../../components/core/document.ts";
import { SvcError } from "../../components/core/errors.ts";
import { PostgresBackend } from "../../components/source_storages/_postgres_backend.ts";
import { OWN_BM25, TermPostings } from "../../components/retrieval/lexical/term_postings.ts";
import { closePostgres, Postgres } from "../../components/source_storages/postgres.ts";
import { denoArgs, spawn } from "../_process.ts";
import {
  connect,
  type PostgresCluster,
  type PostgresDatabase,
  postgresTest,
  type Sql,
} from "../_postgres.ts";
import { tmpLocalRoot, writeFile } from "../test_utils.ts";
import { chatParams, copiedFixture, randomIndex, randomVectors } from "./_helpers.ts";
import { skipPostgres } from "./_pgvector.ts";

/**
 * A test on a fresh database, with pgvector or without; the connections the
 * storage opened to it are closed at the end.
 */
function test(
  name: string,
  options: { vector: boolean },
  fn: (database: PostgresDatabase, cluster: PostgresCluster) => Promise<void>,
): void {
  postgresTest(name, async (database, cluster) => {
    try {
      await fn(database, cluster);
    } finally {
      await closePostgres(database.url);
    }
  }, { vector: options.vector, ignore: skipPostgres(name, options) });
}

/**
 * Runs `fn` with a client of the database, ended after it: closed after 5 s
 * when a query is still waiting, so that a store that never settles fails its
 * test rather than holding it.
 */
async function query<T>(url: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
  const sql = await connect(url);
  try {
    return await fn(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

interface Counts {
  indexes: number;
  chunks: number;
  postings: number;
  vectors: number;
  links: number;
}

/** No row in any of the storage's tables. */
const NOTHING: Counts = { indexes: 0, chunks: 0, postings: 0, vectors: 0, links: 0 };

/** The number of rows of each of the storage's tables. */
function counts(url: string): Promise<Counts> {
  return query(url, async (sql) => {
    const [row] = await sql`SELECT
      (SELECT count(*) FROM rag_indexes)::int AS indexes,
      (SELECT count(*) FROM rag_chunks)::int AS chunks,
      (SELECT count(*) FROM rag_index_postings)::int AS postings,
      (SELECT count(*) FROM rag_vectors_512)::int AS vectors,
      (SELECT count(*) FROM rag_links)::int AS links`;
    return { ...row } as Counts;
  });
}

/** Waits until `check` holds, polling; fails naming `what` after two minutes. */
async function waitFor(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Waited two minutes for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A script that stores a document for a chat with a new process's Postgres storage. */
function storeScript(url: string, document: LocalDocument, chatId: string, params = {}): string {
  const module = new URL("../../components/mod.ts", import.meta.url).href;
  const storages = new URL("../../components/source_storages/mod.ts", import.meta.url).href;
  return `
    import { LocalDocument } from ${JSON.stringify(module)};
    import { Postgres } from ${JSON.stringify(storages)};
    const document = LocalDocument.fromPath(${JSON.stringify(document.path)}, {
      id: ${JSON.stringify(document.id)},
    });
    await new Postgres({ url: ${JSON.stringify(url)} }).store([document], {
      user: "ada", chat_id: ${JSON.stringify(chatId)}, chat_name: "x",
      signal: new AbortController().signal, ...${JSON.stringify(params)},
    });
  `;
}

test(
  "Postgres stores a document once when two processes store it at the same time",
  { vector: false },
  async (database) => {
    await using root = await tmpLocalRoot();
    const report = await copiedFixture(root.path, "report.pdf");
    // Creates the tables, that of vectors too.
    const guide = await copiedFixture(root.path, "guide.md");
    await new Postgres({ url: database.url }).store([guide], chatParams("guide"));
    await query(database.url, async (sql) => {
      const { children } = await sql.begin(async (tx) => {
        // No index can be added while this holds: the first process waits here
        // holding the lock of the index's key, and the second for that lock.
        await tx`LOCK TABLE rag_indexes IN SHARE MODE`;
        const children = ["first", "second"].map((chat) =>
          spawn(Deno.execPath(), denoArgs("eval", storeScript(database.url, report, chat)))
        );
        let waiting = "";
        try {
          await waitFor("both processes to wait", async () => {
            // pg_locks, not pg_stat_activity, which a transaction reads once.
            const locks = await tx`SELECT locktype FROM pg_locks WHERE NOT granted
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
              ORDER BY locktype`;
            waiting = locks.map((row) => row.locktype).join();
            return waiting === "advisory,relation";
          });
        } catch (error) {
          for (const child of children) await child[Symbol.asyncDispose]();
          throw new Error(
            `${(error as Error).message}; waiting: ${waiting}; the processes wrote: ` +
              children.map((child) => child.stderr()).join("\n"),
          );
        }
        return { children };
      });
      for (const child of children) {
        const ended = await child.ended;
        assert.equal(ended.code, 0, ended.stderr);
      }
    });
    // One index of the report besides the guide's, complete, that both chats link to.
    assert.equal((await counts(database.url)).indexes, 2);
    const linked = await query(database.url, (sql) =>
      sql`SELECT l.chat_id, i.id, i.chunk_count,
        (SELECT count(*) FROM rag_chunks c WHERE c.index_id = i.id)::int AS chunks,
        (SELECT count(*) FROM rag_vectors_512 v WHERE v.index_id = i.id)::int AS vectors
      FROM rag_links l JOIN rag_indexes i ON i.id = l.index_id
      WHERE l.chat_id <> 'guide' ORDER BY l.chat_id`);
    assert.deepEqual(linked.map((row) => row.chat_id), ["first", "second"]);
    assert.equal(linked[0]!.id, linked[1]!.id);
    assert.equal(linked[0]!.chunks, linked[0]!.chunk_count);
    assert.equal(linked[0]!.vectors, linked[0]!.chunk_count);
    const storage = new Postgres({ url: database.url });
    for (const chat of ["first", "second"]) {
      const sources = await storage.retrieve([report], "winter loaf", chatParams(chat));
      assert.match(sources[0]!.content, /winter loaf/);
    }
  },
);

test(
  "Postgres leaves nothing of a store killed midway, and stores the document again",
  { vector: true },
  async (database) => {
    await using root = await tmpLocalRoot();
    // Thousands of small chunks, so that writing them takes a while.
    const words = ["loaf", "rye", "crumb", "oven", "flour", "starter", "crust", "proof"];
    const paragraphs = Array.from(
      { length: 3000 },
      (_, i) => `Paragraph ${i}: the ${words[i % 8]} and the ${words[(i * 3) % 8]} of batch ${i}.`,
    );
    const path = await writeFile(root.path, "long.md", paragraphs.join("\n\n"));
    const long = LocalDocument.fromPath(path, { id: "long" });
    const params = { chunk_size: 16, chunk_overlap: 0 };
    await new Postgres({ url: database.url }).delete(chatParams("none"));
    await query(database.url, async (sql) => {
      await using child = spawn(
        Deno.execPath(),
        denoArgs("eval", storeScript(database.url, long, "killed", params)),
      );
      let ended = false;
      child.ended.finally(() => ended = true).catch(() => {});
      await waitFor("the store to write its rows", async () => {
        const writing = await sql`SELECT 1 FROM pg_stat_activity
          WHERE datname = ${database.name} AND application_name = 'svc'
            AND xact_start IS NOT NULL
            AND query ~ '^(INSERT INTO (rag_chunks|rag_index_postings)|COPY "rag_vectors_)'`;
        if (writing.length === 0 && ended) {
          throw new Error(`The store ended before it was killed: ${child.stderr()}`);
        }
        return writing.length > 0;
      });
      await child.stop("SIGKILL");
      await waitFor("the killed process's sessions to end", async () => {
        const sessions = await sql`SELECT 1 FROM pg_stat_activity
          WHERE datname = ${database.name} AND application_name = 'svc'`;
        return sessions.length === 0;
      });
    });
    assert.deepEqual(await counts(database.url), NOTHING);

    const storage = new Postgres({ url: database.url });
    const sources = await storage.retrieve(
      [long],
      "batch 2999",
      chatParams("again", params),
    );
    assert.match(sources[0]!.content, /batch 2999\b/);
    const stored = await counts(database.url);
    assert.equal(stored.indexes, 1);
    assert.ok(stored.chunks >= 3000, `${stored.chunks} chunks`);
  },
);

/** The places of the `limit` vectors nearest `question` by cosine, nearest first. */
function nearestOf(vectors: Float32Array[], question: Float32Array, limit: number): number[] {
  const cosine = (a: Float32Array, b: Float32Array) =>
    a.reduce((sum, x, i) => sum + x * b[i]!, 0) / (Math.hypot(...a) * Math.hypot(...b));
  return vectors.map((vector, place) => ({ place, score: cosine(vector, question) }))
    .sort((a, b) => b.score - a.score).slice(0, limit).map((each) => each.place);
}

for (const passageMemory of [undefined, 1]) {
  test(
    `Postgres reads pgvector's vectors and ranks a chat's chunks only, nearest first${
      passageMemory ? ", the passages it does not keep read at each search" : ""
    }`,
    { vector: true },
    async (database) => {
      const dimension = 16;
      const chat = [
        { ...randomIndex("k1", 300, dimension, 3), vectors: randomVectors(300, dimension, 3) },
        { ...randomIndex("k3", 100, dimension, 5), vectors: randomVectors(100, dimension, 5) },
      ];
      const questions = randomVectors(3, dimension, 99);
      const found = await query(database.url, async (sql) => {
        const backend = await PostgresBackend.open(sql, { passageMemory });
        assert.equal(backend.pgvector, true);
        for (const index of chat) {
          await backend.add(index, { chatId: "c", documentId: index.key, key: index.key });
        }
        // Another chat's chunks in the same table, nearer some questions.
        await backend.add(randomIndex("k2", 300, dimension, 4), {
          chatId: "o",
          documentId: "d",
          key: "k2",
        });
        const [column] = await sql`SELECT format_type(atttypid, atttypmod) AS type
          FROM pg_attribute
          WHERE attrelid = ${`rag_vectors_${dimension}`}::regclass AND attname = 'embedding'`;
        assert.equal(column!.type, `vector(${dimension})`);
        const ranked = [];
        for (const vector of questions) {
          const search = { text: "chunk 7 of k1", vector, limit: 20 };
          const [text, nearest] = await backend.search(["k1", "k3"], search);
          ranked.push({ text: text!, nearest: nearest! });
        }
        return ranked;
      });
      const places = chat.flatMap((index) =>
        index.vectors.map((_, ordinal) => `${index.key}-${ordinal}`)
      );
      const vectors = chat.flatMap((index) => index.vectors);
      found.forEach(({ text, nearest }, i) => {
        assert.deepEqual(
          nearest.map((chunk) => `${chunk.key}-${chunk.ordinal}`),
          nearestOf(vectors, questions[i]!, 20).map((place) => places[place]),
        );
        assert.deepEqual(
          { key: text[0]?.key, text: text[0]?.text, pages: text[0]?.pageNumbers },
          { key: "k1", text: "chunk 7 of k1", pages: [1] },
        );
      });
    },
  );
}

test(
  "Postgres searches an index that another process removed and stored again since its last search",
  { vector: false },
  async (database) => {
    const dimension = 8;
    const indexes = [randomIndex("k1", 40, dimension, 1), randomIndex("k2", 40, dimension, 2)];
    const [question] = randomVectors(1, dimension, 9);
    const found = await query(database.url, async (sql) => {
      // Two processes' backends: the first keeps one index's passages, and reads the other's.
      const [first, second] = [
        await PostgresBackend.open(sql, { passageMemory: 1 }),
        await PostgresBackend.open(sql),
      ];
      const link = (key: string) => ({ chatId: "c", documentId: key, key });
      for (const index of indexes) await first.add(index, link(index.key));
      // The same list of keys, as a chat asked again gives it.
      const keys = [...new Set([...(await first.links("c")).values()].map((info) => info.key))];
      const search = { text: "chunk 3", vector: question!, limit: 80 };
      const before = await first.search(keys, search);
      await second.unlink("c");
      for (const index of indexes) await second.add(index, link(index.key));
      await first.links("c");
      return { before, after: await first.search(keys, search) };
    });
    const places = (arms: typeof found.before) =>
      arms.map((arm) => arm.map((chunk) => `${chunk.key}-${chunk.ordinal}:${chunk.text}`));
    assert.equal(found.before[1]!.length, 80);
    assert.deepEqual(places(found.after), places(found.before));
  },
);

test(
  "Postgres keeps an index's postings with it: a search after a start reads them, or builds and keeps them",
  { vector: false },
  async (database) => {
    const dimension = 8;
    const [vector] = randomVectors(1, dimension, 3);
    await query(database.url, async (sql) => {
      const storing = await PostgresBackend.open(sql);
      await storing.add(randomIndex("k", 10, dimension, 1), {
        chatId: "c",
        documentId: "d",
        key: "k",
      });
      const postings = async () =>
        (await sql`SELECT count(*)::int AS count FROM rag_index_postings`)[0]!.count;
      assert.equal(await postings(), 1);
      // Postings of other texts, as if stored with the index: a new process's search reads them.
      const texts = Array.from({ length: 10 }, (_, i) => i === 5 ? "zebra" : `chunk ${i}`);
      const other = await TermPostings.build(texts, OWN_BM25);
      await sql`UPDATE rag_index_postings SET data = ${other.toBytes()}`;
      const search = { text: "zebra", vector: vector!, limit: 5 };
      const [read] = await (await PostgresBackend.open(sql)).search(["k"], search);
      assert.deepEqual(read!.map((chunk) => [chunk.ordinal, chunk.text]), [[5, "chunk 5 of k"]]);
      // None stored: built from the texts at the first search, and kept.
      await sql`DELETE FROM rag_index_postings`;
      const [built] = await (await PostgresBackend.open(sql)).search(["k"], {
        ...search,
        text: "chunk 7 of k",
      });
      assert.equal(built![0]!.ordinal, 7);
      assert.equal(await postings(), 1);
    });
  },
);

test(
  "Postgres keeps a chat's links until a process changes some, and reads them again then",
  { vector: false },
  async (database) => {
    const dimension = 8;
    await query(database.url, async (sql) => {
      const [first, second] = [await PostgresBackend.open(sql), await PostgresBackend.open(sql)];
      const documents = async () => [...(await first.links("c")).keys()].sort();
      await first.add(randomIndex("k1", 5, dimension, 1), {
        chatId: "c",
        documentId: "d1",
        key: "k1",
      });
      assert.deepEqual(await documents(), ["d1"]);
      // A row written behind svc's back changes no count: the links kept are given.
      await second.add(randomIndex("k2", 5, dimension, 2), {
        chatId: "o",
        documentId: "d2",
        key: "k2",
      });
      // Read at the count that link moved on to, and kept.
      await documents();
      await sql`INSERT INTO rag_links (chat_id, document_id, index_id)
        SELECT 'c', 'd2', id FROM rag_indexes WHERE key = 'k2'`;
      assert.deepEqual(await documents(), ["d1"]);
      // Another process's link counts: the chat's links are read again.
      await second.link({ chatId: "c", documentId: "d3", key: "k2" });
      assert.deepEqual(await documents(), ["d1", "d2", "d3"]);
      await second.unlink("c");
      assert.deepEqual(await documents(), []);
    });
  },
);

test(
  "Postgres without pgvector keeps vectors as bytes and ranks them exactly by cosine",
  { vector: false },
  async (database) => {
    const dimension = 8;
    const vectors = randomVectors(200, dimension, 5);
    const [question] = randomVectors(1, dimension, 77);
    const found = await query(database.url, async (sql) => {
      const backend = await PostgresBackend.open(sql);
      assert.equal(backend.pgvector, false);
      await backend.add(
        { ...randomIndex("k", 200, dimension, 5), vectors },
        { chatId: "c", documentId: "d", key: "k" },
      );
      await backend.add(randomIndex("other", 50, dimension, 6), {
        chatId: "o",
        documentId: "d",
        key: "other",
      });
      const [column] = await sql`SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute
        WHERE attrelid = 'rag_vectors_8'::regclass AND attname = 'embedding'`;
      assert.equal(column!.type, "bytea");
      const [, ranked] = await backend.search(["k"], { text: "", vector: question!, limit: 10 });
      return ranked!;
    });
    assert.deepEqual(found.map((chunk) => chunk.ordinal), nearestOf(vectors, question!, 10));
    assert.ok(found.every((chunk) => chunk.key === "k"));
  },
);

for (const vector of [true, false]) {
  test(
    `Postgres writes each vector exactly as given ${vector ? "with" : "without"} pgvector`,
    { vector },
    async (database) => {
      // More vectors than one message of the COPY holds, values of every magnitude and sign.
      const vectors = randomVectors(300, 16, 7).map((values, i) =>
        values.map((value, d) => value * 10 ** ((i + d) % 12 - 6))
      );
      vectors[5]!.fill(0);
      const stored = await query(database.url, async (sql) => {
        const backend = await PostgresBackend.open(sql);
        await backend.add(
          { ...randomIndex("k", 300, 16, 7), vectors },
          { chatId: "c", documentId: "d", key: "k" },
        );
        const rows = vector
          ? await sql<{ embedding: number[] }[]>`SELECT embedding::real[] AS embedding
            FROM rag_vectors_16 ORDER BY ordinal`
          : await sql<{ embedding: Uint8Array }[]>`SELECT embedding
            FROM rag_vectors_16 ORDER BY ordinal`;
        return rows.map(({ embedding }) =>
          Array.isArray(embedding)
            ? Float32Array.from(embedding)
            : new Float32Array(Uint8Array.from(embedding).buffer)
        );
      });
      assert.equal(stored.length, 300);
      stored.forEach((values, i) => assert.deepEqual(values, vectors[i], `vector ${i}`));
    },
  );
}

// PostgreSQL refuses a vector after the last was sent (a few) or while they go (many).
for (const [count, refusedAt] of [[3, 2], [20_000, 10]] as const) {
  test(
    `Postgres leaves nothing of an index whose vector ${refusedAt} of ${count} PostgreSQL refuses`,
    { vector: true },
    async (database) => {
      await query(database.url, async (sql) => {
        const backend = await PostgresBackend.open(sql);
        const refused = randomIndex("k", count, 512, 7);
        refused.vectors[refusedAt]![3] = Number.NaN;
        const add = backend.add(refused, { chatId: "c", documentId: "d", key: "k" });
        let timer: ReturnType<typeof setTimeout> | undefined;
        const deadline = new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error("The store never settled")), 30_000);
        });
        try {
          await assert.rejects(Promise.race([add, deadline]), /NaN not allowed in vector/);
        } finally {
          clearTimeout(timer);
        }
        assert.deepEqual(await counts(database.url), NOTHING);
        await backend.add(randomIndex("k", count, 512, 8), {
          chatId: "c",
          documentId: "d",
          key: "k",
        });
        assert.equal((await counts(database.url)).vectors, count);
      });
    },
  );
}

test(
  "Postgres uses SVC_POSTGRES_URL, else the API's database, and says when it has neither",
  { vector: false },
  async (database) => {
    await using root = await tmpLocalRoot();
    const guide = await copiedFixture(root.path, "guide.md");
    const previous = apiPostgresUrl();
    try {
      setApiPostgresUrl(undefined);
      await assert.rejects(
        async () => await new Postgres().retrieve([guide], "start", chatParams("x")),
        (error) =>
          error instanceof SvcError && error.status === 503 &&
          /has no database: set SVC_POSTGRES_URL/.test(error.message),
      );
      const [, missing] = Postgres.requirements;
      assert.equal(missing!.name, "SVC_POSTGRES_URL");

      setApiPostgresUrl(database.url);
      const sources = await new Postgres().retrieve([guide], "start", chatParams("api"));
      assert.ok(sources.length > 0);
      const [pkg, server] = Postgres.requirements;
      assert.equal(pkg!.name, "postgres");
      assert.equal(await pkg!.isAvailable(), true);
      assert.equal(server!.name, `PostgreSQL at "${database.url.replace("postgres@", "")}"`);
      assert.equal(await server!.isAvailable(), true);

      setApiPostgresUrl("postgresql://nobody@127.0.0.1:9/none");
      Deno.env.set("SVC_POSTGRES_URL", database.url);
      try {
        const again = await new Postgres().retrieve([guide], "start", chatParams("env"));
        assert.deepEqual(again.map((source) => source.content), sources.map((s) => s.content));
      } finally {
        Deno.env.delete("SVC_POSTGRES_URL");
      }
      const [, gone] = Postgres.requirements;
      assert.equal(await gone!.isAvailable(), false);
    } finally {
      setApiPostgresUrl(previous);
    }
    assert.equal((await counts(database.url)).links, 2);
  },
);

test(
  "Postgres names its database without the password, and refuses another kind of URL",
  { vector: false },
  async () => {
    await using root = await tmpLocalRoot();
    const guide = await copiedFixture(root.path, "guide.md");
    const hidden = new Postgres({
      url: "postgresql://ada:hunter2@127.0.0.1:9/svc?sslmode=disable",
    });
    await assert.rejects(
      async () => await hidden.retrieve([guide], "start", chatParams("x")),
      (error) => {
        assert.ok(error instanceof SvcError && error.status === 503);
        assert.ok(
          error.message.startsWith(
            `Cannot open the Postgres database "postgresql://127.0.0.1:9/svc": `,
          ),
          error.message,
        );
        assert.ok(!/hunter2|sslmode|ada:/.test(error.message), error.message);
        return true;
      },
    );
    await assert.rejects(
      async () =>
        await new Postgres({ url: "mysql://127.0.0.1/svc" }).retrieve(
          [guide],
          "x",
          chatParams("x"),
        ),
      /Cannot open the Postgres database "mysql:\/\/127\.0\.0\.1\/svc": it is not a postgresql:\/\/ URL/,
    );
  },
);

test(
  "Postgres refuses tables of another version of svc",
  { vector: false },
  async (database) => {
    await using root = await tmpLocalRoot();
    const guide = await copiedFixture(root.path, "guide.md");
    await new Postgres({ url: database.url }).delete(chatParams("none"));
    await closePostgres(database.url);
    await query(database.url, (sql) => sql`UPDATE rag_meta SET value = '99' WHERE name = 'schema'`);
    await assert.rejects(
      async () => await new Postgres({ url: database.url }).retrieve([guide], "x", chatParams("x")),
      /its rag_\* tables have schema version 99, and this svc knows 1/,
    );
  },
);

test(
  "Postgres refuses with 503 naming its database while the server is down, and serves again once it is back",
  { vector: false },
  async (database, cluster) => {
    await using root = await tmpLocalRoot();
    const guide = await copiedFixture(root.path, "guide.md");
    const storage = new Postgres({ url: database.url });
    await storage.store([guide], chatParams("guide"));
    const refusals = await cluster.whileDown(async () => [
      await storage.store([guide], chatParams("other")).then(() => undefined, (error) => error),
      await storage.delete(chatParams("guide")).then(() => undefined, (error) => error),
    ]);
    for (const refusal of refusals) {
      assert.ok(refusal instanceof SvcError, String(refusal));
      assert.equal(refusal.status, 503);
      assert.match(refusal.message, /^Cannot reach the Postgres database "postgresql:\/\/[^"]+": /);
    }
    await waitFor(
      "the storage to answer again",
      () => storage.retrieve([guide], "install", chatParams("guide")).then(() => true, () => false),
    );
  },
);
