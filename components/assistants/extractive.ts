/**
 * The extractive assistant, `svc.assistants.Extractive`: the default of a
 * fresh install, which answers from the user's documents with no model, no
 * key and no package beyond svc's own.
 * @module
 */
import { Assistant } from "../core/component.ts";
import type { ChatParams } from "../core/params.ts";
import type { Source } from "../core/source.ts";
import { extract, type Quote } from "./_extract.ts";

/** The formats whose lines run on within a paragraph; svc's other readers give a line a paragraph. */
const RUNNING_LINES = new Set([".md", ".txt"]);

/** The line that ends every answer it gives, so that nobody takes it for a model's. */
export const QUOTING_NOTE =
  "_Quoted from your documents by the Extractive assistant; no model wrote this answer._";

/**
 * An assistant that answers by quoting: the sentences of the sources that
 * best answer the question, in the order they stand, each followed by its
 * source's `[n]` marker, and a note that they are quoted. When no sentence
 * shares enough of the question's telling words, it says the documents do
 * not say, rather than quoting something beside the point. It streams one
 * paragraph at a time.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LocalDocument } from "@svc/svc";
 * import { Extractive } from "@svc/svc/assistants";
 * const document = LocalDocument.fromPath("/docs/spices.pdf");
 * const sources = [{
 *   id: "a", document, location: "2", numTokens: 20,
 *   content: "Pepper grows on vines. Cardamom is harvested in December.",
 * }];
 * const chunks = await Array.fromAsync(
 *   new Extractive().answer("When is cardamom harvested?", sources, { user: "ada", chat_id: "c", chat_name: "Spices", signal: AbortSignal.timeout(1000) }),
 * );
 * assert.equal(chunks[0], "Cardamom is harvested in December. [1]\n\n");
 * ```
 */
export class Extractive extends Assistant {
  override async *answer(
    prompt: string,
    sources: Source[],
    params: ChatParams,
  ): AsyncGenerator<string> {
    const quotes = extract(
      prompt,
      sources.map((source) => ({
        text: source.content,
        document: source.document.id,
        linesApart: !RUNNING_LINES.has(source.document.format),
      })),
    );
    if (quotes.length === 0) {
      yield sources.length === 0
        ? "The documents do not say: no passage of them was found for this question."
        : "The documents do not say: none of the passages found for this question answers it. " +
          "The closest are listed as sources.";
      return;
    }
    for (const paragraph of paragraphs(quotes)) {
      params.signal?.throwIfAborted();
      yield `${paragraph}\n\n`;
    }
    yield QUOTING_NOTE;
  }
}

/**
 * The quotes as paragraphs: the sentences of one paragraph of a source run on, each with its
 * marker; a table row or a list item is a list item of its own.
 */
function paragraphs(quotes: readonly Quote[]): string[] {
  const written: string[] = [];
  let last: Quote | undefined;
  for (const quote of quotes) {
    const text = `${quote.text} [${quote.source + 1}]`;
    const item = quote.kind !== "sentence";
    const runsOn = last && !item && last.kind === "sentence" && last.source === quote.source &&
      last.paragraph === quote.paragraph;
    if (runsOn) written[written.length - 1] += ` ${text}`;
    else written.push(item ? `- ${text}` : text);
    last = quote;
  }
  // Neighbouring list items make one list.
  return written.reduce<string[]>((joined, paragraph) => {
    const previous = joined.at(-1);
    if (previous?.startsWith("- ") && paragraph.startsWith("- ")) {
      joined[joined.length - 1] = `${previous}\n${paragraph}`;
    } else joined.push(paragraph);
    return joined;
  }, []);
}
