/**
 * The full-text and vector arms over a store's indexes, ranked in memory: a
 * store hands {@linkcode IndexSearch} what it reads of its indexes, and asks
 * it for the chat's chunks, ranked.
 *
 * What search needs of an index (its postings, `lexical/term_postings.ts`,
 * and its vectors' 8-bit codes, `vectors/vector_codes.ts`) is read once and
 * kept, within a budget, and so are its passages (texts, pages, tokens and
 * vectors, `kept_passages.ts`) within another, so that a question reads
 * nothing from the store; an index never changes under its key, so nothing
 * kept goes stale. The full-text arm ranks the chat's chunks alone, with the
 * chat's own term statistics: what other chats and users stored changes
 * nothing of its ranking, and its cost grows with the chat, not the store.
 * The vector arm scans the codes for the best candidates (twice as many as
 * it gives), then ranks them exactly by their stored vectors, as
 * `vector_distance_cos` would (`memory_search.ts`).
 *
 * No store's own approximate index (libSQL's `libsql_vector_idx`, LanceDB's
 * IVF-PQ, pgvector's HNSW) ranks a chat: each searches the whole store and
 * cannot keep to a chat's documents first (a chat owning 10% of 10,000
 * vectors got a recall of 0.08 of its top 10 from `vector_top_k`), and
 * building one made inserts 100 times slower (libSQL) or took two minutes
 * per 100,000 vectors (LanceDB).
 * @module
 */
import type { NewIndex, SearchQuery, StoredChunk } from "../indexing/mod.ts";
import {
  keepPassages,
  keptOrRead,
  type KeptPassages,
  passageAt,
  type StoredPassage,
  vectorAt,
} from "./kept_passages.ts";
import {
  type MemoryIndex,
  memoryIndex,
  nearestExactly,
  type Place,
  searchMemory,
} from "./memory_search.ts";
import type { WordsKept } from "./proximity.ts";
import {
  DEFAULT_PASSAGE_MEMORY,
  DEFAULT_SEARCH_MEMORY,
  SearchCache,
  SearchPlans,
} from "./search_cache.ts";
import { type Bm25Flavour, FTS5, OWN_BM25, TermPostings } from "./lexical/term_postings.ts";

export type { StoredPassage } from "./kept_passages.ts";

/**
 * What a store keeps with an index in memory besides what search keeps: a
 * typed array of its own (its chunks' row ids), or nothing.
 */
export type IndexExtra = ArrayBufferView | undefined;

/** An index that a search asks for: the store's id of it, its key, and its name in the caches. */
export interface FoundIndex<Id> {
  id: Id;
  key: string;
  /**
   * What names the index in memory: the same for the same stored index only
   * (a store that reuses ids names the index with its time of creation too).
   */
  cacheKey: string;
}

/** An index's chunks as a store reads them for search. */
export interface ReadIndex<Id, Extra extends IndexExtra> {
  id: Id;
  /** Its chunks in the order of their ordinals, each with its vector when the store has them. */
  passages: readonly StoredPassage[];
  /** The postings stored with it ({@linkcode PreparedIndex.postings}), when asked for and kept. */
  postings?: Uint8Array;
  /** What the store keeps with it. */
  extra: Extra;
}

/** A chunk of the indexes searched, as a store is asked for its passage. */
export interface ChunkAt<Id, Extra extends IndexExtra> {
  /** The index's place among those searched. */
  index: number;
  id: Id;
  key: string;
  extra: Extra;
  /** The chunk's place in its index, and its ordinal. */
  chunk: number;
  ordinal: number;
}

/** How a store reads its indexes for {@linkcode IndexSearch}. */
export interface IndexReads<Id, Extra extends IndexExtra> {
  /**
   * The chunks of the indexes `ids` (each id once, at most
   * {@linkcode IndexSearchOptions.readAtOnce} of them), with their vectors of
   * `dimension` when the store has them, and, with `postings`, the postings
   * stored with each; one {@linkcode ReadIndex} per id, none of its chunks for
   * an index that is gone.
   */
  indexes(
    ids: readonly Id[],
    options: { dimension: number; postings: boolean },
  ): AsyncIterable<ReadIndex<Id, Extra>>;
  /**
   * The passages of chunks that search does not keep, with their vectors:
   * one per chunk, undefined for a chunk that is gone (its index removed
   * meanwhile). A store may change `extra` to what it found (a row moved).
   */
  passages(
    chunks: readonly ChunkAt<Id, Extra>[],
    dimension: number,
  ): Promise<(StoredPassage | undefined)[]>;
  /** Keeps postings that a first search built, for the store's next start; best effort. */
  keepPostings(built: readonly { id: Id; data: Uint8Array }[]): Promise<void>;
}

/** Options of {@linkcode IndexSearch}. */
export interface IndexSearchOptions<Id, Extra extends IndexExtra> {
  /** How the store reads its indexes. */
  reads: IndexReads<Id, Extra>;
  /**
   * How the full-text arm reads and weighs words: as SQLite FTS5's porter
   * tokenizer and `bm25()` (`"fts5"`, LibSQL's, which an FTS5 table ranked
   * once), or with svc's own words and stems (`"svc"`).
   */
  fullText: "fts5" | "svc";
  /**
   * The bytes of memory that search may keep of the indexes (postings and
   * vector codes, about 2 kB a chunk); what a chat needs beyond it is read
   * again at each search.
   * @default {DEFAULT_SEARCH_MEMORY}
   */
  searchMemory?: number;
  /**
   * The bytes of memory that search may keep of the passages themselves
   * (texts, pages, tokens and vectors, about 4.5 kB a chunk), so that a
   * question reads nothing from the store; those beyond it are read at each
   * question.
   * @default {DEFAULT_PASSAGE_MEMORY}
   */
  passageMemory?: number;
  /**
   * The most indexes read from the store at once, when a search first needs them.
   * @default {16}
   */
  readAtOnce?: number;
}

/**
 * An index about to be stored, ready for search, and its postings to store
 * with it; what it holds is given back when it is disposed unless it was
 * kept (its store failed, or had it already).
 */
export interface PreparedIndex extends Disposable {
  /** The bytes of its postings, for the first search after a start to read rather than build. */
  postings(): Uint8Array;
  /** Each chunk's number of terms. */
  readonly termCounts: Uint32Array;
  /** The number of terms of all chunks together. */
  readonly totalTerms: number;
  /** Keeps it for search under `cacheKey`, once stored: the chat's first question reads nothing. */
  keep(cacheKey: string): void;
}

/** What search keeps of an index. */
interface Entry<Extra extends IndexExtra> extends MemoryIndex {
  /** Each chunk's ordinal, by its place in the index. */
  ordinals: Uint32Array;
  /** The bytes its passages take when they are kept too. */
  passageBytes: number;
  extra: Extra;
}

/** What a search read of its indexes, kept for the next search of the same list of keys. */
interface Plan<Id, Extra extends IndexExtra> {
  state: unknown;
  dimension: number;
  found: FoundIndex<Id>[];
  entries: Entry<Extra>[];
  kept: (KeptPassages | undefined)[];
}

/** What {@linkcode IndexSearch.search} is told besides the query. */
export interface SearchOptions<Id> {
  /**
   * The indexes of the keys that the store holds, in the order to search
   * them; asked only when no plan of the same list of keys holds.
   * @default {each key names its index, for a store whose ids are its keys:
   * a key names an index's settings, its dimension with them}
   */
  find?(): Promise<FoundIndex<Id>[]>;
  /**
   * What the store's data is at now: a plan read at another state is read
   * again (a fresh object each time: read at every search).
   * @default {undefined}
   */
  state?: unknown;
}

/**
 * The full-text and vector arms over a store's indexes, in memory. A store
 * makes one, hands it each index it stores ({@linkcode IndexSearch.prepare})
 * and asks it for a chat's chunks ({@linkcode IndexSearch.search}); search
 * reads what it does not keep through the store's {@linkcode IndexReads}.
 */
export class IndexSearch<Id, Extra extends IndexExtra = undefined> {
  readonly #reads: IndexReads<Id, Extra>;
  readonly #flavour: Bm25Flavour;
  readonly #memory: SearchCache<Entry<Extra>>;
  // Kept apart, so that passages never push out what ranking needs.
  readonly #passages: SearchCache<KeptPassages>;
  // The last searches' plans by their lists of keys, while the caches keep and drop nothing.
  readonly #plans = new SearchPlans<Plan<Id, Extra>>();
  readonly #readAtOnce: number;

  constructor(options: IndexSearchOptions<Id, Extra>) {
    this.#reads = options.reads;
    this.#flavour = options.fullText === "fts5" ? FTS5 : OWN_BM25;
    const replan = () => this.#plans.clear();
    this.#memory = new SearchCache(options.searchMemory ?? DEFAULT_SEARCH_MEMORY, replan);
    this.#passages = new SearchCache(options.passageMemory ?? DEFAULT_PASSAGE_MEMORY, replan);
    this.#readAtOnce = options.readAtOnce ?? 16;
  }

  /**
   * What search keeps of an index about to be stored: its postings (of the
   * chunks' `texts` as the store keeps them) and its vectors' codes, with
   * what the store keeps with it.
   */
  async prepare(
    index: Pick<NewIndex, "chunks" | "vectors" | "dimension">,
    options: { extra: Extra; texts?: readonly string[] },
  ): Promise<PreparedIndex> {
    const texts = options.texts ?? index.chunks.map((chunk) => chunk.text);
    const passages = keepPassages(
      index.chunks.map((chunk, ordinal) => ({
        ordinal,
        text: texts[ordinal]!,
        pages: JSON.stringify(chunk.pageNumbers),
        numTokens: chunk.numTokens,
        vector: index.vectors[ordinal],
      })),
      index.dimension,
    );
    const entry = await this.#entry(passages, index.vectors, options.extra);
    let done = false;
    return {
      postings: () => entry.terms.toBytes(),
      termCounts: entry.terms.lengths,
      totalTerms: entry.terms.totalLength,
      keep: (cacheKey) => {
        if (done) return;
        done = true;
        if (passages.ordinals.length === 0) return entry.dropped?.();
        this.#memory.set(cacheKey, entry);
        this.#passages.set(cacheKey, passages);
      },
      [Symbol.dispose]: () => {
        if (done) return;
        done = true;
        entry.dropped?.();
      },
    };
  }

  /** Forgets the plans of the last searches: an index they name may have changed. */
  forget(): void {
    this.#plans.clear();
  }

  /**
   * The chunks of the indexes of `keys`, and only those: the full-text
   * arm's best `query.limit`, then the vector arm's, each with the words the
   * proximity ranking reads. A chunk of an index removed meanwhile (its last
   * chat deleted) is left out.
   */
  async search(
    keys: readonly string[],
    query: SearchQuery,
    options: SearchOptions<Id> = {},
  ): Promise<(StoredChunk & WordsKept)[][]> {
    const dimension = query.vector.length;
    const { found, entries, kept } = await this.#plan(keys, dimension, options);
    if (found.length === 0) return [[], []];
    query.signal?.throwIfAborted();
    const { text, candidates } = await searchMemory(entries, query);
    query.signal?.throwIfAborted();
    const at = ({ index, chunk }: Place): ChunkAt<Id, Extra> => ({
      index,
      id: found[index]!.id,
      key: found[index]!.key,
      extra: entries[index]!.extra,
      chunk,
      ordinal: entries[index]!.ordinals[chunk]!,
    });
    // The passages kept in memory are taken from there; the others are read, each once.
    const unkept = new Map<string, Place>();
    for (const place of [...text, ...candidates]) {
      if (!kept[place.index]) unkept.set(placeName(place), place);
    }
    const read = new Map<string, StoredPassage>();
    if (unkept.size > 0) {
      const passages = await this.#reads.passages([...unkept.values()].map(at), dimension);
      [...unkept.keys()].forEach((name, i) => passages[i] && read.set(name, passages[i]));
    }
    const nearest = nearestExactly(
      candidates,
      (place) =>
        kept[place.index]
          ? vectorAt(kept[place.index]!, place.chunk)
          : read.get(placeName(place))?.vector,
      query.vector,
      {
        limit: query.limit,
        tie: (a, b) => a.index - b.index || a.chunk - b.chunk,
      },
    );
    const chunkAt = (place: Place): (StoredChunk & WordsKept)[] => {
      const key = found[place.index]!.key;
      const words = entries[place.index]!.terms.wordsOf(place.chunk);
      const passage = kept[place.index] && passageAt(kept[place.index]!, place.chunk);
      if (passage) return [{ key, ...passage, words }];
      const row = read.get(placeName(place));
      if (!row) return [];
      const { ordinal, text, pages, numTokens } = row;
      return [{ key, ordinal, text, pageNumbers: JSON.parse(pages), numTokens, words }];
    };
    return [text.flatMap(chunkAt), nearest.flatMap(chunkAt)];
  }

  /**
   * What a search of `keys` reads: their indexes, what search keeps of each
   * and the passages kept. An earlier search's of the same list of keys (a
   * chat asked again gives the same) at the same state, while the caches kept
   * and dropped nothing: its entries are then only marked as used, as reading
   * them would mark them.
   */
  async #plan(
    keys: readonly string[],
    dimension: number,
    options: SearchOptions<Id>,
  ): Promise<Plan<Id, Extra>> {
    const planned = this.#plans.get(keys);
    if (planned?.dimension === dimension && Object.is(planned.state, options.state)) {
      for (const { cacheKey } of planned.found) {
        this.#memory.get(cacheKey);
        this.#passages.get(cacheKey);
      }
      return planned;
    }
    // Ties go to the index first by key, then to the chunk first in it: the order in which a
    // store happened to write the indexes (documents read side by side) never decides a rank.
    const found =
      (options.find
        ? await options.find()
        : keys.map((key) => ({ id: key as Id, key, cacheKey: key })))
        .sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
    const entries = await this.#entries(found, dimension);
    const kept = await keptOrRead(
      this.#passages,
      found,
      entries.reduce((sum, entry) => sum + entry.passageBytes, 0),
      (missing) => this.#readPassages(missing, dimension),
    );
    const plan = { state: options.state, dimension, found, entries, kept };
    return found.length === 0 ? plan : this.#plans.keep(keys, plan);
  }

  /**
   * What search keeps of each index found, from memory, the indexes not
   * there yet read from the store (and kept, with their passages, within
   * the budgets); postings built here are handed to the store to keep.
   */
  async #entries(found: readonly FoundIndex<Id>[], dimension: number): Promise<Entry<Extra>[]> {
    const held = new Map<Id, Entry<Extra>>();
    const missing: Id[] = [];
    for (const { id, cacheKey } of found) {
      const entry = this.#memory.get(cacheKey);
      if (entry) held.set(id, entry);
      else if (!missing.includes(id)) missing.push(id);
    }
    const cacheKeyOf = new Map(found.map(({ id, cacheKey }) => [id, cacheKey]));
    const built: { id: Id; data: Uint8Array }[] = [];
    for await (const read of this.#read(missing, { dimension, postings: true })) {
      const passages = keepPassages(read.passages, dimension);
      const vectors = read.passages.every((passage) => passage.vector)
        ? read.passages.map((passage) => passage.vector!)
        : [];
      const terms = this.#storedTerms(read.postings, read.passages.length);
      const entry = await this.#entry(passages, vectors, read.extra, terms);
      held.set(read.id, entry);
      if (passages.ordinals.length === 0) continue;
      this.#memory.set(cacheKeyOf.get(read.id)!, entry);
      this.#passages.set(cacheKeyOf.get(read.id)!, passages);
      if (!terms) built.push({ id: read.id, data: entry.terms.toBytes() });
    }
    // A store that refuses them (a full disk) has them built again at its next start.
    if (built.length > 0) await this.#reads.keepPostings(built).catch(() => {});
    return found.map(({ id }) => held.get(id)!);
  }

  /** The passages of the indexes `missing`, as `keptOrRead()` reads them. */
  async *#readPassages(
    missing: Id[],
    dimension: number,
  ): AsyncGenerator<{ id: Id; passages: KeptPassages }> {
    for await (const read of this.#read(missing, { dimension, postings: false })) {
      yield { id: read.id, passages: keepPassages(read.passages, dimension) };
    }
  }

  /** The indexes `ids` as the store reads them, some at a time. */
  async *#read(
    ids: readonly Id[],
    options: { dimension: number; postings: boolean },
  ): AsyncGenerator<ReadIndex<Id, Extra>> {
    for (let start = 0; start < ids.length; start += this.#readAtOnce) {
      yield* this.#reads.indexes(ids.slice(start, start + this.#readAtOnce), options);
    }
  }

  /** Postings stored with an index of `size` chunks, when they can be read as such. */
  #storedTerms(bytes: Uint8Array | undefined, size: number): TermPostings | undefined {
    if (bytes === undefined) return undefined;
    try {
      const terms = TermPostings.fromBytes(bytes, this.#flavour);
      return terms.size === size ? terms : undefined;
    } catch {
      // Bytes of another format: built again from the texts.
      return undefined;
    }
  }

  /** What search keeps of the index of `passages`, its postings built unless given. */
  async #entry(
    passages: KeptPassages,
    vectors: readonly Float32Array[],
    extra: Extra,
    terms?: TermPostings,
  ): Promise<Entry<Extra>> {
    return {
      ...await memoryIndex({
        texts: passages.texts,
        vectors,
        dimension: passages.dimension,
        flavour: this.#flavour,
        bytes: passages.ordinals.byteLength + (extra?.byteLength ?? 0),
        terms,
      }),
      ordinals: passages.ordinals,
      passageBytes: passages.bytes,
      extra,
    };
  }
}

/** A chunk's place among those searched, as a name. */
function placeName({ index, chunk }: Place): string {
  return `${index}/${chunk}`;
}
