/**
 * The component contract: `Component`, and its two families, `SourceStorage`
 * (store, retrieve, delete) and `Assistant` (answer).
 * @module
 */
import type { Document } from "./document.ts";
import type { ChatParams, ParamRule, ParamSchema } from "./params.ts";
import type { Requirement } from "./requirements.ts";
import type { Source } from "./source.ts";

/**
 * The base of source storages and assistants. A component is constructed with
 * no arguments; it says what it needs (`requirements`) and which chat
 * parameters it takes (`params`) on its class.
 */
export abstract class Component {
  /** The name users see and choose by; the class name when left out. */
  static displayName?: string;
  /** The chat parameters this component takes. */
  static params: ParamSchema = {};
  /** Checks over several of its chat parameters, such as one that must stay below another. */
  static paramRules: readonly ParamRule[] = [];
  /** What must be there for this component to run. */
  static requirements: readonly Requirement[] = [];

  /** Whether every requirement is met. */
  static async isAvailable(): Promise<boolean> {
    const met = await Promise.all(this.requirements.map((r) => r.isAvailable()));
    return met.every(Boolean);
  }

  /** The display name of this component's class. */
  get displayName(): string {
    return displayNameOf(this.constructor as ComponentClass);
  }

  toString(): string {
    return this.displayName;
  }
}

/** A concrete component class, with the statics of {@linkcode Component}. */
export type ComponentClass<T extends Component = Component> = (new () => T) & {
  readonly name: string;
  displayName?: string;
  params: ParamSchema;
  paramRules?: readonly ParamRule[];
  requirements: readonly Requirement[];
  isAvailable(): Promise<boolean>;
};

/** A component given by class, by instance, or by class path. */
export type ComponentRef<T extends Component> = ComponentClass<T> | T | string;

/** The abstract class of a component family, to check what a class path names. */
// deno-lint-ignore no-explicit-any
export type Family<T extends Component> = abstract new (...args: any[]) => T;

/** The display name of a component class: its `displayName`, else the class name. */
export function displayNameOf(component: { readonly name: string; displayName?: string }): string {
  return component.displayName ?? component.name;
}

/**
 * Stores documents so that passages of them can be retrieved for a prompt.
 * Methods may be plain or async.
 */
export abstract class SourceStorage extends Component {
  /** Called once per chat, when it is prepared. */
  abstract store(documents: Document[], params: ChatParams): void | Promise<void>;

  /** The passages of `documents` that best answer `prompt`, best first. */
  abstract retrieve(
    documents: Document[],
    prompt: string,
    params: ChatParams,
  ): Source[] | Promise<Source[]>;

  /** Forgets what was stored for a chat; called when the chat is deleted. */
  delete(_params: ChatParams): void | Promise<void> {}

  /**
   * Forgets what was stored of one document for a chat; called when the
   * document is taken out of the chat. By default nothing: `retrieve` is only
   * ever given the chat's documents.
   */
  forget(_document: Document, _params: ChatParams): void | Promise<void> {}
}

/** What `Assistant.answer` gives: one string for a whole answer, several for a stream. */
export type AnswerChunks = Iterable<string> | AsyncIterable<string>;

/** Answers a prompt from sources. `answer` may be a plain or an async (generator) method. */
export abstract class Assistant extends Component {
  /** The answer, as chunks of text; `params.signal` aborts when it is no longer wanted. */
  abstract answer(
    prompt: string,
    sources: Source[],
    params: ChatParams,
  ): AnswerChunks | Promise<AnswerChunks>;

  /**
   * A follow-up question worded to stand alone, for retrieval to search for:
   * "And how do I thaw it?" after "How do I freeze bread?" asks "How do I
   * thaw frozen bread?". `params.history` holds the conversation before it.
   * `undefined` leaves the follow-up to retrieval's own rule, as this one
   * does; an assistant that calls a model asks it, in one short call.
   */
  standaloneQuestion(_prompt: string, _params: ChatParams): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }
}
