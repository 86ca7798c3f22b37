/**
 * Messages of a chat: who wrote them, their sources, and their content, which
 * an answer may stream.
 * @module
 */
import type { AnswerChunks } from "./component.ts";
import { SvcError } from "./errors.ts";
import type { Source } from "./source.ts";

/** Who wrote a message. */
export const MessageRole = {
  SYSTEM: "system",
  USER: "user",
  ASSISTANT: "assistant",
} as const;
/** Who wrote a message: `"system"`, `"user"` or `"assistant"`. */
export type MessageRole = typeof MessageRole[keyof typeof MessageRole];

/** Options of {@linkcode Message}. */
export interface MessageOptions {
  /** @default {"system"} */
  role?: MessageRole;
  /** The passages the message is based on. */
  sources?: Source[];
  /** A fresh UUID when left out. */
  id?: string;
  /** Now when left out. */
  timestamp?: Date;
}

type State = "waiting" | "reading" | "done" | "failed" | "abandoned";

/**
 * A message of a chat. Its content is a string, or a stream of chunks that is
 * read once, by iterating over the message or by `read()`; after that the
 * chunks are kept and the message can be iterated again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Message } from "@svc/svc";
 * async function* words() { yield "Hello, "; yield "world"; }
 * const message = new Message(words(), { role: "assistant" });
 * for await (const chunk of message) console.log(chunk);
 * assert(message.content === "Hello, world");
 * ```
 */
export class Message implements AsyncIterable<string> {
  readonly id: string;
  readonly role: MessageRole;
  readonly sources: Source[];
  readonly timestamp: Date;
  #chunks: string[] = [];
  #stream?: AnswerChunks;
  #state: State;
  #error?: unknown;

  constructor(content: string | AnswerChunks, options: MessageOptions = {}) {
    this.id = options.id ?? crypto.randomUUID();
    this.role = options.role ?? MessageRole.SYSTEM;
    this.sources = options.sources ?? [];
    this.timestamp = options.timestamp ?? new Date();
    if (typeof content === "string") {
      this.#chunks = [content];
      this.#state = "done";
    } else {
      this.#stream = content;
      this.#state = "waiting";
    }
  }

  /**
   * The whole text.
   * @throws {SvcError} while a streamed message has not been read to its end
   */
  get content(): string {
    if (this.#state === "done") return this.#chunks.join("");
    throw this.#unknownContent();
  }

  /** Whether the whole content is known. */
  get isComplete(): boolean {
    return this.#state === "done";
  }

  /** Reads the stream to its end and returns the whole text. */
  async read(): Promise<string> {
    for await (const _ of this);
    return this.content;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<string, void, undefined> {
    if (this.#state === "done") {
      yield* this.#chunks;
      return;
    }
    if (this.#state === "reading") {
      throw new SvcError("This message is being read already: a stream can be read only once");
    }
    if (this.#state === "failed" || this.#state === "abandoned") throw this.#unknownContent();
    this.#state = "reading";
    try {
      for await (const chunk of this.#stream!) {
        if (typeof chunk !== "string") {
          throw new SvcError(`A message stream yielded ${typeof chunk}, not a string`);
        }
        this.#chunks.push(chunk);
        yield chunk;
      }
      this.#state = "done";
      this.#stream = undefined;
    } catch (error) {
      this.#state = "failed";
      this.#error = error;
      throw error;
    } finally {
      // A reader that stops early leaves the message incomplete for good.
      if (this.#state === "reading") this.#state = "abandoned";
    }
  }

  #unknownContent(): SvcError {
    if (this.#state === "failed") {
      return new SvcError("The content of this message is not known: its stream failed", {
        cause: this.#error,
      });
    }
    if (this.#state === "abandoned") {
      return new SvcError(
        "The content of this message is not known: its stream was not read to its end",
      );
    }
    return new SvcError(
      "The content of a streamed message is not known until it was read: " +
        "iterate over the message or await read() first",
    );
  }

  toString(): string {
    return this.content;
  }
}
