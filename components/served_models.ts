/**
 * The models a model server says it serves: Ollama's `/api/tags`, and the `/models` list of the
 * servers that speak OpenAI's API. Asked to catch a model name the server does not know before a
 * chat does, and to offer a local server's models.
 * @module
 */
import { trimSlashes } from "./core/text_scan.ts";

/** How long a server may take to list its models, in milliseconds. */
const LIST_TIMEOUT = 2000;

/**
 * The URL of `OLLAMA_HOST` as Ollama reads it: `http://` when no scheme is given, then port 11434
 * when none is given; this machine's port 11434 when it is unset.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ollamaUrl } from "./served_models.ts";
 * assert.equal(ollamaUrl(undefined), "http://127.0.0.1:11434");
 * assert.equal(ollamaUrl("gpu-box"), "http://gpu-box:11434");
 * ```
 */
export function ollamaUrl(host: string | undefined): string {
  if (!host) return "http://127.0.0.1:11434";
  const schemeless = !/^[a-z][a-z0-9+.-]*:\/\//i.test(host);
  try {
    const url = new URL(schemeless ? `http://${host}` : host);
    if (schemeless && !url.port) url.port = "11434";
    return trimSlashes(url.href);
  } catch {
    return host;
  }
}

/**
 * Whether svc offers a local Ollama server's models as assistants, as `SVC_OLLAMA_OFFER_MODELS`
 * says: yes unless it is false.
 */
export function offersOllamaModels(setting: string | undefined): boolean {
  return !/^(?:false|0|no|off)$/i.test(setting?.trim() ?? "");
}

/** A model an Ollama server holds. */
export interface OllamaModel {
  /** As Ollama names it, without the `:latest` a name without a tag means: `llama3.2`. */
  name: string;
  /** Whether it makes embeddings rather than text. */
  embedding: boolean;
}

/**
 * The models of the Ollama server at `host`; `undefined` when it does not answer with a list.
 */
export async function ollamaModels(host: string): Promise<OllamaModel[] | undefined> {
  const listed = await getJson(`${host}/api/tags`);
  const models = (listed as { models?: unknown } | undefined)?.models;
  if (!Array.isArray(models)) return undefined;
  return models.flatMap((model) => {
    const name = (model as { name?: unknown })?.name;
    if (typeof name !== "string") return [];
    const family = String((model as { details?: { family?: unknown } }).details?.family ?? "");
    // Ollama's list does not say what a model does; its embedding models are BERT-like or say so.
    return [{
      name: name.replace(/:latest$/, ""),
      embedding: /bert/i.test(family) || /embed/i.test(name),
    }];
  });
}

/**
 * The ids of the models a server that speaks OpenAI's API lists at `{baseURL}/models`;
 * `undefined` when it does not answer with a list.
 */
export async function openAiModels(
  baseURL: string,
  apiKey?: string,
): Promise<string[] | undefined> {
  const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const listed = await getJson(`${trimSlashes(baseURL)}/models`, headers);
  const data = (listed as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) return undefined;
  return data.flatMap((model) => {
    const id = (model as { id?: unknown })?.id;
    return typeof id === "string" ? [id] : [];
  });
}

/**
 * Whether a list of served models holds `model`; a name without a tag is the `latest` one, as
 * Ollama reads it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serves } from "./served_models.ts";
 * assert.equal(serves(["llama3.2:latest"], "llama3.2"), true);
 * assert.equal(serves(["llama3.2"], "llama3.2:latest"), true);
 * assert.equal(serves(["llama3.2:1b"], "llama3.2"), false);
 * ```
 */
export function serves(served: readonly string[], model: string): boolean {
  const bare = model.replace(/:latest$/, "");
  return served.includes(model) || served.includes(bare) || served.includes(`${bare}:latest`);
}

async function getJson(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(LIST_TIMEOUT) });
    if (!response.ok) {
      await response.body?.cancel();
      return undefined;
    }
    return await response.json();
  } catch {
    return undefined;
  }
}
