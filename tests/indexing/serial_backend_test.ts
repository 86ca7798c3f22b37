import assert from "node:assert/strict";
import type {
  IndexInfo,
  IndexLink,
  NewIndex,
  StoredChunk,
} from "../../components/indexing/backend.ts";
import { SerialBackend, type StoredLink } from "../../components/indexing/serial_backend.ts";

/** A store in memory: indexes by key, links by chat and document. */
class MemoryBackend extends SerialBackend {
  readonly indexes = new Map<string, IndexInfo>();
  readonly stored = new Map<string, StoredLink & { chatId: string }>();
  /** Keys another process removes right after a link to them is written. */
  readonly vanishing = new Set<string>();

  add(index: NewIndex, link: IndexLink): Promise<void> {
    return this.exclusive(async () => {
      this.indexes.set(index.key, index);
      await this.linkHeld(link);
    });
  }
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
  protected linkedKey(link: IndexLink): Promise<string | undefined> {
    return Promise.resolve(this.stored.get(`${link.chatId}/${link.documentId}`)?.key);
  }
  protected writeLink(link: IndexLink): Promise<void> {
    this.stored.set(`${link.chatId}/${link.documentId}`, link);
    if (this.vanishing.has(link.key)) this.indexes.delete(link.key);
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
    this.stored.delete(`${link.chatId}/${link.documentId}`);
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
