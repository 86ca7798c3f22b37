import assert from "node:assert/strict";
import type {
  IndexInfo,
  IndexLink,
  NewIndex,
  StoredChunk,
} from "../../components/indexing/backend.ts";
import {
  linkName,
  SerialBackend,
  type StoredLink,
} from "../../components/indexing/serial_backend.ts";

/** A store in memory: indexes by key, links by chat and document. */
class MemoryBackend extends SerialBackend {
  readonly indexes = new Map<string, IndexInfo>();
  readonly stored = new Map<string, StoredLink & { chatId: string }>();
  /** Keys another process removes right after a link to them is written. */
  readonly vanishing = new Set<string>();
  /** The links of each write of links. */
  readonly writes: string[][] = [];

  /** The keys of each write of indexes, and of each removal. */
  readonly written: string[][] = [];
  readonly removed: string[][] = [];
  /** Keys whose write fails. */
  readonly failing = new Set<string>();

  async add(index: NewIndex, link: IndexLink): Promise<void> {
    await this.exclusive(() => this.storeAll([{ index, link }], this.#store));
  }
  /** Stores indexes added together, as `add()` does one. */
  addAll(added: { index: NewIndex; link: IndexLink }[]): Promise<unknown> {
    return this.exclusive(() => this.storeAll(added, this.#store));
  }
  readonly #store = {
    write: (fresh: { index: NewIndex }[]) => {
      this.written.push(fresh.map(({ index }) => index.key));
      if (fresh.some(({ index }) => this.failing.has(index.key))) {
        return Promise.reject(new Error("the disk is full"));
      }
      for (const { index } of fresh) this.indexes.set(index.key, index);
      return Promise.resolve();
    },
    remove: (fresh: { index: NewIndex }[]) => {
      this.removed.push(fresh.map(({ index }) => index.key));
      for (const { index } of fresh) this.indexes.delete(index.key);
      return Promise.resolve();
    },
  };
  chunks(): Promise<StoredChunk[]> {
    return Promise.resolve([]);
  }
  search(): Promise<StoredChunk[][]> {
    return Promise.resolve([]);
  }
  protected infos(keys: readonly string[]): Promise<Map<string, IndexInfo>> {
    const found = keys.filter((key) => this.indexes.has(key));
    return Promise.resolve(new Map(found.map((key) => [key, this.indexes.get(key)!])));
  }
  protected chatLinks(chatId: string): Promise<StoredLink[]> {
    return Promise.resolve([...this.stored.values()].filter((link) => link.chatId === chatId));
  }
  protected linkedKeys(links: readonly IndexLink[]): Promise<Map<string, string>> {
    return Promise.resolve(
      new Map(links.flatMap((link) => {
        const key = this.stored.get(linkName(link))?.key;
        return key === undefined ? [] : [[linkName(link), key]];
      })),
    );
  }
  protected writeLinks(links: readonly IndexLink[]): Promise<void> {
    this.writes.push(links.map((link) => `${link.documentId}:${link.key}`));
    for (const link of links) {
      this.stored.set(linkName(link), link);
      if (this.vanishing.has(link.key)) this.indexes.delete(link.key);
    }
    return Promise.resolve();
  }
  protected deleteLinks(chatId: string): Promise<void> {
    for (const [id, link] of this.stored) if (link.chatId === chatId) this.stored.delete(id);
    return Promise.resolve();
  }
  protected removeOrphans(keys: Iterable<string>): Promise<void> {
    const linked = new Set([...this.stored.values()].map((link) => link.key));
    for (const key of keys) if (!linked.has(key)) this.indexes.delete(key);
    return Promise.resolve();
  }
  protected override stillThere(link: IndexLink): Promise<boolean> {
    if (this.indexes.has(link.key)) return Promise.resolve(true);
    this.stored.delete(linkName(link));
    return Promise.resolve(false);
  }
}

function index(key: string): NewIndex {
  return {
    key,
    contentHash: key,
    chunkSize: 500,
    chunkOverlap: 250,
    embedder: "svc/hash-v1-512",
    dimension: 512,
    chunks: [],
    vectors: [],
  };
}

Deno.test("SerialBackend links only to a stored index, and keeps one link per chat and document", async () => {
  const backend = new MemoryBackend();
  assert.equal(await backend.link({ chatId: "c1", documentId: "d", key: "a" }), false);
  await backend.add(index("a"), { chatId: "c1", documentId: "d", key: "a" });
  assert.equal(await backend.link({ chatId: "c2", documentId: "d", key: "a" }), true);
  assert.deepEqual([...(await backend.links("c1")).keys()], ["d"]);
  assert.equal((await backend.links("c2")).get("d")?.key, "a");
});

Deno.test("SerialBackend removes the index a link replaced or a deleted chat held, once no chat links to it", async () => {
  const backend = new MemoryBackend();
  await backend.add(index("a"), { chatId: "c1", documentId: "d", key: "a" });
  await backend.link({ chatId: "c2", documentId: "d", key: "a" });
  await backend.add(index("b"), { chatId: "c1", documentId: "d", key: "b" });
  assert.deepEqual([...backend.indexes.keys()], ["a", "b"], "c2 still links to a");
  await backend.unlink("c2");
  assert.deepEqual([...backend.indexes.keys()], ["b"]);
  await backend.unlink("c1");
  assert.deepEqual([...backend.indexes.keys()], []);
  assert.deepEqual(await backend.links("c1"), new Map());
});

Deno.test("SerialBackend takes a link back when its index is gone once it is written", async () => {
  const backend = new MemoryBackend();
  await backend.add(index("a"), { chatId: "c1", documentId: "d", key: "a" });
  backend.vanishing.add("a");
  assert.equal(await backend.link({ chatId: "c2", documentId: "d", key: "a" }), false);
  assert.deepEqual(await backend.links("c2"), new Map());
});

Deno.test("SerialBackend stores indexes added together once each, links them in one write, and relinks", async () => {
  const backend = new MemoryBackend();
  await backend.add(index("old"), { chatId: "c", documentId: "d1", key: "old" });
  await backend.add(index("kept"), { chatId: "other", documentId: "d", key: "kept" });
  backend.writes.length = 0;
  await backend.addAll([
    { index: index("a"), link: { chatId: "c", documentId: "d1", key: "a" } },
    { index: index("b"), link: { chatId: "c", documentId: "d2", key: "b" } },
    { index: index("c"), link: { chatId: "c", documentId: "d3", key: "c" } },
    { index: index("c"), link: { chatId: "c", documentId: "d2", key: "c" } },
    { index: index("kept"), link: { chatId: "c", documentId: "d4", key: "kept" } },
  ]);
  assert.deepEqual(backend.written.at(-1), ["a", "b", "c"], "kept, stored before, is only linked");
  assert.deepEqual(backend.writes, [["d4:kept"], ["d2:b", "d3:c"], ["d1:a"], ["d2:c"]]);
  const links = await backend.links("c");
  assert.deepEqual([...links].map(([document, info]) => `${document}:${info.key}`).sort(), [
    "d1:a",
    "d2:c",
    "d3:c",
    "d4:kept",
  ]);
  assert.ok(!backend.indexes.has("old"), "the index d1 linked to before went with its last link");
  assert.ok(!backend.indexes.has("b"), "so did the one d2 was linked to first");
});

Deno.test("SerialBackend takes back the indexes of a store that fails, or whose index went as it was linked", async () => {
  const backend = new MemoryBackend();
  backend.failing.add("a");
  await assert.rejects(
    backend.addAll([
      { index: index("a"), link: { chatId: "c", documentId: "d1", key: "a" } },
      { index: index("b"), link: { chatId: "c", documentId: "d2", key: "b" } },
    ]),
    /the disk is full/,
  );
  assert.deepEqual(backend.removed, [["a", "b"]]);
  assert.deepEqual(await backend.links("c"), new Map());
  backend.vanishing.add("v");
  await assert.rejects(
    backend.add(index("v"), { chatId: "c", documentId: "d", key: "v" }),
    /the index was removed as it was stored/,
  );
  assert.deepEqual(backend.removed.at(-1), ["v"]);
  assert.deepEqual(await backend.links("c"), new Map());
});

Deno.test("SerialBackend runs its writes one at a time, in the order they were asked", async () => {
  const backend = new MemoryBackend();
  const order: string[] = [];
  const slow = backend["exclusive"](async () => {
    await new Promise((resolve) => setTimeout(resolve, 10));
    order.push("first");
  });
  const fast = backend["exclusive"](() => Promise.resolve(void order.push("second")));
  await Promise.all([slow, fast]);
  assert.deepEqual(order, ["first", "second"]);
});
