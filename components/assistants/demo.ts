/**
 * The demo assistant, `svc.assistants.SvcDemoAssistant`: the default of a fresh
 * install, which answers without a model or a key.
 * @module
 */
import { Assistant } from "../core/component.ts";
import type { ChatParams } from "../core/params.ts";
import type { Source } from "../core/source.ts";
import { shorten } from "../shorten.ts";

/**
 * An assistant for trying svc out: it answers every prompt by showing what it
 * was given, the prompt and the sources, in one chunk. A prompt that mentions
 * "markdown" gets a table that shows how answers are rendered.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SvcDemoAssistant } from "@svc/svc/assistants";
 * assert(new SvcDemoAssistant().displayName === "Svc/DemoAssistant");
 * ```
 */
export class SvcDemoAssistant extends Assistant {
  static override displayName = "Svc/DemoAssistant";

  override *answer(prompt: string, sources: Source[], _params?: ChatParams): Generator<string> {
    yield /markdown/i.test(prompt) ? MARKDOWN_SAMPLE : mirror(prompt, sources);
  }
}

function mirror(prompt: string, sources: Source[]): string {
  const quoted = prompt.split("\n").map((line) => `> ${line}`).join("\n");
  const listed = sources.slice(0, 3).map((source) => {
    const where = source.location ? `, ${source.location}` : "";
    return `- ${source.document.name}${where}: ${shorten(source.content, 100)}`;
  });
  if (sources.length > 3) listed.push(`[... and ${sources.length - 3} more]`);
  return [
    "I am the demo assistant: I do not read your documents, I only show what I was given.",
    "Pick another assistant in a new chat to get real answers.",
    "",
    "Your prompt was:",
    "",
    quoted,
    "",
    "These are the sources I was given:",
    "",
    ...listed,
  ].join("\n");
}

const MARKDOWN_SAMPLE = `| Text | Integer | Decimal | Emoji |
|:-----|:-------:|--------:|-------|
| plain | 0 | 1.0 | :sparkles: |
| \`code\` | 1 | -2.75 | :rocket: |
| "quoted" | -1 | 3e6 | :eyes: :books: :eyes: |`;
