/**
 * Serves the REST API of a configuration: its components loaded, its
 * database opened, its port bound.
 * @module
 */
import { join } from "../components/core/paths.ts";
import { quote, SvcError } from "../components/core/errors.ts";
import { envNumber } from "../components/core/env_number.ts";
import { type Env, numberDefault, readEnv } from "./settings.ts";
import { embedderFromEnv } from "../components/embeddings/mod.ts";
import { localRoot } from "../components/core/local_root.ts";
import { pdfWorkers } from "../components/core/pdf_workers.ts";
import { addEnvironmentSecrets, secrets } from "../components/core/secrets.ts";
import { readerSettings } from "../components/core/reader_settings.ts";
import { createApi } from "./api/app.ts";
import { jsonLog, type Log, logLine } from "./log.ts";
import { UPLOAD_PREFIX } from "./api/upload.ts";
import { exposedDemo } from "./auth/exposure.ts";
import { passwordPool } from "./auth/password_hash.ts";
import { Sessions } from "./auth/sessions.ts";
import { trustedProxies } from "./auth/trusted_proxies.ts";
import { loadComponents } from "./components.ts";
import { type Config, withLocalhostTwins } from "./config.ts";
import { openDatabase } from "./database/mod.ts";
import { quotas } from "./quotas.ts";
import { requestLimits } from "./request_limits.ts";
import { serverStop, shutdownTimeout, Streams } from "./shutdown.ts";
import { answerLimits } from "./answer_limits.ts";
import { AnswerRuns } from "./api/answer_runs.ts";
import { signingKey } from "./signing_secret.ts";
import { UploadTokens } from "./upload_token.ts";

/** The default upload limit: 100 MiB. */
export const DEFAULT_MAX_UPLOAD_SIZE: number = numberDefault("SVC_API_MAX_UPLOAD_SIZE");

/** Options of {@linkcode serveApi}. */
export interface ServeApiOptions {
  /** Skip unavailable components with a warning instead of failing. */
  ignoreUnavailableComponents?: boolean;
  /** Where log lines go; standard error by default. */
  log?: Log;
  /**
   * Stops the server: it stops accepting connections, lets the requests in
   * flight finish for up to `shutdownTimeout` seconds, cuts off the answers
   * still streaming, then closes the database.
   */
  signal?: AbortSignal;
  /**
   * How long a stopping server waits for requests in flight, in seconds.
   * @default {env SVC_SHUTDOWN_TIMEOUT, else 10}
   */
  shutdownTimeout?: number;
  /**
   * The environment, read once at start: every setting of the server and of its sign-in comes
   * from here (see `settings.ts`).
   * @default {readEnv()}
   */
  env?: Env;
}

/** A running REST API. */
export interface RunningApi {
  /** Where it listens. */
  url: string;
  /** Settles when the server has stopped (see `signal`) and the database is closed. */
  finished: Promise<void>;
}

/** How long cut-off streams get to end before the database closes regardless, in milliseconds. */
const CUT_OFF_GRACE_MS = 2000;

/**
 * Makes the source storages' embedder as the environment sets it and asks whether it can run,
 * so that a mistyped model or server stops the start rather than each chat's preparing.
 *
 * @throws {SvcError} naming the setting and what is wrong with it
 */
async function checkEmbedder(env: Env): Promise<void> {
  const problem = await embedderFromEnv(env).problem?.();
  if (problem) throw new SvcError(problem);
}

/**
 * Starts the REST API of a configuration.
 *
 * @throws {SvcError} for an unavailable component, the demo sign-in on an
 * address other than loopback (unless allowed), a signing secret that is too
 * short, an unusable database, or a port that cannot be bound
 */
export async function serveApi(config: Config, options: ServeApiOptions = {}): Promise<RunningApi> {
  const env = options.env ?? readEnv();
  // Before anything can fail or log: no message or log line shows what these hold.
  addEnvironmentSecrets(definedValues(env));
  secrets.addUrl(config.api.databaseUrl);
  // Every line JSON, notices written as plain text included (see log.ts).
  const log = jsonLog(options.log ?? ((line: string) => console.error(line)));
  const warn = (message: string) => log(logLine("warn", message));
  const timeout = options.shutdownTimeout ?? shutdownTimeout(env.SVC_SHUTDOWN_TIMEOUT);
  const limits = requestLimits(env);
  const answering = answerLimits(env);
  const userQuotas = quotas(env);
  // Read when a document is, and checked here, so that a mistyped value stops svc rather than
  // each read.
  pdfWorkers(env);
  const passwords = passwordPool(env);
  await checkEmbedder(env);
  readerSettings(env);
  const proxies = trustedProxies(env.SVC_API_TRUSTED_PROXIES);
  localRoot(config.localRoot);
  await removeUnfinishedUploads(join(config.localRoot, "documents"), log);
  const components = await loadComponents(config, {
    ignoreUnavailable: options.ignoreUnavailableComponents,
    warn,
    notice: (message) => log(logLine("info", message)),
    env,
  });
  const exposed = exposedDemo(config, components.authentication.constructor);
  if (exposed) throw new SvcError(exposed);
  // Two secrets, so that one kind of token cannot be made with the other's
  // secret; their types and audiences keep them apart even when both are equal.
  const database = await openDatabase(config.api.databaseUrl, {
    localRoot: config.localRoot,
    base: config.base,
    authToken: env.SVC_API_DATABASE_AUTH_TOKEN,
  });
  // Replicas that share a database keep the secrets they make there, so that
  // each accepts the tokens of the others.
  const keep = database.keepSecret
    ? { where: `the database ${quote(database.name)}`, secret: database.keepSecret.bind(database) }
    : undefined;
  let sessionKey: Uint8Array;
  let uploadTokens: UploadTokens;
  try {
    sessionKey = await signingKey({
      env: ["SVC_API_SESSION_SECRET", "SVC_DEMO_AUTHENTICATION_SECRET"],
      variables: env,
      file: "session.key",
      localRoot: config.localRoot,
      log,
      keep,
    });
    uploadTokens = new UploadTokens({
      key: await signingKey({
        env: ["SVC_API_DOCUMENT_UPLOAD_SECRET"],
        variables: env,
        file: "upload.key",
        localRoot: config.localRoot,
        log,
        keep,
      }),
    });
    await components.authentication.setUp({
      sessions: new Sessions({ database, key: sessionKey, env }),
      database,
      warn,
      api: { url: config.api.url, origins: withLocalhostTwins(config.api.origins) },
    });
  } catch (error) {
    await database.close();
    throw error;
  }
  const answers = new AnswerRuns({
    database,
    log,
    timeout: answering.answerTimeout,
    saveInterval: answering.answerSaveInterval,
  });
  const app = createApi({
    ...components,
    answers,
    ...answering,
    configuration: await config.fingerprint(),
    url: config.api.url,
    localRoot: config.localRoot,
    database,
    uploadTokens,
    maxUploadSize: maxUploadSize(env),
    ...limits,
    ...userQuotas,
    trustedProxies: proxies,
    log,
  }, { rootPath: config.api.rootPath, origins: withLocalhostTwins(config.api.origins) });

  // No `signal` for Deno.serve: aborting it drops the connections in flight at
  // once, where `shutdown()` lets them finish.
  const streams = new Streams();
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: config.api.hostname,
      port: config.api.port,
      onListen() {},
    }, async (request, info) => streams.track(await app.fetch(request, info)));
  } catch (error) {
    await database.close();
    throw new SvcError(
      `Cannot serve the API on ${config.api.hostname}:${config.api.port}: ${
        (error as Error).message
      }`,
      { cause: error },
    );
  }
  // Kept while the server runs, so that no login waits for a worker to load.
  const releasePasswords = passwords.hold();
  const url = `http://${server.addr.hostname}:${server.addr.port}${config.api.rootPath}`;
  // What a process killed while it indexed left goes now, not at the first use of its storage.
  // A storage that keeps what a killed process left says so by a sweep() method (LibSQL's);
  // asked so rather than by its class, so that svc loads no storage module it was not given.
  for (const storage of components.sourceStorages) {
    const { sweep } = storage as { sweep?: () => Promise<unknown> };
    if (typeof sweep !== "function") continue;
    // Not waited for: a database on a server that does not answer must not keep svc from starting.
    sweep.call(storage).catch((error: Error) =>
      warn(`Cannot sweep the partial indexes of ${quote(storage.displayName)}: ${error.message}`)
    );
  }
  log(`svc API at ${url} (docs at ${url}/docs)`);
  const finished = (async () => {
    await aborted(options.signal);
    log(`svc API stopping: waiting up to ${timeout} s for the requests in flight`);
    const stopped = server.shutdown();
    // Answers run on whether or not a client follows them: they are waited for as well.
    const ended = Promise.all([stopped, answers.idle()]);
    // Capped at what setTimeout takes (about 24 days), which is forever here.
    if (!await settles(ended, Math.min(timeout * 1000, 2 ** 31 - 1))) {
      const running = Math.max(streams.size, answers.size);
      log(
        `Stopped waiting after ${timeout} s (SVC_SHUTDOWN_TIMEOUT): cutting off ` +
          `${running} ${running === 1 ? "answer" : "answers"} still streaming`,
      );
      streams.cutOff();
      // Stored as far as they were written, marked stopped, before the database closes.
      await settles(answers.stopAll(serverStop), CUT_OFF_GRACE_MS);
      // A request other than a stream (an upload, a whole answer) is left
      // behind: the process ends without it, as after a crash, which loses
      // nothing that was confirmed.
      await settles(stopped, CUT_OFF_GRACE_MS);
    }
    await database.close();
    releasePasswords();
    log("svc API stopped");
  })();
  return { url, finished };
}

/**
 * Removes the temporary files of uploads that a crash cut off. Only a running
 * upload writes one, and one API serves a local root, so at start-up every
 * such file is left over.
 */
async function removeUnfinishedUploads(folder: string, log: Log): Promise<void> {
  let removed = 0;
  try {
    for await (const entry of Deno.readDir(folder)) {
      if (!entry.isFile || !entry.name.startsWith(UPLOAD_PREFIX)) continue;
      await Deno.remove(join(folder, entry.name));
      removed++;
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw new SvcError(`Cannot clean up unfinished uploads in ${quote(folder)}: ${error}`, {
      cause: error,
    });
  }
  if (removed > 0) {
    log(`Removed ${removed} unfinished uploads that a crash left in ${quote(folder)}`);
  }
}

/** Settles when the signal aborts; never without a signal. */
function aborted(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return new Promise(() => {});
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true })
  );
}

/** Whether the promise settles within `ms` milliseconds. */
async function settles(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
  try {
    return await Promise.race([promise.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

function maxUploadSize(env: Env): number {
  return envNumber("SVC_API_MAX_UPLOAD_SIZE", {
    fallback: DEFAULT_MAX_UPLOAD_SIZE,
    unit: "bytes",
    env,
  });
}

/** The variables that are set. */
function definedValues(env: Env): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}
