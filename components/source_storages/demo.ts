/**
 * The demo source storage, `svc.source_storages.SvcDemoSourceStorage`: the
 * default of a fresh install, which stores nothing.
 * @module
 */
import { SourceStorage } from "../core/component.ts";
import type { Document } from "../core/document.ts";
import type { ChatParams } from "../core/params.ts";
import { extractPages } from "../documents/mod.ts";
import type { Source } from "../core/source.ts";
import { shorten } from "../shorten.ts";

/**
 * A source storage for trying svc out: one source per document, the start of
 * its first page, whatever the prompt. Its sources are derived from the
 * documents alone, so it keeps answering after a restart with nothing on disk.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SvcDemoSourceStorage } from "@svc/svc/source_storages";
 * assert(new SvcDemoSourceStorage().displayName === "Svc/DemoSourceStorage");
 * ```
 */
export class SvcDemoSourceStorage extends SourceStorage {
  static override displayName = "Svc/DemoSourceStorage";
  #sources = new Map<string, Promise<Source[]>>();

  override async store(documents: Document[], params: ChatParams): Promise<void> {
    await this.#sourcesOf(documents, params.chat_id);
  }

  override retrieve(documents: Document[], _prompt: string, params: ChatParams): Promise<Source[]> {
    return this.#sourcesOf(documents, params.chat_id);
  }

  override delete(params: ChatParams): void {
    this.#sources.delete(params.chat_id);
  }

  #sourcesOf(documents: Document[], chatId: string): Promise<Source[]> {
    let sources = this.#sources.get(chatId);
    if (!sources) {
      sources = Promise.all(documents.map((document) => sourceOf(document, chatId)));
      this.#sources.set(chatId, sources);
      sources.catch(() => this.#sources.delete(chatId));
    }
    return sources;
  }
}

async function sourceOf(document: Document, chatId: string): Promise<Source> {
  const [first] = await extractPages(document);
  const content = shorten(first?.text ?? "", 100);
  return {
    id: await stableId(`${chatId}/${document.id}`),
    document,
    location: first?.number ? `page ${first.number}` : "",
    content,
    numTokens: content.split(" ").filter(Boolean).length,
  };
}

/** A UUID-shaped id that is the same for the same key, in every process. */
async function stableId(key: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)),
  );
  const hex = [...digest.slice(0, 16)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${
    hex.slice(20)
  }`;
}
