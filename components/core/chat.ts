/**
 * `Chat`: a conversation over documents with a source storage and an
 * assistant, made by `Rag.chat()`.
 * @module
 */
import {
  type AnswerChunks,
  Assistant,
  type Component,
  type ComponentClass,
  type ComponentRef,
  displayNameOf,
  type Family,
  SourceStorage,
} from "./component.ts";
import { Document, LocalDocument } from "./document.ts";
import { quote, SvcError } from "./errors.ts";
import { Message, MessageRole } from "./message.ts";
import {
  type ChatParams,
  defaultSpecialParams,
  type HistoryMessage,
  validateParams,
} from "./params.ts";
import type { PrepareProgressCallback } from "./progress.ts";
import type { Source } from "./source.ts";

/** What a chat is made of. */
export interface ChatOptions {
  /** The documents, as paths (`LocalDocument`s are made of them) or `Document`s. */
  documents: Iterable<string | URL | Document>;
  /** The source storage: a class, an instance or a class path. */
  sourceStorage: ComponentRef<SourceStorage>;
  /** The assistant: a class, an instance or a class path. */
  assistant: ComponentRef<Assistant>;
  /**
   * The chat parameters of both components, plus optionally `user`, `chat_id`
   * and `chat_name`.
   */
  params?: Record<string, unknown>;
  /**
   * Whether the chat was prepared before, for a chat restored from storage.
   * @default {false}
   */
  prepared?: boolean;
  /** The folder that relative module specifiers of class paths are relative to. */
  base?: string;
  /**
   * The messages so far, oldest first, for a chat restored from storage: a
   * follow-up question is retrieved and answered with them.
   */
  messages?: Iterable<Message>;
}

/** Options of {@linkcode Chat.answer}. */
export interface AnswerOptions {
  /**
   * Give the answer as it is written: the message is then read by iterating
   * over it. Otherwise the whole answer is read before it is returned.
   * @default {false}
   */
  stream?: boolean;
  /** Aborts the assistant's work when the answer is no longer wanted. */
  signal?: AbortSignal;
}

/** Options of {@linkcode Chat.prepare} and {@linkcode Chat.addDocuments}. */
export interface PrepareOptions {
  /** Told how far each document is, as the source storage reads, parses and indexes it. */
  onProgress?: PrepareProgressCallback;
  /**
   * Stops preparing: the source storage ends its work, and what it kept of
   * the documents stored so far is removed.
   */
  signal?: AbortSignal;
}

/** What a chat needs of the `Rag` that made it: its components, found by reference. */
export interface ChatComponents {
  /** The class of a component when it is known without loading a module, else `undefined`. */
  classOf<T extends Component>(
    ref: ComponentRef<T>,
    family: Family<T>,
  ): ComponentClass<T> | undefined;
  /** The instance of a component, loaded and checked to be available. */
  loadComponent<T extends Component>(
    ref: ComponentRef<T>,
    family: Family<T>,
    options?: { base?: string },
  ): Promise<T | null>;
}

interface Resolved {
  sourceStorage: SourceStorage;
  assistant: Assistant;
  storageParams: Record<string, unknown>;
  assistantParams: Record<string, unknown>;
}

/**
 * A conversation over documents: `prepare()` once, which stores the
 * documents, then `answer()` as often as wanted.
 */
export class Chat {
  /** The documents the chat is about. */
  readonly documents: Document[];
  /** The messages so far, oldest first. */
  readonly messages: Message[] = [];
  readonly #rag: ChatComponents;
  readonly #options: ChatOptions;
  readonly #params: Record<string, unknown>;
  /** The documents given as paths, and each path as given, to name it when the file is missing. */
  readonly #paths = new Map<Document, string>();
  #resolved?: Resolved;
  #prepared: boolean;

  /** Use `Rag.chat()`. */
  constructor(rag: ChatComponents, options: ChatOptions) {
    this.#rag = rag;
    this.#options = options;
    this.#params = { ...defaultSpecialParams(), ...options.params };
    this.#prepared = options.prepared ?? false;
    this.messages.push(...options.messages ?? []);
    this.documents = [...options.documents].map((document) => {
      if (document instanceof Document) return document;
      const local = LocalDocument.fromPath(document);
      this.#paths.set(local, document instanceof URL ? local.path : document);
      return local;
    });
    const storage = rag.classOf(options.sourceStorage, SourceStorage);
    const assistant = rag.classOf(options.assistant, Assistant);
    if (storage && assistant) validateParams(this.#params, [storage, assistant]);
  }

  /** The chat's id: the `chat_id` parameter. */
  get id(): string {
    return this.#params.chat_id as string;
  }

  /** The chat's name: the `chat_name` parameter. */
  get name(): string {
    return this.#params.chat_name as string;
  }

  /** The user the chat belongs to: the `user` parameter. */
  get user(): string {
    return this.#params.user as string;
  }

  /** Whether `prepare()` has run. */
  get prepared(): boolean {
    return this.#prepared;
  }

  /** The chat parameters as given, with the special ones. */
  get params(): Readonly<Record<string, unknown>> {
    return this.#params;
  }

  /**
   * Stores the documents in the source storage, once.
   *
   * @returns the welcome message (role `system`)
   * @throws {SvcError} 400 when the chat is prepared already; 404 for a
   * document that cannot be read; whatever the source storage throws
   */
  async prepare(options: PrepareOptions = {}): Promise<Message> {
    if (this.#prepared) {
      throw new SvcError("The chat is prepared already: prepare it only once", { status: 400 });
    }
    const { sourceStorage, storageParams } = await this.#resolve();
    await this.#checkReadable(this.documents, options);
    try {
      await sourceStorage.store(this.documents, this.#storeParams(storageParams, options));
    } catch (error) {
      // Nothing half-prepared stays: the documents stored before the failure are removed too.
      try {
        await sourceStorage.delete(this.#withSignal(storageParams));
      } catch {
        // The failure to prepare is what the caller needs to hear of.
      }
      throw error;
    }
    this.#prepared = true;
    const welcome = new Message("How can I help you with the documents?", {
      role: MessageRole.SYSTEM,
    });
    this.messages.push(welcome);
    return welcome;
  }

  /**
   * Adds documents to the chat. A prepared chat stores only these in its
   * source storage, the others staying as they are; a chat not prepared yet
   * stores them with the others when it is.
   *
   * @throws {SvcError} 404 for a document that cannot be read; 409 for one the
   * chat has already; whatever the source storage throws (the chat's documents
   * are then as they were)
   */
  async addDocuments(
    documents: Iterable<Document>,
    options: PrepareOptions = {},
  ): Promise<void> {
    const added = [...documents];
    const known = new Set(this.documents.map((document) => document.id));
    for (const document of added) {
      if (known.has(document.id)) {
        throw new SvcError(`The chat has the document ${quote(document.name)} already`, {
          status: 409,
        });
      }
      known.add(document.id);
    }
    if (this.#prepared) {
      const { sourceStorage, storageParams } = await this.#resolve();
      await this.#checkReadable(added, options);
      await sourceStorage.store(added, this.#storeParams(storageParams, options));
    }
    this.documents.push(...added);
  }

  /**
   * Answers a prompt from the passages the source storage retrieves for it.
   *
   * @returns the answer (role `assistant`) with its sources; a streamed one is
   * read by iterating over it
   * @throws {SvcError} 400 when the chat is not prepared; whatever the
   * components throw
   */
  async answer(prompt: string, options: AnswerOptions = {}): Promise<Message> {
    if (!this.#prepared) {
      throw new SvcError("The chat is not prepared: call prepare() before answer()", {
        status: 400,
      });
    }
    const { assistant, assistantParams } = await this.#resolve();
    const history = [...this.messages];
    this.messages.push(new Message(prompt, { role: MessageRole.USER }));
    const sources = await this.#retrieve(prompt, options.signal, history);
    const chunks = await assistant.answer(
      prompt,
      sources,
      { ...this.#withSignal(assistantParams, options.signal), history },
    );
    const answer = new Message(asyncChunks(chunks, assistant.displayName), {
      role: MessageRole.ASSISTANT,
      sources,
    });
    if (!options.stream) await answer.read();
    this.messages.push(answer);
    return answer;
  }

  /**
   * The sources the source storage retrieves for a prompt, in its order: what `answer()` gives
   * the assistant, without asking it and without adding messages, to measure retrieval alone.
   * The prompt is taken as the next turn of the conversation so far.
   *
   * @throws {SvcError} 400 when the chat is not prepared; whatever the source storage throws
   */
  async retrieve(prompt: string, options: { signal?: AbortSignal } = {}): Promise<Source[]> {
    if (!this.#prepared) {
      throw new SvcError("The chat is not prepared: call prepare() before retrieve()", {
        status: 400,
      });
    }
    return await this.#retrieve(prompt, options.signal, [...this.messages]);
  }

  async #retrieve(
    prompt: string,
    signal: AbortSignal | undefined,
    history: Message[],
  ): Promise<Source[]> {
    const { sourceStorage, storageParams, assistant, assistantParams } = await this.#resolve();
    const standaloneQuestion = (prompt: string, history: readonly HistoryMessage[]) =>
      assistant.standaloneQuestion(prompt, {
        ...this.#withSignal(assistantParams, signal),
        history,
      });
    return await sourceStorage.retrieve(
      this.documents,
      prompt,
      { ...this.#withSignal(storageParams, signal), history, standaloneQuestion },
    );
  }

  /**
   * Removes what the source storage keeps for the chat, as deleting a chat of the REST API does.
   */
  async delete(): Promise<void> {
    const { sourceStorage, storageParams } = await this.#resolve();
    await sourceStorage.delete(this.#withSignal(storageParams));
  }

  async #resolve(): Promise<Resolved> {
    if (this.#resolved) return this.#resolved;
    const { base } = this.#options;
    const sourceStorage = await this.#rag.loadComponent(
      this.#options.sourceStorage,
      SourceStorage,
      { base },
    );
    const assistant = await this.#rag.loadComponent(this.#options.assistant, Assistant, { base });
    const storageClass = sourceStorage!.constructor as ComponentClass;
    const assistantClass = assistant!.constructor as ComponentClass;
    const params = validateParams(this.#params, [storageClass, assistantClass]);
    this.#resolved = {
      sourceStorage: sourceStorage!,
      assistant: assistant!,
      storageParams: params.get(storageClass)!,
      assistantParams: params.get(assistantClass)!,
    };
    return this.#resolved;
  }

  /** 404 naming the first document that cannot be read, reported as failed. */
  async #checkReadable(documents: Document[], options: PrepareOptions): Promise<void> {
    for (const document of documents) {
      if (await document.isReadable()) continue;
      const path = this.#paths.get(document);
      const error = new SvcError(
        path === undefined
          ? `Cannot read ${quote(document.name)}: it was never uploaded or is gone`
          : `Cannot read ${quote(path)}: ${await missing(path)}`,
        { status: 404 },
      );
      options.onProgress?.({ document, stage: "failed", error: error.message });
      throw error;
    }
  }

  #storeParams(params: Record<string, unknown>, options: PrepareOptions): ChatParams {
    const withSignal = this.#withSignal(params, options.signal);
    return options.onProgress ? { ...withSignal, progress: options.onProgress } : withSignal;
  }

  #withSignal(params: Record<string, unknown>, signal?: AbortSignal): ChatParams {
    return { ...params, signal: signal ?? new AbortController().signal } as ChatParams;
  }

  /** The chat's display: its name and components. */
  toString(): string {
    const storage = this.#resolved?.sourceStorage.displayName ??
      describe(this.#options.sourceStorage);
    const assistant = this.#resolved?.assistant.displayName ?? describe(this.#options.assistant);
    return `Chat ${quote(this.name)} (${storage}, ${assistant})`;
  }
}

async function* asyncChunks(chunks: AnswerChunks, assistant: string): AsyncGenerator<string> {
  if (typeof chunks === "string") {
    yield chunks;
  } else if (isIterable(chunks)) {
    yield* chunks;
  } else {
    throw new SvcError(
      `The assistant ${quote(assistant)} answered ${typeof chunks}, not chunks of text`,
    );
  }
}

function isIterable(value: unknown): value is AnswerChunks {
  return typeof value === "object" && value !== null &&
    (Symbol.iterator in value || Symbol.asyncIterator in value);
}

function describe(ref: unknown): string {
  if (typeof ref === "string") return ref;
  if (typeof ref === "function") return displayNameOf(ref as ComponentClass);
  return String(ref);
}

/** Why a file given by its path cannot be read, in words. */
async function missing(path: string): Promise<string> {
  try {
    return (await Deno.stat(path)).isDirectory ? "it is a folder" : "it is not a file";
  } catch (error) {
    return error instanceof Deno.errors.NotFound ? "no such file" : (error as Error).message;
  }
}
