/**
 * Embeddings from any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM,
 * text-embeddings-inference) through the `openai` SDK.
 * @module
 */
import type OpenAI from "npm:openai@7.57.0";
import { excerpt, quote, SvcError } from "../core/errors.ts";
import { envVar } from "../core/requirements.ts";
import { importPackage } from "../packages.ts";
import { redactUrl, redactUrls } from "../core/redact_url.ts";
import { secrets } from "../core/secrets.ts";
import { openAiModels, serves } from "../served_models.ts";

/** How many of the models a server serves a message lists. */
const LISTED = 10;
import type { Embedder, EmbedOptions } from "./embedder.ts";

/** Options of {@linkcode OpenAIEmbedder}. */
export interface OpenAIEmbedderOptions {
  /** The model, as the endpoint names it: `text-embedding-3-small`, `nomic-embed-text`. */
  model: string;
  /**
   * The length of the model's vectors; for OpenAI's own models it may be left
   * out, or set shorter than theirs to ask for shortened vectors.
   */
  dimension?: number;
  /**
   * The API key.
   * @default {Deno.env.get("OPENAI_API_KEY")}
   */
  apiKey?: string;
  /**
   * The endpoint's base URL, ending in `/v1`.
   * @default {Deno.env.get("OPENAI_BASE_URL") ?? "https://api.openai.com/v1"}
   */
  baseURL?: string;
  /**
   * Texts per request.
   * @default {256}
   */
  batchSize?: number;
  /**
   * How often a request that failed with 429, a 5xx status or a lost
   * connection is tried again.
   * @default {4}
   */
  retries?: number;
  /**
   * The wait before the first retry, in milliseconds; it doubles with every
   * retry (up to 30 s), and a `retry-after` header of the answer wins.
   * @default {500}
   */
  backoff?: number;
  /**
   * How long one request may take, in milliseconds.
   * @default {60000}
   */
  timeout?: number;
}

/** The dimensions of OpenAI's own embedding models. */
const KNOWN_DIMENSIONS: Readonly<Record<string, number>> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
};

/**
 * Embeds texts with a model behind an OpenAI-compatible `/embeddings`
 * endpoint, `batchSize` texts per request, retrying 429 and 5xx answers with
 * exponential backoff. Its `id` is `openai/<model>`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OpenAIEmbedder } from "./openai.ts";
 * const embedder = new OpenAIEmbedder({ model: "text-embedding-3-small", apiKey: "sk-..." });
 * assert(embedder.id === "openai/text-embedding-3-small" && embedder.dimension === 1536);
 * ```
 *
 * @throws {SvcError} 500 when the dimension of the model is not known and not given
 */
export class OpenAIEmbedder implements Embedder {
  readonly id: string;
  readonly dimension: number;
  readonly description: string;
  readonly #clientOptions: ConstructorParameters<typeof OpenAI>[0];
  readonly #apiKey: string;
  #connection?: Promise<{ sdk: typeof OpenAI; client: OpenAI }>;
  readonly #model: string;
  /** The base URL as messages show it. */
  readonly #endpoint: string;
  /** The base URL as configured, whose secrets messages must not show. */
  readonly #baseURL: string;
  readonly #sendDimensions: boolean;
  readonly #batchSize: number;
  readonly #retries: number;
  readonly #backoff: number;

  constructor(options: OpenAIEmbedderOptions) {
    const dimension = options.dimension ?? KNOWN_DIMENSIONS[options.model];
    if (dimension === undefined) {
      throw new SvcError(
        `The dimension of the embedding model ${quote(options.model)} is not known: ` +
          `set SVC_EMBEDDING_DIMENSION to the length of its vectors`,
      );
    }
    this.id = `openai/${options.model}`;
    this.dimension = dimension;
    this.#model = options.model;
    // Only OpenAI's own models are known to shorten their vectors on request;
    // other servers may refuse the parameter.
    const known = KNOWN_DIMENSIONS[options.model];
    this.#sendDimensions = known !== undefined && dimension !== known;
    this.#batchSize = options.batchSize ?? 256;
    this.#retries = options.retries ?? 4;
    this.#backoff = options.backoff ?? 500;
    const baseURL = options.baseURL ?? envVar("OPENAI_BASE_URL") ?? "https://api.openai.com/v1";
    // A local server (Ollama, vLLM) takes any key; the SDK insists on one.
    this.#apiKey = options.apiKey ?? envVar("OPENAI_API_KEY") ?? "none";
    this.#clientOptions = {
      apiKey: this.#apiKey,
      baseURL,
      timeout: options.timeout ?? 60_000,
      // The retries are ours, so that the errors name the provider and status.
      maxRetries: 0,
    };
    this.#baseURL = baseURL;
    secrets.addUrl(baseURL);
    secrets.add(options.apiKey ?? envVar("OPENAI_API_KEY"));
    this.#endpoint = redactUrl(baseURL);
    this.description = `semantic, from the OpenAI-compatible endpoint ${this.#endpoint}`;
  }

  async problem(): Promise<string | undefined> {
    const served = await openAiModels(this.#baseURL, this.#apiKey);
    if (served === undefined || serves(served, this.#model)) return undefined;
    const listed = served.length > LISTED
      ? `${served.slice(0, LISTED).map(quote).join(", ")} and ${served.length - LISTED} more`
      : served.map(quote).join(", ") || "none";
    return `The embedding model ${quote(this.#model)} (SVC_EMBEDDING_MODEL) is not served by ` +
      `the OpenAI-compatible endpoint ${this.#endpoint}; it serves ${listed}`;
  }

  /** The SDK and its client, made on the first call: the SDK loads only when embeddings are made. */
  #connect(): Promise<{ sdk: typeof OpenAI; client: OpenAI }> {
    this.#connection ??= importPackage<{ default: typeof OpenAI }>("openai").then(
      ({ default: sdk }) => ({ sdk, client: new sdk(this.#clientOptions) }),
    );
    return this.#connection;
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.#batchSize) {
      const batch = texts.slice(start, start + this.#batchSize);
      vectors.push(...await this.#embedBatch(batch, options.signal));
    }
    return vectors;
  }

  async #embedBatch(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const { sdk, client } = await this.#connect();
    for (let attempt = 0;; attempt++) {
      signal?.throwIfAborted();
      try {
        // Left unset, the SDK asks for base64 and decodes it into numbers.
        const response = await client.embeddings.create({
          model: this.#model,
          input: texts,
          ...(this.#sendDimensions ? { dimensions: this.dimension } : {}),
        }, { signal });
        return this.#vectorsOf(response, texts.length);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (
          !(error instanceof sdk.APIError) || !retryable(sdk, error) || attempt >= this.#retries
        ) {
          throw this.#failure(sdk, error);
        }
        await sleep(this.#delay(attempt, error), signal);
      }
    }
  }

  #vectorsOf(response: OpenAI.CreateEmbeddingResponse, count: number): Float32Array[] {
    const vectors = new Array<Float32Array>(count);
    for (const item of response.data) {
      const vector = Float32Array.from(item.embedding);
      if (vector.length !== this.dimension) {
        throw new SvcError(
          `The embedding model ${quote(this.id)} answered with vectors of ${vector.length} ` +
            `dimensions, not ${this.dimension}: set SVC_EMBEDDING_DIMENSION to ${vector.length}`,
          { status: 502 },
        );
      }
      vectors[item.index] = vector;
    }
    if (response.data.length !== count || vectors.some((vector) => !vector)) {
      throw new SvcError(
        `The embedding model ${quote(this.id)} answered with ${response.data.length} vectors ` +
          `for ${count} texts`,
        { status: 502 },
      );
    }
    return vectors;
  }

  #delay(attempt: number, error: InstanceType<typeof OpenAI.APIError>): number {
    const header = error.headers?.get("retry-after");
    const after = header ? Number(header) : NaN;
    const backoff = Number.isFinite(after) && after >= 0
      ? after * 1000
      : this.#backoff * 2 ** attempt;
    return Math.min(backoff, 30_000);
  }

  #redact(text: string): string {
    return redactUrls(text, { secretsOf: [this.#baseURL] });
  }

  #failure(sdk: typeof OpenAI, error: unknown): SvcError {
    const provider = `The embedding model ${quote(this.id)}`;
    if (error instanceof sdk.APIConnectionError) {
      return new SvcError(
        `${provider} cannot be reached at ${quote(this.#endpoint)}: ${this.#redact(error.message)}`,
        { status: 502, cause: error },
      );
    }
    // The server's own message only, cut short: the SDK's words hold its body as it came,
    // which a server that echoes the request fills with the request, key included; and not the
    // SDK's error as the cause, which a log line would show whole.
    if (error instanceof sdk.APIError) {
      const body = error.error as { message?: unknown } | string | undefined;
      const said = typeof body === "string" ? body : body?.message;
      const message = typeof said === "string" && said.trim()
        ? `: ${this.#redact(excerpt(said.trim(), { head: 300, tail: 0 }))}`
        : "";
      return new SvcError(`${provider} failed with status ${error.status}${message}`, {
        status: 502,
      });
    }
    if (error instanceof SvcError) return error;
    return new SvcError(`${provider} failed: ${this.#redact((error as Error).message)}`, {
      status: 502,
      cause: error,
    });
  }
}

function retryable(sdk: typeof OpenAI, error: InstanceType<typeof OpenAI.APIError>): boolean {
  if (error instanceof sdk.APIUserAbortError) return false;
  if (error instanceof sdk.APIConnectionError) return true;
  const status = error.status ?? 0;
  return status === 429 || status >= 500;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener("abort", aborted, { once: true });
  });
}
