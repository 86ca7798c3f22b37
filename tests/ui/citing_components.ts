/**
 * Components for the browser tests of citations and the document view: a
 * source storage whose sources are the documents' pages, in order, and an
 * assistant that streams an answer citing them, with markers cut between
 * chunks and one marker that has no source.
 * @module
 */
import { Assistant, SourceStorage } from "../../components/core/component.ts";
import type { Document } from "../../components/core/document.ts";
import type { ChatParams } from "../../components/core/params.ts";
import type { Source } from "../../components/core/source.ts";
import { extractPages } from "../../components/documents/mod.ts";

/**
 * Every page of every document is a source (source n of report.pdf is its
 * page n), and after them, for each document of three pages or more, a
 * passage over its pages 2 and 3.
 */
export class PagesStorage extends SourceStorage {
  static override displayName = "Test/PagesStorage";

  override store(): void {}

  override async retrieve(documents: Document[]): Promise<Source[]> {
    const sources: Source[] = [];
    const spans: Source[] = [];
    for (const document of documents) {
      const pages = await extractPages(document);
      if (pages.length >= 3) {
        const text = `${pages[1]!.text}\n\n${pages[2]!.text}`;
        spans.push({
          id: `${document.id}-2-3`,
          document,
          location: "2-3",
          content: text,
          numTokens: text.split(/\s+/).filter(Boolean).length,
        });
      }
      for (const page of pages) {
        sources.push({
          id: `${document.id}-${page.number ?? 0}`,
          document,
          location: page.number === null ? "" : String(page.number),
          content: page.text,
          numTokens: page.text.split(/\s+/).filter(Boolean).length,
        });
      }
    }
    return [...sources, ...spans];
  }
}

/** The chunks of every answer: `[2]` and `[2, 3]` cut apart, `[9]` without a source. */
export const CITING_CHUNKS: readonly string[] = [
  "The winter loaf is braided and baked only in December [",
  "2]. Its secret ingredient is cardamom [2, ",
  "3], and the bakery opened in 1952 [1][4]. ",
  "Nothing says it sells cakes [9].",
];

/** Streams {@linkcode CITING_CHUNKS}, a moment apart. */
export class CitingAssistant extends Assistant {
  static override displayName = "Test/CitingAssistant";

  override async *answer(
    _prompt: string,
    _sources: Source[],
    params: ChatParams,
  ): AsyncGenerator<string> {
    for (const chunk of CITING_CHUNKS) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      params.signal.throwIfAborted();
      yield chunk;
    }
  }
}

/**
 * A storage that kept the running heads of `layout.pdf` in its passages, as
 * one that reads a PDF's text in full would: source n is page n, its head
 * ("Lindenbaum Bakery: annual report", "Page n of 3") first.
 */
export class HeadedPagesStorage extends SourceStorage {
  static override displayName = "Test/HeadedPagesStorage";

  override store(): void {}

  override async retrieve(documents: Document[]): Promise<Source[]> {
    const sources: Source[] = [];
    for (const document of documents) {
      const pages = await extractPages(document);
      for (const page of pages) {
        const content = `Lindenbaum Bakery: annual report\nPage ${page.number} of ${pages.length}` +
          `\n\n${page.text}`;
        sources.push({
          id: `${document.id}-${page.number ?? 0}`,
          document,
          location: String(page.number ?? ""),
          content,
          numTokens: content.split(/\s+/).filter(Boolean).length,
        });
      }
    }
    return sources;
  }
}
