/**
 * `/api-keys`: a user creates a named API key (shown once), lists its keys
 * or reads one (never the keys themselves) and revokes one. These routes take any bearer,
 * an API key included, as every protected route does.
 * @module
 */
import { Hono } from "hono";
import type { ApiKeyRecord } from "../database/mod.ts";
import { jsonBody } from "./body.ts";
import type { ApiEnv } from "./env.ts";
import { type ApiKey, ApiKeyCreation, type NewApiKey } from "./schemas.ts";
import { apiKeysOf, requestUser } from "./user.ts";

/**
 * The routes of `/api-keys`: `POST` makes a key and answers it this once,
 * `GET` lists the user's keys, `GET /api-keys/{id}` reads one and
 * `DELETE /api-keys/{id}` revokes one at once (both 404 for an unknown or
 * another user's key).
 */
export function apiKeyRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.post("/api-keys", async (c) => {
    const user = await requestUser(c);
    const { name } = await jsonBody(c, ApiKeyCreation);
    const { record, key } = await apiKeysOf(c.var.deps).create(user, name);
    return c.json({ ...apiKey(record), key } satisfies NewApiKey);
  });
  app.get("/api-keys", async (c) => {
    const user = await requestUser(c);
    return c.json((await apiKeysOf(c.var.deps).list(user)).map(apiKey));
  });
  app.get("/api-keys/:id", async (c) => {
    const user = await requestUser(c);
    return c.json(apiKey(await apiKeysOf(c.var.deps).get(user, c.req.param("id"))));
  });
  app.delete("/api-keys/:id", async (c) => {
    const user = await requestUser(c);
    await apiKeysOf(c.var.deps).revoke(user, c.req.param("id"));
    return c.json(null);
  });
  return app;
}

/** A key as the REST API shows it: times in ISO 8601. */
function apiKey(record: ApiKeyRecord): ApiKey {
  const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    created: iso(record.created),
    last_used: record.lastUsed === null ? null : iso(record.lastUsed),
  };
}
