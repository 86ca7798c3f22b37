import { Rag } from "../../../components/rag.ts";
import type { DocumentClass } from "../../../components/core/document.ts";
import type { Assistant, SourceStorage } from "../../../components/core/component.ts";
import { SvcDemoAssistant } from "../../../components/assistants/demo.ts";
import { SvcDemoSourceStorage } from "../../../components/source_storages/demo.ts";
import { createApi } from "../../../server/api/app.ts";
import { AnswerRuns, RunStop } from "../../../server/api/answer_runs.ts";
import type { ApiDeps } from "../../../server/api/env.ts";
import type { Authentication } from "../../../server/auth/authentication.ts";
import { SvcDemoAuthentication } from "../../../server/auth/demo.ts";
import { Sessions } from "../../../server/auth/sessions.ts";
import { type Database, openDatabase } from "../../../server/database/mod.ts";
import { logLine } from "../../../server/log.ts";
import { UploadTokens } from "../../../server/upload_token.ts";
import { tmpDir } from "../../test_utils.ts";
import { sharedCluster } from "../../_postgres.ts";

/** The secret of the test API's sessions. */
export const SESSION_SECRET = "s".repeat(32);

/** Options of {@linkcode testApi}. */
export interface TestApiOptions {
  sourceStorages?: SourceStorage[];
  assistants?: Assistant[];
  maxUploadSize?: number;
  maxChatsPerUser?: number;
  maxStoragePerUser?: number;
  rootPath?: string;
  /** @default {a SvcDemoAuthentication} */
  authentication?: Authentication;
  /** The sessions' clock. */
  now?: () => Date;
  /** The class of uploaded documents; the API's default when left out. */
  document?: DocumentClass;
  /** How long an answer may run, in milliseconds; the API's default when left out. */
  answerTimeout?: number;
  /** How often running answers are saved, in milliseconds; the API's default when left out. */
  answerSaveInterval?: number;
}

/** An API under test, with a client logged in as one user. */
export interface TestApi extends AsyncDisposable {
  app: ReturnType<typeof createApi>;
  deps: ApiDeps;
  logs: string[];
  /** Calls the API as the logged-in user; a plain object body is sent as JSON. */
  call(method: string, path: string, body?: unknown, headers?: HeadersInit): Promise<Response>;
  /** Registers and uploads a document, following the returned parameters. */
  upload(
    name: string,
    content: string | Uint8Array<ArrayBuffer>,
    // deno-lint-ignore no-explicit-any
  ): Promise<{ registered: any; response: Response; document: any }>;
  /** Logs in as another user. */
  as(user: string): Promise<void>;
  /** Each replica of a replica set, to call one of them on purpose; none for a single API. */
  replicas?: TestApi[];
}

let replicas = 0;

/**
 * Makes every later {@linkcode testApi} of this test file a replica set:
 * `count` APIs, each with a local root of its own, on one fresh PostgreSQL
 * database of the file's cluster, with the client's calls going to each in
 * turn (an upload's registration and its file to two of them). `deps` and
 * `app` are the first replica's.
 */
export function useReplicaSet(count: number): void {
  replicas = count;
}

/**
 * An API over an in-memory database in a temporary local root, with a client
 * that logs in; a replica set after {@linkcode useReplicaSet}.
 */
export async function testApi(options: TestApiOptions = {}): Promise<TestApi> {
  if (replicas > 0) return await replicaSet(replicas, options);
  const dir = await tmpDir();
  const database = await openDatabase("sqlite://", { localRoot: dir.path });
  return await singleApi(dir, database, options);
}

async function singleApi(
  dir: AsyncDisposable & { path: string },
  database: Database,
  options: TestApiOptions,
  uploadTokens = new UploadTokens(),
): Promise<TestApi> {
  const logs: string[] = [];
  const authentication = options.authentication ?? new SvcDemoAuthentication();
  await authentication.setUp({
    sessions: new Sessions({ database, key: SESSION_SECRET, now: options.now }),
    database,
    warn: (message) => logs.push(logLine("warn", message)),
  });
  const deps: ApiDeps = {
    url: `http://svc.test${options.rootPath ?? ""}`,
    localRoot: dir.path,
    database,
    authentication,
    document: options.document,
    sourceStorages: options.sourceStorages ?? [new SvcDemoSourceStorage()],
    assistants: options.assistants ?? [new SvcDemoAssistant()],
    rag: new Rag(),
    uploadTokens,
    maxUploadSize: options.maxUploadSize ?? 1024 * 1024,
    maxChatsPerUser: options.maxChatsPerUser,
    maxStoragePerUser: options.maxStoragePerUser,
    answerTimeout: options.answerTimeout,
    answerSaveInterval: options.answerSaveInterval,
    log: (line) => logs.push(line),
  };
  deps.answers = new AnswerRuns({
    database,
    log: deps.log,
    timeout: options.answerTimeout,
    saveInterval: options.answerSaveInterval,
  });
  const app = createApi(deps, { rootPath: options.rootPath, origins: ["http://127.0.0.1:31477"] });
  const base = `http://svc.test${options.rootPath ?? ""}`;

  async function login(user = "ada"): Promise<string> {
    const response = await app.request(`${base}/token`, {
      method: "POST",
      body: new URLSearchParams({ username: user, password: user }),
    });
    return await response.json();
  }
  let token = await login();

  /** Calls the API as the logged-in user; a plain object body is sent as JSON. */
  async function call(method: string, path: string, body?: unknown, headers: HeadersInit = {}) {
    const init: RequestInit = {
      method,
      headers: { authorization: `Bearer ${token}`, ...headers },
    };
    if (body instanceof FormData || typeof body === "string") init.body = body;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] = "application/json";
    }
    return await app.request(path.startsWith("http") ? path : `${base}${path}`, init);
  }

  /** Registers and uploads a document, following the returned parameters. */
  async function upload(name: string, content: string | Uint8Array<ArrayBuffer>) {
    const registered = await (await call("POST", "/document", { name })).json();
    const form = new FormData();
    for (const [key, value] of Object.entries(registered.parameters.data)) {
      form.set(key, value as string);
    }
    form.set("file", new Blob([content]), name);
    const response = await app.request(registered.parameters.url, {
      method: registered.parameters.method,
      body: form,
    });
    return { registered, response, document: await response.json() };
  }

  return {
    app,
    deps,
    logs,
    call,
    upload,
    async as(user: string) {
      token = await login(user);
    },
    async [Symbol.asyncDispose]() {
      // An answer still running when the test ends is stopped and stored before the database goes.
      await deps.answers!.stopAll(() =>
        new RunStop("The test ended", { outcome: "stopped", status: 503, told: true })
      );
      await database.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** {@linkcode testApi} as `count` replicas on one PostgreSQL database. */
async function replicaSet(count: number, options: TestApiOptions): Promise<TestApi> {
  const cluster = await sharedCluster();
  const database = await cluster.database();
  const key = crypto.getRandomValues(new Uint8Array(32));
  const apis: TestApi[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const dir = await tmpDir();
      const db = await openDatabase(database.url, { localRoot: dir.path });
      // Each replica its own components, as separate processes have.
      apis.push(
        await singleApi(dir, db, {
          ...options,
          sourceStorages: options.sourceStorages ?? [new SvcDemoSourceStorage()],
          assistants: options.assistants ?? [new SvcDemoAssistant()],
          authentication: options.authentication ?? new SvcDemoAuthentication(),
        }, new UploadTokens({ key })),
      );
    }
  } catch (error) {
    for (const api of apis) await api[Symbol.asyncDispose]();
    await cluster.drop(database);
    throw error;
  }
  let turn = 0;
  const next = () => apis[turn++ % apis.length]!;
  const first = apis[0]!;
  return {
    app: first.app,
    deps: first.deps,
    logs: first.logs,
    replicas: apis,
    call: (...args) => next().call(...args),
    async upload(name, content) {
      const registered = await (await next().call("POST", "/document", { name })).json();
      const form = new FormData();
      for (const [key, value] of Object.entries(registered.parameters.data)) {
        form.set(key, value as string);
      }
      form.set("file", new Blob([content]), name);
      const to = next();
      const response = await to.app.request(`${to.deps.url}/document`, {
        method: registered.parameters.method,
        body: form,
      });
      return { registered, response, document: await response.clone().json() };
    },
    async as(user) {
      await Promise.all(apis.map((api) => api.as(user)));
    },
    async [Symbol.asyncDispose]() {
      for (const api of apis) await api[Symbol.asyncDispose]();
      await cluster.drop(database);
    },
  };
}
