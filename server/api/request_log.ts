/**
 * The request log: one line per request, written when its response is ready.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { type Log, type LogLevel, logLine } from "../log.ts";
import type { ApiEnv } from "./env.ts";

/** What the line of one request says. */
export interface RequestFields {
  request_id: string;
  /** The user, once the request has shown who it is. */
  user?: string;
  method: string;
  /** The route's pattern (`/chats/:id`), never the path with its ids; null when none matched. */
  route: string | null;
  status: number;
  duration_ms: number;
}

/** The line of one request; a 5xx is an error, anything else is info. */
export function requestLine(fields: RequestFields): string {
  const level: LogLevel = fields.status >= 500 ? "error" : "info";
  const message = `${fields.method} ${fields.route ?? "(no route)"} ${fields.status}`;
  return logLine(level, message, { ...fields });
}

/** Writes the line of each request to `log`, once the response is ready. */
export function requestLog(log: Log): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const start = performance.now();
    await next();
    // A stream's line is written when its headers are sent: its duration is the time to them.
    log(requestLine({
      request_id: c.var.requestId,
      user: c.var.user,
      method: c.req.method,
      // The pattern of the route that matched, not the middleware that answered (a 413).
      route: matchedRoutes(c).findLast((route) => route.method !== "ALL")?.path ?? null,
      status: c.res.status,
      duration_ms: Math.round(performance.now() - start),
    }));
  };
}
