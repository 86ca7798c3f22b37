/**
 * The demo source storage, `svc.source_storages.SvcDemoSourceStorage`: the
 * default of a fresh install, which stores nothing.
 * @module
 */
import { SourceStorage } from "../core/component.ts";
import type { Document } from "../core/document.ts";
import type { ChatParams } from "../core/params.ts";
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
  /** Each chat's sources, with the ids of the documents they were made of. */
  #sources = new Map<string, { documents: string; sources: Promise<Source[]> }>();

  override async store(documents: Document[], params: ChatParams): Promise<void> {
    await Promise.all(documents.map(async (document) => {
      params.progress?.({ document, stage: "reading" });
      try {
        const pages = await pagesOf(document);
        params.progress?.({ document, stage: "parsed", pages: pages.length });
        params.progress?.({ document, stage: "indexed", chunks: pages.length > 0 ? 1 : 0 });
      } catch (error) {
        params.progress?.({ document, stage: "failed", error: (error as Error).message });
        throw error;
      }
    }));
  }

  override retrieve(documents: Document[], _prompt: string, params: ChatParams): Promise<Source[]> {
    return this.#sourcesOf(documents, params.chat_id);
  }

  override delete(params: ChatParams): void {
    this.#sources.delete(params.chat_id);
  }

  #sourcesOf(documents: Document[], chatId: string): Promise<Source[]> {
    // Made again when the chat's documents changed (some were added).
    const ids = documents.map((document) => document.id).join("\n");
    let entry = this.#sources.get(chatId);
    if (!entry || entry.documents !== ids) {
      const sources = Promise.all(documents.map((document) => sourceOf(document, chatId)));
      entry = { documents: ids, sources };
      this.#sources.set(chatId, entry);
      sources.catch(() => {
        if (this.#sources.get(chatId)?.sources === sources) this.#sources.delete(chatId);
      });
    }
    return entry.sources;
  }
}

async function sourceOf(document: Document, chatId: string): Promise<Source> {
  const [first] = await pagesOf(document);
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

/** The document readers, which `deploy/compile.ts` includes in the binary. */
const READERS = "../documents/mod.ts";

/**
 * The pages of a document, parsed in a reader thread. The reading loads with the first document
 * rather than with the module, which `svc api` loads at start as its default storage, and by a
 * name Deno does not read ahead, so that its modules are not even prepared before.
 */
async function pagesOf(document: Document) {
  const { extractPages }: typeof import("../documents/mod.ts") = await import(READERS);
  return await extractPages(document);
}
