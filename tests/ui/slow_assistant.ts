/**
 * An assistant for the browser tests: it answers in several chunks with a
 * pause before each, so that a test can watch the answer grow, and it
 * declares parameters of each type so that the new chat dialog has some to
 * render.
 * @module
 */
import { z } from "zod";
import { Assistant } from "../../components/core/component.ts";
import { SvcError } from "../../components/core/errors.ts";
import type { ChatParams, ParamSchema } from "../../components/core/params.ts";
import type { Source } from "../../components/core/source.ts";

/** The chunks of every answer, in order. */
export const CHUNKS: readonly string[] = [
  "Here is what the documents say:\n\n",
  "- the report has **three** pages\n",
  "- the notes list the ingredients\n\n",
  "```ts\nconst answer = 42;\n```\n\n",
  "| Document | Mood |\n|---|---|\n",
  "| report.pdf | :rocket: |\n",
  "| notes.docx | :books: |\n",
];

/** A prompt that fails the first time it is asked, after the first chunk, and not after. */
export const FAILS_ONCE = "Please fail once";

/** A prompt whose answer, after its first chunk, waits until it is stopped. */
export const HOLDS = "Please hold until stopped";

/**
 * Answers with {@linkcode CHUNKS}, `delay_ms` apart; {@linkcode FAILS_ONCE}
 * fails once; {@linkcode HOLDS} waits after its first chunk until stopped.
 */
export class SlowAssistant extends Assistant {
  static override displayName = "Test/SlowAssistant";
  static override params: ParamSchema = {
    delay_ms: z.int().min(0).max(5000).default(300),
    tone: z.string().default("plain"),
    shout: z.boolean().default(false),
  };

  #failed = new Set<string>();

  override async *answer(
    prompt: string,
    _sources: Source[],
    params: ChatParams,
  ): AsyncGenerator<string> {
    const delay = typeof params.delay_ms === "number" ? params.delay_ms : 300;
    const failing = prompt === FAILS_ONCE && !this.#failed.has(params.chat_id);
    for (const chunk of CHUNKS) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      // As a real assistant's aborted request would, rather than end as if complete.
      params.signal.throwIfAborted();
      yield params.shout ? chunk.toUpperCase() : chunk;
      if (prompt === HOLDS) {
        await new Promise((resolve) => {
          params.signal.addEventListener("abort", resolve, { once: true });
        });
        params.signal.throwIfAborted();
      }
      if (failing) {
        this.#failed.add(params.chat_id);
        throw new SvcError("The test model is overloaded", { status: 502 });
      }
    }
  }
}
