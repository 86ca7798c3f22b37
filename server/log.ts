/**
 * Structured logs: every line is one JSON object with `time`, `level` and either a `message` or
 * the fields of a request, so that a log collector can read them without parsing prose.
 * @module
 */
import { redact } from "../components/core/secrets.ts";

/** Where log lines go: one JSON line per event. */
export type Log = (line: string) => void;

/** How much a line matters. */
export type LogLevel = "info" | "warn" | "error";

/**
 * One log line: `{"time", "level", "message", ...fields}`. The message and
 * the text fields (a stack) are redacted (see `secrets.ts`): the process's
 * secrets, credentials of any scheme and URLs' user names, passwords, queries
 * and fragments are hidden, so that a log never holds a configured secret.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { logLine } from "./log.ts";
 * const line = JSON.parse(logLine("error", "Cannot reach http://ada:pw@gpu-box/v1?key=k"));
 * assert.equal(line.message, "Cannot reach http://gpu-box/v1");
 * ```
 */
export function logLine(
  level: LogLevel,
  message: string,
  fields: Record<string, unknown> = {},
): string {
  const redacted = Object.fromEntries(
    Object.entries(fields).map(([key, value]) => [
      key,
      typeof value === "string" ? redact(value) : value,
    ]),
  );
  return JSON.stringify({
    time: new Date().toISOString(),
    level,
    message: redact(message),
    ...redacted,
  });
}

/**
 * A log whose every line is JSON: a line that is not a JSON object already (a notice written as
 * plain text) becomes the message of an info line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonLog } from "./log.ts";
 * const lines: string[] = [];
 * jsonLog((line) => lines.push(line))("svc API at http://127.0.0.1:31415");
 * assert(JSON.parse(lines[0]!).message === "svc API at http://127.0.0.1:31415");
 * ```
 */
export function jsonLog(sink: Log): Log {
  return (line) => sink(isJsonObject(line) ? line : logLine("info", line));
}

function isJsonObject(line: string): boolean {
  // The lines of logLine() start so; only other lines are parsed to be sure.
  if (line.startsWith('{"time":')) return true;
  if (!line.startsWith("{")) return false;
  try {
    const value = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
