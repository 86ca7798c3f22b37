/**
 * The REST API as a Hono app, made from its dependencies so that tests call
 * it without a socket.
 * @module
 */
import { Hono } from "hono";
import { cors } from "hono/cors";
import { supportedSuffixes } from "../../components/core/document.ts";
import { type ComponentClass, displayNameOf } from "../../components/core/component.ts";
import { paramsJsonSchema } from "../../components/core/params.ts";
import { VERSION } from "../../components/version.ts";
import { excerpt, SvcError } from "../../components/core/errors.ts";
import { CONFIGURATION_HEADER } from "../config.ts";
import { requestApiKey } from "../auth/api_keys.ts";
import { apiKeyRoutes } from "./api_keys.ts";
import { AnswerRuns } from "./answer_runs.ts";
import { limitBodies, mediaType } from "./body.ts";
import { DEFAULT_BODY_TIMEOUT, guardBodies } from "./body_timeout.ts";
import { chatRoutes } from "./chats.ts";
import { documentContentRoutes } from "./document_content.ts";
import { documentDeletionRoutes } from "./document_deletion.ts";
import { documentListRoutes } from "./document_list.ts";
import { documentRoutes } from "./documents.ts";
import type { ApiDeps, ApiEnv } from "./env.ts";
import { errorBody, onError } from "./errors.ts";
import { mcpRoutes } from "./mcp.ts";
import { messageRoutes } from "./messages.ts";
import { openAiRoutes } from "./openai.ts";
import { allowedMethods, docsRoutes } from "./openapi.ts";
import { requestId } from "./request_id.ts";
import { requestLog } from "./request_log.ts";
import { UploadSlots } from "./upload_slots.ts";
import { clientInfo, requestUser } from "./user.ts";

export type { ApiDeps } from "./env.ts";

/** Options of {@linkcode createApi}. */
export interface ApiOptions {
  /** The prefix of every route, for a deployment behind a proxy: `/svc`. */
  rootPath?: string;
  /** The origins browsers may call the API from. */
  origins?: string[];
}

const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"];

/** The REST API of svc. */
export function createApi(given: ApiDeps, options: ApiOptions = {}): Hono<ApiEnv> {
  const deps: ApiDeps = given.answers ? given : {
    ...given,
    answers: new AnswerRuns({
      database: given.database,
      log: given.log,
      timeout: given.answerTimeout,
      saveInterval: given.answerSaveInterval,
    }),
  };
  const rootPath = options.rootPath ?? "";
  const app = new Hono<ApiEnv>().basePath(rootPath || "/");

  app.use(requestId());
  app.use(requestLog(deps.log));
  app.use(async (c, next) => {
    c.set("deps", deps);
    await next();
  });
  app.use(cors({
    origin: options.origins ?? [],
    credentials: true,
    // What a page needs to read a document in parts (GET /documents/{id}/content) and keep it.
    exposeHeaders: ["Content-Range", "Accept-Ranges", "ETag", "Content-Disposition"],
  }));
  app.use(guardBodies({ idleTimeout: deps.bodyTimeout ?? DEFAULT_BODY_TIMEOUT * 1000 }));
  app.use(limitBodies());
  app.onError(onError(deps.log));
  // Whatever /health answers, 503 included: it tells svc ui whose API this is.
  app.use(async (c, next) => {
    await next();
    const health = c.req.path === `${rootPath}/health`;
    if (health && deps.configuration) c.header(CONFIGURATION_HEADER, deps.configuration);
  });
  app.get("/", (c) => c.json(VERSION));
  // Up means able to serve: a database that does not answer is a 503 that names it.
  app.get("/health", async (c) => {
    await deps.database.check();
    return c.json({ status: "ok" });
  });
  app.post("/token", async (c) => {
    if (!FORM_TYPES.includes(mediaType(c))) {
      throw new SvcError(
        `The login must be a form, sent with "Content-Type: ${FORM_TYPES.join('" or "')}"`,
        { status: 415 },
      );
    }
    // Read here, so that a body cut off or stalled is told as such, whatever
    // the authentication makes of the form.
    const raw = c.req.raw;
    const body = await c.req.arrayBuffer();
    const request = new Request(raw.url, { method: raw.method, headers: raw.headers, body });
    return c.json(await deps.authentication.createToken(request, clientInfo(c)));
  });
  app.post("/logout", async (c) => {
    await requestUser(c);
    if (requestApiKey(c.req.raw) !== undefined) {
      throw new SvcError(
        "An API key has no session to end: revoke it in the web UI or at DELETE /api-keys/{id}",
        { status: 400 },
      );
    }
    await deps.authentication.logout(c.req.raw, clientInfo(c));
    return c.json(null);
  });
  app.get("/components", async (c) => {
    await requestUser(c);
    const schema = (component: object) => {
      const type = component.constructor as ComponentClass;
      return paramsJsonSchema(displayNameOf(type), type.params);
    };
    return c.json({
      documents: supportedSuffixes(),
      source_storages: deps.sourceStorages.map(schema),
      assistants: deps.assistants.map(schema),
    });
  });
  const slots = new UploadSlots({ total: deps.maxUploads, perUser: deps.maxUploadsPerUser });
  app.route("/", documentRoutes(slots));
  app.route("/", documentListRoutes());
  app.route("/", documentDeletionRoutes());
  app.route("/", documentContentRoutes());
  app.route("/", apiKeyRoutes());
  app.route("/", chatRoutes());
  app.route("/", messageRoutes());
  app.route("/", openAiRoutes());
  app.route("/", mcpRoutes());
  app.route("/", docsRoutes(deps.url));
  const signInRoutes = deps.authentication.routes();
  if (signInRoutes) app.route("/", signInRoutes);

  app.notFound((c) => {
    const path = c.req.path.slice(rootPath.length) || "/";
    const methods = allowedMethods(path);
    // The path is the client's: the message quotes an excerpt of it, whatever its length.
    if (methods.length > 0) {
      c.header("Allow", methods.join(", "));
      return c.json(
        errorBody(
          `${c.req.method} is not allowed on ${excerpt(path)}; use ${methods.join(" or ")}`,
        ),
        405,
      );
    }
    return c.json(errorBody(`There is no route ${excerpt(path)}`), 404);
  });
  return app;
}
