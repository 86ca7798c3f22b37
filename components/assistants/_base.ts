/**
 * The base of every assistant that calls a model, hosted or local.
 * @module
 */
import { z } from "zod";
import { Assistant } from "../core/component.ts";
import { envNumber } from "../core/env_number.ts";
import { quote, SvcError } from "../core/errors.ts";
import type { ChatParams, ParamSchema } from "../core/params.ts";
import { envVar, EnvVarRequirement, type Requirement } from "../core/requirements.ts";
import { secrets } from "../core/secrets.ts";
import type { Source } from "../core/source.ts";
import { type PromptParts, promptParts, standaloneOf, standaloneParts } from "./_prompt.ts";
import { streamAnswer } from "./_stream.ts";

/** What a model assistant asks its provider for. */
export interface ModelRequest {
  /** The model, as the provider names it. */
  model: string;
  /** The instruction, and the sources with the question. */
  prompt: PromptParts;
  /** The most tokens the answer may have: the `max_new_tokens` parameter. */
  maxNewTokens: number;
  /** Aborted when the call must stop at once: timeout, or the client went away. */
  signal: AbortSignal;
}

/** The environment variable of the time limit, in seconds. */
export const TIMEOUT_ENV = "SVC_ASSISTANT_TIMEOUT";

/** The environment variable of the time limit of the call for a standalone question, in seconds. */
export const FOLLOW_UP_TIMEOUT_ENV = "SVC_FOLLOW_UP_TIMEOUT";

/** The most tokens a standalone question may have: one question, not an answer. */
export const STANDALONE_TOKENS = 96;

/**
 * An assistant that calls a model. A provider's subclass sets `provider`,
 * `modelEnv` and `defaultModel`, lists its `requirements`, and implements
 * `stream()`: one call to the provider that yields the answer's texts (`""`
 * for an event without text) and throws a `ProviderError` for the provider's
 * errors (see `_http.ts` and `_errors.ts`). The base builds the prompt and
 * adds the time limit, the retries and the cancellation; the display name is
 * `<provider>/<model>`.
 *
 * A user pins another model with a subclass:
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OpenAI } from "@svc/svc/assistants";
 * class Gpt41 extends OpenAI {
 *   static override model = "gpt-4.1";
 * }
 * assert.equal(Gpt41.displayName, "OpenAI/gpt-4.1");
 * ```
 */
export abstract class ModelAssistant extends Assistant {
  /** The provider, as display names and messages name it: `OpenAI`. */
  static provider = "Model";
  /** The environment variable that names the model. */
  static modelEnv?: string;
  /** The model when neither `model` nor `modelEnv` names one. */
  static defaultModel = "";
  /** A model pinned by a subclass; it wins over `modelEnv`. */
  static model?: string;
  /** How many times to call the provider when it answers 429 or 5xx before any text. */
  static tries = 3;
  /** The first wait between two tries, in milliseconds, doubled after each; `Retry-After` wins. */
  static retryDelay = 1000;
  static override params: ParamSchema = { max_new_tokens: z.int().positive().default(256) };

  /** `<provider>/<model>`, with the model this class uses now. */
  static override get displayName(): string {
    const model = this.modelName();
    return model ? `${this.provider}/${model}` : this.provider;
  }

  /**
   * A configuration value: the environment variable `name`, blank counting as
   * unset. All configuration is read through here, when it is used; a test
   * subclass overrides this instead of changing the process's environment.
   */
  static env(name: string): string | undefined {
    return envVar(name)?.trim() || undefined;
  }

  /** The model this class uses: `model`, else the variable `modelEnv`, else `defaultModel`. */
  static modelName(): string {
    return this.model ?? (this.modelEnv && this.env(this.modelEnv)) ?? this.defaultModel;
  }

  /**
   * How long to wait for the first text and between two texts, in
   * milliseconds: `SVC_ASSISTANT_TIMEOUT` seconds, 60 by default.
   *
   * @throws {SvcError} when the variable is not a positive number
   */
  static timeout(): number {
    const env = { [TIMEOUT_ENV]: this.env(TIMEOUT_ENV) };
    return envNumber(TIMEOUT_ENV, { fallback: 60, unit: "seconds", env }) * 1000;
  }

  /**
   * How long the call for a standalone question may take in all, in
   * milliseconds: `SVC_FOLLOW_UP_TIMEOUT` seconds, 5 by default. Retrieval
   * waits for it, so it is short; past it, retrieval does without.
   *
   * @throws {SvcError} when the variable is not a positive number
   */
  static followUpTimeout(): number {
    const env = { [FOLLOW_UP_TIMEOUT_ENV]: this.env(FOLLOW_UP_TIMEOUT_ENV) };
    return envNumber(FOLLOW_UP_TIMEOUT_ENV, { fallback: 5, unit: "seconds", env }) * 1000;
  }

  /** A requirement of the variable `name`, read through {@linkcode ModelAssistant.env}. */
  protected static envRequirement(name: string): Requirement {
    return new ConfiguredEnvRequirement(name, this);
  }

  /** This assistant's class, for its configuration. */
  protected get config(): typeof ModelAssistant {
    return this.constructor as typeof ModelAssistant;
  }

  /**
   * The value of a variable this assistant reads when it calls its provider.
   * A key's value, and the user name, password and query of a URL's, are
   * registered as the process's secrets (see `secrets.ts`), so that no
   * message or log line shows them, however the provider echoes them.
   */
  protected setting(name: string): string | undefined {
    const value = this.config.env(name);
    secrets.addVariable(name, value);
    return value;
  }

  /**
   * The value of a variable this assistant cannot work without, as
   * {@linkcode ModelAssistant.setting} reads it.
   *
   * @throws {SvcError} when it is unset
   */
  protected required(name: string): string {
    const value = this.setting(name);
    if (value === undefined) {
      throw new SvcError(
        `${this.config.provider} needs the environment variable ${quote(name)}, which is unset`,
      );
    }
    return value;
  }

  /** One call to the provider: the answer's texts as they come. */
  protected abstract stream(request: ModelRequest): AsyncIterable<string>;

  /**
   * What a call needs loaded first, such as the provider's SDK: awaited
   * before the time limit starts, which is the provider's time to answer.
   */
  protected prepare(): Promise<unknown> {
    return Promise.resolve();
  }

  /**
   * The answer, streamed: see {@linkcode streamAnswer} for the time limit,
   * the retries and the cancellation by `params.signal`.
   */
  override async *answer(
    prompt: string,
    sources: Source[],
    params: ChatParams,
  ): AsyncGenerator<string> {
    const { config } = this;
    const model = config.modelName();
    const parts = await promptParts(prompt, sources, params.history);
    const maxNewTokens = typeof params.max_new_tokens === "number" ? params.max_new_tokens : 256;
    await this.prepare();
    yield* streamAnswer(
      (signal) => this.stream({ model, prompt: parts, maxNewTokens, signal }),
      {
        provider: config.provider,
        signal: params.signal,
        timeout: config.timeout(),
        tries: config.tries,
        retryDelay: config.retryDelay,
      },
    );
  }

  /**
   * The follow-up worded to stand alone by the model, in one call of a few
   * tokens, not tried again, within {@linkcode ModelAssistant.followUpTimeout}
   * in all: retrieval waits for it before it searches.
   *
   * @throws {SvcError} 504 when the time passed, else as the provider's
   * errors; retrieval then does without
   */
  override async standaloneQuestion(
    prompt: string,
    params: ChatParams,
  ): Promise<string | undefined> {
    const { config } = this;
    const model = config.modelName();
    const parts = await standaloneParts(prompt, params.history ?? []);
    const limit = config.followUpTimeout();
    await this.prepare();
    using time = deadline(limit, params.signal);
    let reply = "";
    for await (
      const text of streamAnswer(
        (signal) => this.stream({ model, prompt: parts, maxNewTokens: STANDALONE_TOKENS, signal }),
        // The deadline of the whole call, shorter, is the one that ends it.
        { provider: config.provider, signal: time.signal, timeout: config.timeout(), tries: 1 },
      )
    ) {
      reply += text;
    }
    if (time.passed()) {
      throw new SvcError(
        `${config.provider} did not word the follow-up question within ${seconds(limit)}`,
        { status: 504 },
      );
    }
    return params.signal?.aborted ? undefined : standaloneOf(reply);
  }
}

/** Milliseconds in seconds, as messages say them: `0.05 s`. */
function seconds(milliseconds: number): string {
  return `${Number((milliseconds / 1000).toFixed(3))} s`;
}

/** Aborts when `milliseconds` have passed or `signal` aborts; dispose of it to stop its timer. */
function deadline(milliseconds: number, signal: AbortSignal | undefined) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), milliseconds);
  const stop = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", stop, { once: true });
  if (signal?.aborted) stop();
  return {
    signal: controller.signal,
    passed: () => controller.signal.aborted && !signal?.aborted,
    [Symbol.dispose]: () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stop);
    },
  };
}

/** An environment variable as a model assistant's class reads it. */
class ConfiguredEnvRequirement extends EnvVarRequirement {
  constructor(name: string, private readonly owner: typeof ModelAssistant) {
    super(name);
  }

  override isAvailable(): Promise<boolean> {
    return Promise.resolve(this.owner.env(this.name) !== undefined);
  }
}
