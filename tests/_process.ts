/**
 * Child processes of the tests, in one place: every child has a deadline
 * that kills it and fails the test with what it wrote, its output is read
 * all along (a full pipe would block it), and a child that ends early is
 * noticed at once rather than waited for. `main.ts` runs as a separate
 * process for the tests that need a real server. The unit tier starts no
 * child (see `_tier.ts`).
 * @module
 */
import { refuseInUnitTier } from "./_tier.ts";

/** The repository: its deno.json maps the imports, wherever the tests run from. */
export const REPOSITORY: string = new URL("../", import.meta.url).pathname;

/** svc's entry point. */
export const MAIN = `${REPOSITORY}main.ts`;

/**
 * The flags that make a child Deno resolve npm packages as the tests do:
 * from the development lock, which a child must never change (deno.lock
 * holds only what the demo needs; see README, "Dependencies").
 */
export const LOCK_FLAGS: readonly string[] = [`--lock=${REPOSITORY}deno.dev.lock`, "--frozen"];

/** Fixed secrets, so that bearer and upload tokens survive a restart. */
export const SECRETS = {
  SVC_API_DOCUMENT_UPLOAD_SECRET: "u".repeat(32),
  SVC_DEMO_AUTHENTICATION_SECRET: "d".repeat(32),
};

/** How long a child may run before it is killed and its test fails, in milliseconds. */
export const DEFAULT_DEADLINE = 180_000;

/** A port on 127.0.0.1 that was free a moment ago. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

/** Options of {@linkcode spawn}. */
export interface SpawnOptions {
  /** @default {REPOSITORY} */
  cwd?: string;
  /** Environment variables of the child, over the test's own unless `clearEnv`. */
  env?: Record<string, string>;
  clearEnv?: boolean;
  /** @default {"null"} */
  stdin?: "null" | "piped";
  /**
   * After this many milliseconds the child is killed, and waiting for it
   * fails with what it wrote.
   * @default {DEFAULT_DEADLINE}
   */
  deadline?: number;
  /** Called with each piece of standard output as it comes, for a child spoken to through pipes. */
  onStdout?: (text: string) => void;
}

/** How a child ended, with what it wrote. */
export interface Ended extends Deno.CommandStatus {
  stdout: string;
  stderr: string;
}

/** A running child; disposing of it kills it. */
export interface Child extends AsyncDisposable {
  process: Deno.ChildProcess;
  /** What it wrote to standard output so far. */
  stdout(): string;
  /** What it wrote to standard error so far. */
  stderr(): string;
  /**
   * Its end, with all it wrote.
   * @throws {Error} with its command line and output when the deadline killed it
   */
  ended: Promise<Ended>;
  /** Sends `signal` unless it has ended, and waits for its end. */
  stop(signal?: Deno.Signal): Promise<Ended>;
}

/**
 * Starts `command` with its output read as it comes, under a deadline.
 * @throws {Error} in the unit tier, which starts no child
 */
export function spawn(command: string, args: readonly string[], options: SpawnOptions = {}): Child {
  refuseInUnitTier(`the child process "${[command, ...args].join(" ")}"`);
  const deadline = options.deadline ?? DEFAULT_DEADLINE;
  const process = new Deno.Command(command, {
    args: [...args],
    cwd: options.cwd ?? REPOSITORY,
    env: options.env,
    clearEnv: options.clearEnv,
    stdin: options.stdin ?? "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = collect(process.stdout, options.onStdout);
  const stderr = collect(process.stderr);
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    kill(process, "SIGKILL");
  }, deadline);
  const ended = process.status.then(async (status) => {
    clearTimeout(timer);
    await Promise.all([stdout.done, stderr.done]);
    const output = { ...status, stdout: stdout.text(), stderr: stderr.text() };
    if (killed) {
      throw new Error(
        `${command} ${args.join(" ")} did not end within ${deadline / 1000} s; it wrote:\n` +
          `${output.stdout}\n${output.stderr}`,
      );
    }
    return output;
  });
  // A test that never waits for the end still hears of a deadline through `stop()` or disposal.
  ended.catch(() => {});
  const child: Child = {
    process,
    stdout: stdout.text,
    stderr: stderr.text,
    ended,
    stop(signal = "SIGTERM") {
      kill(process, signal);
      return ended;
    },
    async [Symbol.asyncDispose]() {
      kill(process, "SIGKILL");
      await ended.catch(() => {});
    },
  };
  return child;
}

/**
 * Runs `command` to its end under a deadline.
 * @throws {Error} with its output when the deadline killed it
 */
export async function run(
  command: string,
  args: readonly string[],
  options: SpawnOptions = {},
): Promise<Ended> {
  return await spawn(command, args, options).ended;
}

/**
 * `deno run` and the flags that `deno task svc` runs `main.ts` with (deno.json's
 * `svc` task), and `--frozen`: a child started as a user starts svc, on
 * deno.lock, which it never writes.
 */
export function svcTaskArgs(): string[] {
  const { tasks } = JSON.parse(Deno.readTextFileSync(`${REPOSITORY}deno.json`));
  // The task runs on a copy of deno.lock, which the run may extend; a child here runs on
  // deno.lock itself, frozen.
  const [deno, ...args] = String(tasks.svc).split(" && ").at(-1)!.split(" ");
  if (deno !== "deno" || args.pop() !== "main.ts") {
    throw new Error(`deno.json's svc task is not "... && deno run ... main.ts": ${tasks.svc}`);
  }
  return [...args.map((arg) => arg.startsWith("--lock=") ? "--lock=deno.lock" : arg), "--frozen"];
}

/** `deno <subcommand> <LOCK_FLAGS> ...args`, for a child in the repository. */
export function denoArgs(subcommand: string, ...args: string[]): string[] {
  return [subcommand, ...LOCK_FLAGS, ...args];
}

/** Whether `url` answers 2xx right now; a refused connection is a no. */
export async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url);
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Waits until `url` answers 2xx. Fails at once when the child ends first,
 * and when its deadline kills it, with what it wrote.
 */
export async function waitForUrl(url: string, child: Child): Promise<void> {
  let over = false;
  const end = child.ended.then(
    (ended) => {
      throw new Error(
        `The child ended (code ${ended.code}) before ${url} answered:\n${ended.stderr}`,
      );
    },
    (error) => {
      throw error;
    },
  ).finally(() => over = true);
  end.catch(() => {});
  while (!over) {
    if (await answers(url)) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const pause = new Promise<void>((resolve) => timer = setTimeout(resolve, 100));
    await Promise.race([pause, end.catch(() => {})]);
    clearTimeout(timer);
  }
  await end;
}

/** A running svc process; disposing of it kills it. */
export interface SvcProcess extends AsyncDisposable {
  child: Deno.ChildProcess;
  /** What the process wrote to standard error so far. */
  stderr(): string;
  /** Sends `signal` and waits for the process to end; again, it only waits. */
  stop(signal?: Deno.Signal): Promise<Ended>;
}

/** Options of {@linkcode startProcess}. */
export interface StartProcessOptions {
  /** The base URL whose `/health` must answer once the process is ready. */
  health: string;
  /** Environment variables of the process, over {@linkcode SECRETS}. */
  env?: Record<string, string>;
  /** @default {DEFAULT_DEADLINE} */
  deadline?: number;
  /**
   * `deno run` and its flags, before `main.ts`.
   * @default {denoArgs("run", "-A")}
   */
  run?: readonly string[];
}

/**
 * Runs `deno run -A main.ts ...args` in the repository and waits until
 * `<health>/health` answers 2xx.
 *
 * @throws {Error} with what the process wrote, when it ended or its deadline
 * passed before it answered
 */
export async function startProcess(
  args: readonly string[],
  options: StartProcessOptions,
): Promise<SvcProcess> {
  const run = options.run ?? denoArgs("run", "-A");
  const child = spawn(Deno.execPath(), [...run, MAIN, ...args], {
    env: { ...SECRETS, ...options.env },
    deadline: options.deadline,
  });
  try {
    await waitForUrl(`${options.health}/health`, child);
  } catch (error) {
    await child[Symbol.asyncDispose]();
    throw new Error(
      `svc ${args[0]} did not answer at ${options.health}: ${(error as Error).message}`,
    );
  }
  return {
    child: child.process,
    stderr: child.stderr,
    stop: child.stop,
    [Symbol.asyncDispose]: child[Symbol.asyncDispose],
  };
}

function kill(process: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    process.kill(signal);
  } catch {
    // It has ended already: its status says how.
  }
}

function collect(
  stream: ReadableStream<Uint8Array>,
  onText?: (text: string) => void,
): { text: () => string; done: Promise<void> } {
  let text = "";
  const done = stream.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({
      write(chunk) {
        text += chunk;
        onText?.(chunk);
      },
    }),
  ).catch(() => {});
  return { text: () => text, done };
}
