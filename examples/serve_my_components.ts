/**
 * svc with your own components: a source storage and an assistant defined in
 * this script, served with the REST API and the web UI by `@svc/svc/deploy`.
 *
 * In a folder with this script and a deno.json that imports svc from JSR,
 * `{ "imports": { "@svc/svc": "jsr:@svc/svc@^0.3.0" } }`:
 *
 *     deno run -A serve_my_components.ts
 *
 * then open http://127.0.0.1:31477 and log in with any name as the password.
 * Each option can be set by its environment variable, as for `svc`
 * (`SVC_API_PORT`, `SVC_UI_PORT`, `SVC_LOCAL_ROOT`, ...).
 * @module
 */
import { Assistant, countTokens, type Document, type Source, SourceStorage } from "@svc/svc";
import { Config, serveApi, serveUi } from "@svc/svc/deploy";

/**
 * Keeps nothing: the paragraphs of the chat's documents that share the most
 * words with the prompt, read again for each prompt (so it also answers after
 * a restart).
 */
export class ParagraphStorage extends SourceStorage {
  static override displayName = "My/ParagraphStorage";

  override store(): void {}

  override async retrieve(documents: Document[], prompt: string): Promise<Source[]> {
    const words = new Set(wordsOf(prompt));
    const scored: { score: number; source: Source }[] = [];
    for (const document of documents) {
      for (const page of await document.extractPages()) {
        for (const paragraph of page.text.split(/\n\s*\n/)) {
          const score = wordsOf(paragraph).filter((word) => words.has(word)).length;
          if (score === 0) continue;
          const content = paragraph.trim();
          const location = page.number === null ? "" : String(page.number);
          const source = {
            id: crypto.randomUUID(),
            document,
            location,
            content,
            numTokens: countTokens(content),
          };
          scored.push({ score, source });
        }
      }
    }
    return scored.sort((a, b) => b.score - a.score).slice(0, 3).map(({ source }) => source);
  }
}

/** Answers with the passages themselves, quoted, one chunk at a time. */
export class QuotingAssistant extends Assistant {
  static override displayName = "My/QuotingAssistant";

  override async *answer(prompt: string, sources: Source[]): AsyncGenerator<string> {
    if (sources.length === 0) {
      yield `Nothing in the documents is about "${prompt}".`;
      return;
    }
    yield `What the documents say about "${prompt}":`;
    for (const source of sources) {
      yield `\n\n> ${source.content.replace(/\n/g, "\n> ")}\n\n(${source.document.name})`;
    }
  }
}

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/\p{L}{3,}/gu) ?? [];
}

if (import.meta.main) {
  // Like svc.toml: your classes by module and export (this module's), the built-ins by class path.
  const config = Config.from({
    local_root: ".svc", // relative to `base`: next to this script
    source_storages: [`${import.meta.url}#ParagraphStorage`],
    assistants: [`${import.meta.url}#QuotingAssistant`, "svc.assistants.SvcDemoAssistant"],
  }, { base: import.meta.dirname });

  const stop = new AbortController();
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => stop.abort());
  }
  const api = await serveApi(config, { signal: stop.signal });
  const ui = serveUi(config, { signal: stop.signal });
  console.log(`svc UI: ${ui.url}`);
  await Promise.all([api.finished, ui.finished]);
  Deno.exit(0);
}
