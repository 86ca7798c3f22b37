/**
 * What every route of the REST API gets: the API's dependencies and the
 * request's own variables.
 * @module
 */
import type { Assistant, SourceStorage } from "../../components/core/component.ts";
import type { DocumentClass } from "../../components/core/document.ts";
import type { Rag } from "../../components/rag.ts";
import type { ApiKeys } from "../auth/api_keys.ts";
import type { Authentication } from "../auth/authentication.ts";
import type { TrustedProxies } from "../auth/trusted_proxies.ts";
import type { Database } from "../database/mod.ts";
import type { UploadTokens } from "../upload_token.ts";
import type { Log } from "../log.ts";
import type { AnswerRuns } from "./answer_runs.ts";

/** What the REST API is made of. */
export interface ApiDeps {
  /** The URL clients reach the API at, root path included; upload URLs start with it. */
  url: string;
  /** Where uploaded documents are kept (under `documents/`). */
  localRoot: string;
  database: Database;
  authentication: Authentication;
  /**
   * The API keys, accepted as bearers on every protected route.
   * @default {the keys in `database`}
   */
  apiKeys?: ApiKeys;
  /**
   * The class of every uploaded document, made with the upload's file as
   * `metadata.path` (the configuration's `document`).
   * @default {LocalDocument}
   */
  document?: DocumentClass;
  /**
   * The fingerprint of the configuration served (`Config.fingerprint`), sent with `/health` as
   * the header `Svc-Configuration`.
   */
  configuration?: string;
  /** The source storages users may choose, in configuration order. */
  sourceStorages: SourceStorage[];
  /** The assistants users may choose, in configuration order. */
  assistants: Assistant[];
  rag: Rag;
  uploadTokens: UploadTokens;
  /** The largest upload, in bytes. */
  maxUploadSize: number;
  /**
   * How long a request body may send nothing before it is cut with a 408, in milliseconds.
   * @default {30000}
   */
  bodyTimeout?: number;
  /**
   * How long an upload's body may take in all, in milliseconds.
   * @default {3600000}
   */
  uploadTimeout?: number;
  /**
   * The fewest bytes per second an upload's body must bring over each window.
   * @default {4096}
   */
  uploadMinRate?: number;
  /**
   * The window an upload's rate is measured over, in milliseconds of waiting for it.
   * @default {30000}
   */
  uploadRateWindow?: number;
  /**
   * How many uploads may run at once, all users together.
   * @default {32}
   */
  maxUploads?: number;
  /**
   * How many uploads one user may run at once.
   * @default {8}
   */
  maxUploadsPerUser?: number;
  /**
   * The most chats one user may have.
   * @default {1000}
   */
  maxChatsPerUser?: number;
  /**
   * The most bytes the files one user uploaded may take.
   * @default {1024 ** 3}
   */
  maxStoragePerUser?: number;
  /**
   * The most documents of one user registered whose files have not come, of
   * those whose upload can still start.
   * @default {200}
   */
  maxPendingDocumentsPerUser?: number;
  /**
   * The answers being written, which run to their end whatever their clients do.
   * @default {runs of the API's own, with `answerTimeout` and `answerSaveInterval`}
   */
  answers?: AnswerRuns;
  /**
   * How long an answer may run in all, in milliseconds (`SVC_API_ANSWER_TIMEOUT`).
   * @default {600000}
   */
  answerTimeout?: number;
  /**
   * How often the text so far of the answers being written is saved, and stops asked on other
   * replicas are read, in milliseconds (`SVC_API_ANSWER_SAVE_INTERVAL`).
   * @default {1000}
   */
  answerSaveInterval?: number;
  /**
   * The proxies whose connections stand for the client they name in
   * `X-Forwarded-For` (`SVC_API_TRUSTED_PROXIES`).
   * @default {none}
   */
  trustedProxies?: TrustedProxies;
  log: Log;
}

/** The Hono environment of the API's routes. */
export interface ApiEnv {
  Variables: {
    deps: ApiDeps;
    requestId: string;
    /** The user, once the request has shown who it is: for its log line. */
    user?: string;
  };
}
