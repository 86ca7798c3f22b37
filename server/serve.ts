/**
 * Serves the REST API of a configuration: its components loaded, its
 * database opened, its port bound.
 * @module
 */
import { SvcError } from "../components/core/errors.ts";
import { envVar } from "../components/core/requirements.ts";
import { localRoot } from "../components/core/local_root.ts";
import { createApi } from "./api/app.ts";
import type { Log } from "./api/errors.ts";
import { SvcDemoAuthentication } from "./auth.ts";
import { loadComponents } from "./components.ts";
import { type Config, withLocalhostTwins } from "./config.ts";
import { openDatabase } from "./database/mod.ts";
import { UploadTokens } from "./upload_token.ts";

/** The default upload limit: 100 MiB. */
export const DEFAULT_MAX_UPLOAD_SIZE = 100 * 1024 * 1024;

/** Options of {@linkcode serveApi}. */
export interface ServeApiOptions {
  /** Skip unavailable components with a warning instead of failing. */
  ignoreUnavailableComponents?: boolean;
  /** Where log lines go; standard error by default. */
  log?: Log;
  /** Stops the server: it finishes the requests in flight, then closes the database. */
  signal?: AbortSignal;
}

/** A running REST API. */
export interface RunningApi {
  /** Where it listens. */
  url: string;
  /** Settles when the server has stopped and the database is closed. */
  finished: Promise<void>;
}

/**
 * Starts the REST API of a configuration.
 *
 * @throws {SvcError} for an unavailable component, an unusable database, or a
 * port that cannot be bound
 */
export async function serveApi(config: Config, options: ServeApiOptions = {}): Promise<RunningApi> {
  const log = options.log ?? ((line: string) => console.error(line));
  localRoot(config.localRoot);
  const components = await loadComponents(config, {
    ignoreUnavailable: options.ignoreUnavailableComponents,
    warn: log,
  });
  if (components.authentication instanceof SvcDemoAuthentication) {
    log(components.authentication.notice);
  }
  const uploadTokens = new UploadTokens();
  if (uploadTokens.randomSecret) {
    log(
      "SVC_API_DOCUMENT_UPLOAD_SECRET is not set: upload tokens are signed with a random " +
        "secret and stop working when the API restarts",
    );
  }
  const database = await openDatabase(config.api.databaseUrl, {
    localRoot: config.localRoot,
    base: config.base,
  });
  const app = createApi({
    ...components,
    url: config.api.url,
    localRoot: config.localRoot,
    database,
    uploadTokens,
    maxUploadSize: maxUploadSize(),
    log,
  }, { rootPath: config.api.rootPath, origins: withLocalhostTwins(config.api.origins) });

  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: config.api.hostname,
      port: config.api.port,
      signal: options.signal,
      onListen() {},
    }, app.fetch);
  } catch (error) {
    await database.close();
    throw new SvcError(
      `Cannot serve the API on ${config.api.hostname}:${config.api.port}: ${
        (error as Error).message
      }`,
      { cause: error },
    );
  }
  const url = `http://${server.addr.hostname}:${server.addr.port}${config.api.rootPath}`;
  log(`svc API at ${url} (docs at ${url}/docs)`);
  const finished = server.finished.then(() => database.close());
  return { url, finished };
}

function maxUploadSize(): number {
  const value = envVar("SVC_API_MAX_UPLOAD_SIZE");
  if (value === undefined) return DEFAULT_MAX_UPLOAD_SIZE;
  const size = Number(value);
  if (!Number.isSafeInteger(size) || size <= 0) {
    throw new SvcError(
      `SVC_API_MAX_UPLOAD_SIZE must be a positive number of bytes, not ${JSON.stringify(value)}`,
    );
  }
  return size;
}
