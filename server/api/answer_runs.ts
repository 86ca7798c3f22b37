/**
 * Answers that run to their end on the server, whatever their client does:
 * an answer is read from its assistant by a run of its own, which the
 * requests follow (the one that asked, and any other that comes to watch it)
 * and which goes on when they leave. Only a stop ends it early: the user's
 * (`POST /chats/{id}/stop`, on any replica), its time limit, or the server
 * stopping. While it runs, its message is stored as "streaming" with its text
 * so far, saved at most once per save interval; its end is stored once.
 * @module
 */
import type { Chat } from "../../components/core/chat.ts";
import { SvcError } from "../../components/core/errors.ts";
import { Message, MessageRole } from "../../components/core/message.ts";
import type { Database, NewMessage } from "../database/mod.ts";
import { type Log, logLine } from "../log.ts";
import { numberDefault } from "../settings.ts";
import { chatTitle } from "./chat_title.ts";
import { Citations } from "./citations.ts";
import { messageRecord } from "./records.ts";
import type * as api from "./schemas.ts";

/** How long an answer may run in all by default, in seconds: `SVC_API_ANSWER_TIMEOUT`. */
export const DEFAULT_ANSWER_TIMEOUT: number = numberDefault("SVC_API_ANSWER_TIMEOUT");

/**
 * How often, by default, in seconds, the text so far of the answers being written is saved,
 * and stops asked on other replicas are read: `SVC_API_ANSWER_SAVE_INTERVAL`.
 */
export const DEFAULT_ANSWER_SAVE_INTERVAL: number = numberDefault("SVC_API_ANSWER_SAVE_INTERVAL");

/**
 * How long a run's lease lasts at least, in milliseconds: a replica renews the leases of its runs
 * as it saves them, so that the answer of a replica that died is told as failed once it passed.
 */
const MIN_LEASE = 30_000;

/** Why a run ended early: what it is stored as, and what its clients are told. */
export class RunStop extends SvcError {
  /** Stored as `stopped` (a stop of the user or of the server) or `failed` (its time limit). */
  readonly outcome: "stopped" | "failed";
  /** Whether the reason is stored with the answer, for whoever reads it later. */
  readonly told: boolean;

  constructor(
    message: string,
    options: { outcome: "stopped" | "failed"; status: number; told: boolean },
  ) {
    super(message, { status: options.status });
    this.outcome = options.outcome;
    this.told = options.told;
  }
}

/** The user's stop: `POST /chats/{id}/stop`. */
export function userStop(): RunStop {
  return new RunStop("The answer was stopped before it was complete", {
    outcome: "stopped",
    status: 409,
    told: false,
  });
}

/** How an answer ended. */
export type RunOutcome =
  | { status: "complete" }
  | { status: "stopped"; error: SvcError }
  | { status: "failed"; error: unknown };

/** What a run answers. */
export interface RunSpec {
  chat: Chat;
  user: string;
  prompt: string;
  /**
   * The id of the stored question whose answer is written again: it is not stored again.
   * @default {a new question, stored with the answer}
   */
  asked?: string;
  /** The request that started it, for its log lines. */
  requestId: string;
}

/** Options of {@linkcode AnswerRuns}. */
export interface AnswerRunsOptions {
  database: Database;
  log: Log;
  /**
   * How long an answer may run in all, in milliseconds.
   * @default {DEFAULT_ANSWER_TIMEOUT * 1000}
   */
  timeout?: number;
  /**
   * How often the text so far is saved and stops are read, in milliseconds.
   * @default {DEFAULT_ANSWER_SAVE_INTERVAL * 1000}
   */
  saveInterval?: number;
}

/**
 * The answers this process is writing.
 *
 * Writes are bounded: a run is stored once when it starts (its question with
 * it) and once when it ends; in between, all runs together cost at most one
 * write per save interval, made only when some text grew or a lease is due,
 * and otherwise one read of the stops asked.
 */
export class AnswerRuns {
  readonly #database: Database;
  readonly #log: Log;
  readonly #timeout: number;
  readonly #saveInterval: number;
  readonly #lease: number;
  readonly #runs = new Set<AnswerRun>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #tick: Promise<void> = Promise.resolve();
  #closed = false;
  /** How many saves ran with answers to save: each a write or a read. */
  ticks = 0;
  /** How many of them wrote (text that grew, or leases due). */
  saves = 0;

  constructor(options: AnswerRunsOptions) {
    this.#database = options.database;
    this.#log = options.log;
    this.#timeout = options.timeout ?? DEFAULT_ANSWER_TIMEOUT * 1000;
    this.#saveInterval = options.saveInterval ?? DEFAULT_ANSWER_SAVE_INTERVAL * 1000;
    this.#lease = Math.max(MIN_LEASE, 10 * this.#saveInterval);
  }

  /** How many answers run now. */
  get size(): number {
    return this.#runs.size;
  }

  /** The running answer whose message has the id, if this process writes it. */
  get(id: string): AnswerRun | undefined {
    for (const run of this.#runs) if (run.head?.id === id) return run;
    return undefined;
  }

  /**
   * Starts answering; the run goes on by itself until its end. Settles, with
   * the run, once its answer is stored (or refused, or failed before it was).
   */
  start(spec: RunSpec): AnswerRun {
    if (this.#closed) {
      throw new SvcError("The server is stopping: ask again once it is back", { status: 503 });
    }
    const run = new AnswerRun(spec, {
      database: this.#database,
      log: this.#log,
      timeout: this.#timeout,
      until: () => Date.now() + this.#lease,
    });
    this.#runs.add(run);
    this.#schedule();
    void run.done.finally(() => {
      this.#runs.delete(run);
      if (this.#runs.size === 0) this.#unschedule();
    });
    return run;
  }

  /** This process's running answers of the user's chat. */
  running(user: string, chatId: string): AnswerRun[] {
    return [...this.#runs].filter((run) => run.chatId === chatId && run.user === user);
  }

  /**
   * Stops this process's running answers of the user's chat, at once, and
   * waits until each is stored as stopped. How many there were.
   */
  async stopChat(user: string, chatId: string, reason: () => SvcError = userStop): Promise<number> {
    const stopped = this.running(user, chatId);
    for (const run of stopped) run.stop(reason());
    await Promise.all(stopped.map((run) => run.done));
    return stopped.length;
  }

  /**
   * Stops every running answer with `reason` and waits until each is stored;
   * no answer starts after it.
   */
  async stopAll(reason: () => SvcError): Promise<void> {
    this.#closed = true;
    for (const run of this.#runs) run.stop(reason());
    await this.idle();
  }

  /** Settles once no answer runs, and no save is under way. */
  async idle(): Promise<void> {
    while (this.#runs.size > 0) await Promise.all([...this.#runs].map((run) => run.done));
    await this.#tick;
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#tick = this.#save().finally(() => {
        if (this.#runs.size > 0) this.#schedule();
      });
    }, this.#saveInterval);
  }

  #unschedule(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Saves what grew of the stored runs, renews the leases that are due, and
   * stops the runs whose stop was asked elsewhere (or whose chat went).
   */
  async #save(): Promise<void> {
    const now = Date.now();
    const stored = [...this.#runs].filter((run) => run.head && !run.ended);
    if (stored.length === 0) return;
    this.ticks++;
    const progress = stored.flatMap((run) => run.progress(now, this.#lease));
    try {
      let stops: string[];
      if (progress.length > 0) {
        const until = now + this.#lease;
        stops = await this.#database.saveAnswers(progress, { until, now });
        this.saves++;
        for (const run of stored) run.saved(progress, now);
      } else {
        stops = await this.#database.stopsAsked(stored.map((run) => run.head!.id));
      }
      for (const run of stored) if (stops.includes(run.head!.id)) run.stop(userStop());
    } catch (error) {
      // Tried again at the next tick; the run goes on meanwhile.
      this.#log(
        logLine("warn", `Cannot save the answers being written: ${(error as Error).message}`),
      );
    }
  }
}

/** What a run needs of its registry. */
interface RunDeps {
  database: Database;
  log: Log;
  /** How long it may run, in milliseconds. */
  timeout: number;
  /** The end of a lease that starts now. */
  until: () => number;
}

/** One answer being written, as its followers read it. */
export class AnswerRun {
  readonly chatId: string;
  readonly user: string;
  /** The answer's message without its text: set once it is stored. */
  head: api.Message | undefined;
  /** The text so far, chunk by chunk as the assistant gave it. */
  readonly chunks: string[] = [];
  /** How it ended, once it did. */
  outcome: RunOutcome | undefined;
  /**
   * Settles once the answer is stored and has its first chunk or its end;
   * rejects with what a request answers when it ended before it was stored.
   */
  readonly started: Promise<void>;
  /** Settles once the run ended and its end is stored (or could not be). */
  readonly done: Promise<void>;
  readonly #cancel = new AbortController();
  #citations: Citations | undefined;
  #changed = Promise.withResolvers<void>();
  #savedChunks = 0;
  #leaseRenewed = 0;

  constructor(spec: RunSpec, deps: RunDeps) {
    this.chatId = spec.chat.id;
    this.user = spec.user;
    const started = Promise.withResolvers<void>();
    this.started = started.promise;
    // Handled by whoever awaits it; a run nobody waits for must not be an unhandled rejection.
    this.started.catch(() => {});
    this.done = this.#run(spec, deps, started).finally(() => {
      started.resolve();
      this.#notify();
    });
  }

  /** Whether it ended. */
  get ended(): boolean {
    return this.outcome !== undefined;
  }

  /** The text so far. */
  get content(): string {
    return this.chunks.join("");
  }

  /** The sources its text cites so far. */
  get citations(): number[] {
    return this.#citations?.cited ?? [];
  }

  /** The message as far as it was written. */
  record(): api.Message {
    return { ...this.head!, content: this.content, citations: this.citations };
  }

  /** Settles at its next chunk or its end. */
  changed(): Promise<void> {
    return this.#changed.promise;
  }

  /** Ends it early with `reason`, unless it ended already. */
  stop(reason: SvcError): void {
    if (!this.#cancel.signal.aborted) this.#cancel.abort(reason);
  }

  /** What a save writes of it: its text when it grew, else its lease when due. */
  progress(now: number, lease: number): { id: string; content?: string; citations?: number[] }[] {
    const id = this.head!.id;
    if (this.chunks.length > this.#savedChunks) {
      return [{ id, content: this.content, citations: this.citations }];
    }
    return now - this.#leaseRenewed >= lease / 3 ? [{ id }] : [];
  }

  /** Records that `progress` was saved at `now`. */
  saved(progress: { id: string; content?: string }[], now: number): void {
    const mine = progress.find((each) => each.id === this.head?.id);
    if (!mine) return;
    this.#leaseRenewed = now;
    if (mine.content !== undefined) this.#savedChunks = this.chunks.length;
  }

  #notify(): void {
    const changed = this.#changed;
    this.#changed = Promise.withResolvers();
    changed.resolve();
  }

  async #run(
    spec: RunSpec,
    deps: RunDeps,
    started: PromiseWithResolvers<void>,
  ): Promise<void> {
    const { chat, user, prompt, asked } = spec;
    const { signal } = this.#cancel;
    const timer = setTimeout(() => this.stop(timedOut(deps.timeout)), deps.timeout);
    try {
      const question = asked === undefined
        ? messageRecord(new Message(prompt, { role: MessageRole.USER }))
        : undefined;
      const questionId = asked ?? question!.id;
      let answer: Message;
      try {
        answer = await chat.answer(prompt, { stream: true, signal });
      } catch (error) {
        // A chat not prepared refuses the question unread; else the question is kept, with an
        // answer that says it ended.
        if (!chat.prepared) throw error;
        const outcome = this.#ending(error);
        const empty = messageRecord(new Message("", { role: MessageRole.ASSISTANT }));
        await this.#keep(deps, spec, [
          ...(question ? [question] : []),
          { ...empty, ...stored(outcome, spec), question: questionId },
        ]);
        this.head = empty;
        this.outcome = outcome;
        if (outcome.status === "failed") started.reject(outcome.error);
        return;
      }
      const chunks = answer[Symbol.asyncIterator]();
      const head = messageRecord(answer, "");
      // A marker may be cut between chunks, so the citations are read across them.
      this.#citations = new Citations(head.sources.length);
      try {
        // The question and the answer so far in one write: both are kept, or neither.
        await deps.database.addMessages(user, chat.id, [
          ...(question ? [question] : []),
          { ...head, question: questionId, runsUntil: deps.until() },
        ]);
      } catch (error) {
        await chunks.return?.().catch(() => {});
        throw error;
      }
      this.#leaseRenewed = Date.now();
      this.head = head;
      if (question && chat.name === "") await this.#title(deps, spec, question);
      this.outcome = await this.#read(chunks, signal, started, (error) => {
        deps.log(logLine(
          "error",
          `The assistant failed as its answer was stopped: ${(error as Error).message ?? error}`,
          { request_id: spec.requestId, stack: (error as Error).stack ?? String(error) },
        ));
      });
      await this.#finish(deps, spec);
      if (this.outcome.status === "failed" && this.chunks.length === 0) {
        started.reject(this.outcome.error);
      }
    } catch (error) {
      this.outcome = { status: "failed", error };
      started.reject(error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Reads the chunks until the end or a stop; a stop ends the reading at once. */
  async #read(
    chunks: AsyncIterator<string>,
    signal: AbortSignal,
    started: PromiseWithResolvers<void>,
    failing: (error: unknown) => void,
  ): Promise<RunOutcome> {
    const stopped = new Promise<"stopped">((resolve) => {
      if (signal.aborted) resolve("stopped");
      signal.addEventListener("abort", () => resolve("stopped"), { once: true });
    });
    try {
      while (!signal.aborted) {
        const next = await Promise.race([chunks.next(), stopped]);
        if (next === "stopped") break;
        if (next.done) break;
        this.chunks.push(next.value);
        this.#citations!.read(next.value);
        started.resolve();
        this.#notify();
      }
    } catch (error) {
      // An assistant that fails as it is told to stop was stopped.
      return signal.aborted ? this.#ending(signal.reason) : { status: "failed", error };
    } finally {
      // Told to end, the assistant ends on its own time; a failure as it does is logged.
      if (signal.aborted) {
        void Promise.resolve().then(() => chunks.return?.()).catch((error) => {
          failing(error);
        });
      }
    }
    // An assistant that ends quietly when told to stop has not finished its answer.
    return signal.aborted ? this.#ending(signal.reason) : { status: "complete" };
  }

  /** The outcome of an end that came from `error`, or from a stop. */
  #ending(error: unknown): RunOutcome {
    const reason = this.#cancel.signal.aborted ? this.#cancel.signal.reason : error;
    if (reason instanceof RunStop) {
      return reason.outcome === "stopped"
        ? { status: "stopped", error: reason }
        : { status: "failed", error: reason };
    }
    return { status: "failed", error: reason };
  }

  /** Stores the end; a failure to store it is the run's failure, logged. */
  async #finish(deps: RunDeps, spec: RunSpec): Promise<void> {
    const outcome = this.outcome!;
    try {
      await deps.database.finishAnswer({
        id: this.head!.id,
        content: this.content,
        citations: this.citations,
        ...stored(outcome, spec),
      });
    } catch (error) {
      deps.log(logLine("error", `Cannot keep the answer: ${(error as Error).message}`, {
        request_id: spec.requestId,
      }));
      if (outcome.status === "complete") this.outcome = { status: "failed", error };
      return;
    }
    // A failure before the first chunk is the request's error, logged as such.
    if (outcome.status === "failed" && this.chunks.length > 0) {
      logFailure(deps.log, outcome.error, spec.requestId);
    }
  }

  /** Stores messages of an answer that ended before it began; a failure is logged. */
  async #keep(deps: RunDeps, spec: RunSpec, messages: NewMessage[]): Promise<void> {
    try {
      await deps.database.addMessages(spec.user, spec.chat.id, messages);
    } catch (error) {
      deps.log(logLine("error", `Cannot keep the unfinished answer: ${(error as Error).message}`, {
        request_id: spec.requestId,
      }));
    }
  }

  /** A chat without a name yet takes its title from its first question. */
  async #title(deps: RunDeps, spec: RunSpec, question: api.Message): Promise<void> {
    try {
      await deps.database.titleChat(spec.user, spec.chat.id, chatTitle(question.content));
    } catch (error) {
      deps.log(logLine("warn", `Cannot title the chat: ${(error as Error).message}`, {
        request_id: spec.requestId,
      }));
    }
  }
}

/** What an answer's end stores besides its text: its status, and why. */
function stored(
  outcome: RunOutcome,
  spec: RunSpec,
): { status?: "stopped" | "failed"; error?: string } {
  if (outcome.status === "complete") return {};
  const { error } = outcome;
  if (error instanceof RunStop && !error.told) return { status: outcome.status };
  return { status: outcome.status, error: publicMessage(error, spec.requestId) };
}

/** What a client is told of an error: its sentence, or that a bug was logged. */
export function publicMessage(error: unknown, requestId: string): string {
  return error instanceof SvcError
    ? error.message
    : `Something went wrong on the server (request ${requestId}); it has been logged`;
}

/** Logs a failure that is the server's (a 5xx, or a bug), once. */
function logFailure(log: Log, error: unknown, requestId: string): void {
  if (error instanceof SvcError && (error.status < 500 || error instanceof RunStop)) return;
  log(logLine("error", `The answer stream failed: ${(error as Error).message ?? error}`, {
    request_id: requestId,
    ...(error instanceof SvcError
      ? { status: error.status }
      : { stack: (error as Error).stack ?? String(error) }),
  }));
}

/** The stop of an answer past its time limit. */
function timedOut(timeout: number): RunStop {
  return new RunStop(
    `The answer took longer than ${timeout / 1000} s, the longest an answer may run ` +
      "(SVC_API_ANSWER_TIMEOUT)",
    { outcome: "failed", status: 504, told: true },
  );
}
