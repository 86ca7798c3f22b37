/**
 * An assistant the test feeds: each prompt's answer gives the chunks the test
 * pushes, when it pushes them, and ends when the test ends it, so that a test
 * holds an answer half-written for as long as it needs to, without a clock.
 */
import { Assistant } from "../../../components/core/component.ts";
import type { ChatParams } from "../../../components/core/params.ts";

/** The answer to one prompt, as the test writes it. */
export class Feed {
  readonly began = Promise.withResolvers<void>();
  /** Settles with the reason when the assistant is told to stop. */
  readonly stopped = Promise.withResolvers<unknown>();
  readonly #queue: (string | null)[] = [];
  #wake: (() => void) | undefined;

  /** Gives the next chunk. */
  push(chunk: string): void {
    this.#queue.push(chunk);
    this.#wake?.();
  }

  /** Ends the answer after the chunks pushed. */
  end(): void {
    this.#queue.push(null);
    this.#wake?.();
  }

  /** The chunks as they come, until the end or a stop. */
  async *chunks(signal: AbortSignal): AsyncGenerator<string> {
    signal.addEventListener("abort", () => {
      this.stopped.resolve(signal.reason);
      this.#wake?.();
    }, { once: true });
    while (!signal.aborted) {
      const next = this.#queue.shift();
      if (next === null) return;
      if (next !== undefined) {
        yield next;
        continue;
      }
      await new Promise<void>((resolve) => this.#wake = resolve);
    }
  }
}

/** Answers each prompt with its {@linkcode Feed}. */
export class Fed extends Assistant {
  static override displayName = "Test/Fed";
  readonly #feeds = new Map<string, Feed>();

  /** The answer to `prompt`, made on first use by the test or the assistant. */
  feed(prompt: string): Feed {
    if (!this.#feeds.has(prompt)) this.#feeds.set(prompt, new Feed());
    return this.#feeds.get(prompt)!;
  }

  override async *answer(
    prompt: string,
    _sources: unknown[],
    params: ChatParams,
  ): AsyncGenerator<string> {
    const feed = this.feed(prompt);
    feed.began.resolve();
    yield* feed.chunks(params.signal);
  }
}
