/**
 * The request id: a short id of svc's own for each request, in the
 * `X-Request-Id` header, the request's log line and the body of a 500. An id
 * a client sends is never taken, so that the log's ids are svc's alone.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import type { ApiEnv } from "./env.ts";

/** Gives each request its id, as `c.var.requestId` and the `X-Request-Id` header. */
export function requestId(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const id = crypto.randomUUID().slice(0, 8);
    c.set("requestId", id);
    c.header("X-Request-Id", id);
    await next();
  };
}
