/**
 * The indexes of the Chroma source storage on a Chroma server: a collection
 * per index (`svc-<key>`, cosine space) holding its chunks with their
 * vectors, the index's settings in the collection's metadata, and one
 * collection `svc-links` whose records link a chat's documents to indexes
 * (one per chat and document, named by `linkName()`).
 * Everything lives on the server, so that svc processes sharing it (with
 * other local roots) never delete an index another one still links to.
 *
 * Chroma finds the vector arm's nearest chunks of each collection; the
 * full-text arm is svc's own BM25 over the chat's collections' documents
 * (`retrieval/remote_search.ts` says why, and merges the two).
 *
 * Chroma has no transactions: the writes of one process go one at a time
 * (`SerialBackend`, which also keeps the links), and a link is checked again
 * after it is written, so that a concurrent
 * deletion by another process leaves at worst a link to nothing, which
 * {@linkcode ChromaBackend.links} ignores (the document is then stored again).
 * @module
 */
import type { ChromaClient, Collection, Metadata } from "npm:chromadb@3.5.0";
import { forEachAtOnce } from "../core/at_once.ts";
import { RemoteSearch } from "../retrieval/mod.ts";
import {
  batches,
  type IndexInfo,
  indexInfoOf,
  type IndexLink,
  indexRecord,
  linkName,
  type NewIndex,
  type SearchQuery,
  SerialBackend,
  type StoredChunk,
  storedChunk,
  type StoredLink,
} from "../indexing/mod.ts";

const LINKS = "svc-links";
// Records per write: a request of some megabytes of JSON at 512 dimensions.
const BATCH_ROWS = 256;
// Requests to the server at once during a search.
const CONCURRENCY = 8;
// Records read in one request.
const PAGE = 1000;
// A build that crashed leaves a collection still "building"; one this old is
// removed when the server is first used.
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

/** The indexes on a Chroma server. */
export class ChromaBackend extends SerialBackend {
  readonly #client: ChromaClient;
  readonly #links: Collection;
  readonly #collections = new Map<string, Collection>();
  readonly #search = new RemoteSearch();

  private constructor(client: ChromaClient, links: Collection) {
    super();
    this.#client = client;
    this.#links = links;
  }

  /** Connects, creates the links collection, and removes abandoned builds. */
  static async open(client: ChromaClient): Promise<ChromaBackend> {
    const links = await client.getOrCreateCollection({ name: LINKS, embeddingFunction: null });
    const backend = new ChromaBackend(client, links);
    for (let offset = 0;; offset += 100) {
      const page = await client.listCollections({ limit: 100, offset });
      for (const collection of page) {
        const metadata = collection.metadata ?? {};
        if (
          collection.name.startsWith("svc-") && metadata.svc_state === "building" &&
          Number(metadata.created_at) < Date.now() - ABANDONED_AFTER_MS
        ) await client.deleteCollection({ name: collection.name }).catch(() => {});
      }
      if (page.length < 100) break;
    }
    return backend;
  }

  async add(index: NewIndex, link: IndexLink): Promise<void> {
    await this.exclusive(() =>
      this.storeAll([{ index, link }], {
        write: () => this.#write(index),
        remove: async () => {
          this.#search.delete(index.key);
          await this.#client.deleteCollection({ name: collectionName(index.key) });
        },
      })
    );
  }

  /** Writes an index's collection, complete once its state says so. */
  async #write(index: NewIndex): Promise<void> {
    const info: Metadata = { ...indexRecord(index), created_at: Date.now() };
    const collection = await this.#client.getOrCreateCollection({
      name: collectionName(index.key),
      embeddingFunction: null,
      configuration: { hnsw: { space: "cosine" } },
      metadata: { ...info, svc_state: "building" },
    });
    // Records are named by ordinal: a build another process runs at the
    // same time writes the very same records.
    for await (const { start, items: chunks } of batches(index.chunks, BATCH_ROWS)) {
      await collection.upsert({
        ids: chunks.map((_, i) => String(start + i)),
        embeddings: chunks.map((_, i) => Array.from(index.vectors[start + i]!)),
        documents: chunks.map((chunk) => chunk.text),
        metadatas: chunks.map((chunk) => ({
          page_numbers: JSON.stringify(chunk.pageNumbers),
          num_tokens: chunk.numTokens,
        })),
      });
    }
    await collection.modify({ metadata: { ...info, svc_state: "complete" } });
    this.#search.add(index.key, index.chunks.map((chunk) => chunk.text));
  }

  async search(keys: readonly string[], query: SearchQuery): Promise<StoredChunk[][]> {
    const collections = new Map<string, Collection>();
    await forEachAtOnce(keys, CONCURRENCY, async (key) => {
      const collection = await this.#collection(key);
      if (collection) collections.set(key, collection);
    });
    return await this.#search.search([...collections.keys()], query, {
      texts: (key) => this.#texts(collections.get(key)!),
      chunks: async (key, ordinals) => {
        const records = await collections.get(key)!.get({
          ids: ordinals.map(String),
          include: ["documents", "metadatas"],
        });
        return records.ids.map((id, i) =>
          chunkOf(key, id, records.documents[i], records.metadatas[i])
        );
      },
      nearest: async (key, vector, limit) => {
        const result = await collections.get(key)!.query({
          queryEmbeddings: [Array.from(vector)],
          nResults: limit,
          include: ["documents", "metadatas", "distances"],
        });
        return result.ids[0]!.map((id, i) => ({
          ...chunkOf(key, id, result.documents[0]![i], result.metadatas[0]![i]),
          distance: result.distances[0]![i] ?? Infinity,
        }));
      },
    });
  }

  async chunks(key: string): Promise<StoredChunk[]> {
    const collection = await this.#collection(key);
    if (!collection) return [];
    const chunks: StoredChunk[] = [];
    for await (const page of pages(collection, ["documents", "metadatas"])) {
      page.ids.forEach((id, i) =>
        chunks.push(chunkOf(key, id, page.documents[i], page.metadatas[i]))
      );
    }
    return chunks.sort((a, b) => a.ordinal - b.ordinal);
  }

  protected override async infos(keys: readonly string[]): Promise<Map<string, IndexInfo>> {
    const infos = new Map<string, IndexInfo>();
    await forEachAtOnce(keys, CONCURRENCY, async (key) => {
      const info = await this.#info(key);
      if (info) infos.set(key, info);
    });
    return infos;
  }

  protected override async chatLinks(chatId: string): Promise<StoredLink[]> {
    const { metadatas } = await this.#links.get({ where: { chat_id: chatId } });
    return metadatas.map((metadata) => ({
      documentId: String(metadata?.document_id),
      key: String(metadata?.key),
    }));
  }

  protected override async linkedKeys(links: readonly IndexLink[]): Promise<Map<string, string>> {
    const { ids, metadatas } = await this.#links.get({ ids: links.map(linkName) });
    return new Map(ids.map((id, i) => [id, String(metadatas[i]?.key)]));
  }

  protected override async writeLinks(links: readonly IndexLink[]): Promise<void> {
    await this.#links.upsert({
      ids: links.map(linkName),
      // Chroma needs a vector for every record; links are only ever found by metadata.
      embeddings: links.map(() => [0]),
      metadatas: links.map((link) => ({
        chat_id: link.chatId,
        document_id: link.documentId,
        key: link.key,
      })),
    });
  }

  protected override async deleteLinks(chatId: string): Promise<void> {
    await this.#links.delete({ where: { chat_id: chatId } });
  }

  protected override async removeOrphans(keys: Iterable<string>): Promise<void> {
    for (const key of keys) await this.#removeIfOrphan(key);
  }

  /** Removed meanwhile by another process, which saw no link to it yet: the link goes too. */
  protected override async stillThere(link: IndexLink): Promise<boolean> {
    if (await this.#info(link.key)) return true;
    await this.#links.delete({ ids: [linkName(link)] });
    return false;
  }

  async #removeIfOrphan(key: string): Promise<void> {
    const linked = await this.#links.get({ where: { key }, limit: 1, include: [] });
    if (linked.ids.length > 0) return;
    this.#collections.delete(key);
    this.#search.delete(key);
    await this.#client.deleteCollection({ name: collectionName(key) }).catch((error) => {
      if ((error as Error).name !== "ChromaNotFoundError") throw error;
    });
  }

  /** A complete index's settings, asked of the server; `undefined` when there is none. */
  async #info(key: string): Promise<IndexInfo | undefined> {
    let collection: Collection;
    try {
      collection = await this.#client.getCollection({ name: collectionName(key) });
    } catch (error) {
      if ((error as Error).name === "ChromaNotFoundError") return undefined;
      throw error;
    }
    const metadata = collection.metadata ?? {};
    if (metadata.svc_state !== "complete") return undefined;
    this.#collections.set(key, collection);
    return indexInfoOf({ ...metadata, key });
  }

  /** A complete index's collection, known or asked of the server. */
  async #collection(key: string): Promise<Collection | undefined> {
    if (!this.#collections.has(key)) await this.#info(key);
    return this.#collections.get(key);
  }

  /** The texts of a collection's chunks, in the order of their ordinals. */
  async #texts(collection: Collection): Promise<string[]> {
    const texts: string[] = [];
    for await (const page of pages(collection, ["documents"])) {
      page.ids.forEach((id, i) => texts[Number(id)] = page.documents[i] ?? "");
    }
    return Array.from(texts, (text) => text ?? "");
  }
}

/** The collection of an index: 60 characters, within the 63 Chroma allows. */
function collectionName(key: string): string {
  return `svc-${key.slice(0, 56)}`;
}

/** A collection's records, with what `include` names, a page at a time. */
async function* pages(collection: Collection, include: ("documents" | "metadatas")[]) {
  for (let offset = 0;; offset += PAGE) {
    const page = await collection.get({ limit: PAGE, offset, include });
    yield page;
    if (page.ids.length < PAGE) return;
  }
}

function chunkOf(
  key: string,
  id: string,
  text: string | null | undefined,
  metadata: Metadata | null | undefined,
): StoredChunk {
  return storedChunk(key, {
    ordinal: id,
    text: text ?? "",
    page_numbers: String(metadata?.page_numbers ?? "[]"),
    num_tokens: metadata?.num_tokens ?? 0,
  });
}
