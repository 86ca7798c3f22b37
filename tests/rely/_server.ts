/**
 * `svc api` as a separate process for the reliability tests and the load
 * benchmark, configured with the test components of `_components.ts`, and a
 * client that speaks its REST API.
 * @module
 */
import { join } from "node:path";
import { freePort, startProcess, type SvcProcess } from "../_process.ts";
import { refuseInUnitTier } from "../_tier.ts";
import { svcToml } from "../test_utils.ts";

const COMPONENTS = new URL("./_components.ts", import.meta.url).href;

/** A running `svc api` process. */
export interface Svc extends SvcProcess {
  /** The API's URL. */
  base: string;
  /** The local root: `svc.db` and `documents/` are in it. */
  root: string;
}

/** Options of {@linkcode startSvc}. */
export interface StartSvcOptions {
  /** Extra environment variables of the process. */
  env?: Record<string, string>;
  /**
   * The port; pass the one of an earlier run to restart on the same URL.
   * @default {a free port}
   */
  port?: number;
}

/**
 * Starts `svc api` on loopback with its configuration and local root in
 * `dir`, the test assistant `./slow.ts#Slow` and source storage
 * `./slow.ts#SlowStorage`, and waits until `/health` answers. Starting again
 * in the same `dir` reuses the same database and documents. Refused in the
 * unit tier.
 */
export async function startSvc(dir: string, options: StartSvcOptions = {}): Promise<Svc> {
  refuseInUnitTier("svc api as a process");
  const port = options.port ?? freePort();
  await writeComponents(dir);
  const config = join(dir, "svc.toml");
  await Deno.writeTextFile(
    config,
    svcToml({ sourceStorage: "./slow.ts#SlowStorage", assistant: "./slow.ts#Slow", port }),
  );
  const base = `http://127.0.0.1:${port}`;
  const svc = await startProcess(["api", "-c", config], { health: base, env: options.env });
  return Object.assign(svc, { base, root: join(dir, "root") });
}

/**
 * Writes `<dir>/slow.ts`, which a configuration in `dir` names as the
 * assistant `./slow.ts#Slow` and the source storage `./slow.ts#SlowStorage`.
 */
export async function writeComponents(dir: string): Promise<void> {
  await Deno.writeTextFile(
    join(dir, "slow.ts"),
    `export { Numbered as Slow, SlowStorage } from ${JSON.stringify(COMPONENTS)};\n`,
  );
}

/** The resident memory of a process, in bytes, from `/proc`. */
export async function rss(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`No VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

/** Waits `ms` milliseconds, then settles with `undefined`. */
export function pause(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms));
}

/**
 * Polls `probe` every 20 ms until it returns a value, for at most `ms`
 * milliseconds: a guard against a hang, however busy the machine.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 120_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await pause(20);
  }
  throw new Error(`Gave up waiting for ${what}`);
}

// deno-lint-ignore no-explicit-any
type Json = any;

/** A client of the REST API logged in as one user. */
export class Client {
  readonly base: string;
  readonly #token: string;

  private constructor(base: string, token: string) {
    this.base = base;
    this.#token = token;
  }

  /**
   * Logs in to the API at `base` as `user`, by default with the name as password (which the demo
   * authentication takes).
   */
  static async login(base: string, user = "ada", password = user): Promise<Client> {
    const response = await fetch(`${base}/token`, {
      method: "POST",
      body: new URLSearchParams({ username: user, password }),
    });
    if (!response.ok) throw new Error(`Login failed: ${await response.text()}`);
    return new Client(base, await response.json());
  }

  /** The bearer token of this user's session, for requests made by hand. */
  get token(): string {
    return this.#token;
  }

  /** The same user on another base URL (after a restart on another port). */
  at(base: string): Client {
    return new Client(base, this.#token);
  }

  /** A request as this user; a body is sent as JSON. Throws on a status other than 2xx. */
  async call(method: string, path: string, body?: unknown): Promise<Json> {
    const response = await this.request(method, path, body);
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text);
  }

  /** A request as this user, whatever its status. */
  request(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    return fetch(`${this.base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  }

  /** Registers a document and uploads its content; returns the `Document`. */
  async upload(name: string, content: string | Uint8Array<ArrayBuffer>): Promise<Json> {
    const { parameters } = await this.call("POST", "/document", { name });
    const form = new FormData();
    for (const [key, value] of Object.entries(parameters.data)) form.set(key, value as string);
    form.set("file", new Blob([content]), name);
    const response = await fetch(parameters.url, { method: parameters.method, body: form });
    const text = await response.text();
    if (!response.ok) throw new Error(`Upload of ${name}: ${response.status} ${text}`);
    return JSON.parse(text);
  }

  /** Creates a chat over the documents with the test components. */
  createChat(name: string, documents: Json[], params: Record<string, unknown> = {}): Promise<Json> {
    return this.call("POST", "/chats", {
      name,
      source_storage: "Test/SlowStorage",
      assistant: "Test/Numbered",
      params,
      documents,
    });
  }

  /** Asks for a streamed answer and returns the response, whose lines come as they are written. */
  ask(chatId: string, prompt: string, signal?: AbortSignal): Promise<Response> {
    return this.request("POST", `/chats/${chatId}/answer`, { prompt, stream: true }, signal);
  }
}

/** The JSON lines of a streamed answer, as they arrive. */
export async function* lines(response: Response): AsyncGenerator<Json> {
  let buffer = "";
  for await (const text of response.body!.pipeThrough(new TextDecoderStream())) {
    buffer += text;
    let end: number;
    while ((end = buffer.indexOf("\n")) >= 0) {
      yield JSON.parse(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
    }
  }
  if (buffer.trim() !== "") yield JSON.parse(buffer);
}
