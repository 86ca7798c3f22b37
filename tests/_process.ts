/**
 * `main.ts` as a separate process, for the tests that need a real server:
 * started on ports the test chose, with fixed secrets, its standard error
 * read all along (a full pipe would block its log lines), and waited for
 * until its `/health` answers.
 * @module
 */

/** The repository: its deno.json maps the imports, wherever the tests run from. */
export const REPOSITORY: string = new URL("../", import.meta.url).pathname;

/** svc's entry point. */
export const MAIN = `${REPOSITORY}main.ts`;

/** Fixed secrets, so that bearer and upload tokens survive a restart. */
export const SECRETS = {
  SVC_API_DOCUMENT_UPLOAD_SECRET: "u".repeat(32),
  SVC_DEMO_AUTHENTICATION_SECRET: "d".repeat(32),
};

/** A port on 127.0.0.1 that was free a moment ago. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

/** How a process ended, with what it wrote to standard error. */
export interface Stopped extends Deno.CommandStatus {
  stderr: string;
}

/** A running svc process; disposing of it kills it. */
export interface SvcProcess extends AsyncDisposable {
  child: Deno.ChildProcess;
  /** What the process wrote to standard error so far. */
  stderr(): string;
  /** Sends `signal` and waits for the process to end; again, it only waits. */
  stop(signal?: Deno.Signal): Promise<Stopped>;
}

/** Options of {@linkcode startProcess}. */
export interface StartProcessOptions {
  /** The base URL whose `/health` must answer once the process is ready. */
  health: string;
  /** Environment variables of the process, over {@linkcode SECRETS}. */
  env?: Record<string, string>;
  /**
   * How long the process may take to answer, in milliseconds.
   * @default {60000}
   */
  timeout?: number;
}

/**
 * Runs `deno run -A main.ts ...args` in the repository and waits until
 * `<health>/health` answers 2xx.
 *
 * @throws {Error} with what the process wrote to standard error, when it
 * ended or did not answer in time (it is killed then)
 */
export async function startProcess(
  args: readonly string[],
  options: StartProcessOptions,
): Promise<SvcProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    cwd: REPOSITORY,
    env: { ...SECRETS, ...options.env },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const drained = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (text) => void (stderr += text) }),
  ).catch(() => {});
  const svc: SvcProcess = {
    child,
    stderr: () => stderr,
    async stop(signal = "SIGTERM") {
      try {
        child.kill(signal);
      } catch {
        // It ended already.
      }
      const status = await child.status;
      await drained;
      return { ...status, stderr };
    },
    async [Symbol.asyncDispose]() {
      await svc.stop("SIGKILL");
    },
  };
  const deadline = Date.now() + (options.timeout ?? 60_000);
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${options.health}/health`);
      await response.body?.cancel();
      if (response.ok) return svc;
    } catch {
      // Not listening yet.
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const pause = new Promise<undefined>((resolve) =>
      timer = setTimeout(() => resolve(undefined), 100)
    );
    const exited = await Promise.race([child.status, pause]);
    clearTimeout(timer);
    if (exited) break;
  }
  await svc.stop("SIGKILL");
  throw new Error(`svc ${args[0]} did not answer at ${options.health}:\n${stderr}`);
}
