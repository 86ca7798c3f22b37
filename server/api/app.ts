/**
 * The REST API as a Hono app, made from its dependencies so that tests call
 * it without a socket.
 * @module
 */
import { Hono } from "hono";
import { cors } from "hono/cors";
import { supportedSuffixes } from "../../components/documents/mod.ts";
import { type ComponentClass, displayNameOf } from "../../components/core/component.ts";
import { paramsJsonSchema } from "../../components/core/params.ts";
import { VERSION } from "../../components/version.ts";
import { chatRoutes } from "./chats.ts";
import { documentRoutes } from "./documents.ts";
import type { ApiDeps, ApiEnv } from "./env.ts";
import { errorBody, onError } from "./errors.ts";
import { allowedMethods, docsRoutes } from "./openapi.ts";

export type { ApiDeps } from "./env.ts";

/** Options of {@linkcode createApi}. */
export interface ApiOptions {
  /** The prefix of every route, for a deployment behind a proxy: `/svc`. */
  rootPath?: string;
  /** The origins browsers may call the API from. */
  origins?: string[];
}

/** The REST API of svc. */
export function createApi(deps: ApiDeps, options: ApiOptions = {}): Hono<ApiEnv> {
  const rootPath = options.rootPath ?? "";
  const app = new Hono<ApiEnv>().basePath(rootPath || "/");

  app.use(async (c, next) => {
    const start = performance.now();
    const requestId = crypto.randomUUID().slice(0, 8);
    c.set("deps", deps);
    c.set("requestId", requestId);
    await next();
    const ms = Math.round(performance.now() - start);
    deps.log(`${requestId} ${c.req.method} ${c.req.path} ${c.res.status} ${ms} ms`);
  });
  app.use(cors({ origin: options.origins ?? [], credentials: true }));
  app.onError(onError(deps.log));

  app.get("/", (c) => c.json(VERSION));
  app.get("/health", (c) => c.json({ status: "ok" }));
  app.post("/token", async (c) => c.json(await deps.authentication.createToken(c.req.raw)));
  app.get("/components", async (c) => {
    await deps.authentication.getUser(c.req.raw);
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
  app.route("/", documentRoutes());
  app.route("/", chatRoutes());
  app.route("/", docsRoutes(deps.url));

  app.notFound((c) => {
    const path = c.req.path.slice(rootPath.length) || "/";
    const methods = allowedMethods(path);
    if (methods.length > 0) {
      c.header("Allow", methods.join(", "));
      return c.json(
        errorBody(`${c.req.method} is not allowed on ${path}; use ${methods.join(" or ")}`),
        405,
      );
    }
    return c.json(errorBody(`There is no route ${path}`), 404);
  });
  return app;
}
