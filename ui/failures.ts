/**
 * Failures told to the people who use the page: what happened, in their
 * words ("The model server did not answer"), with the server's own sentence,
 * which may name addresses, commands and settings meant for whoever runs
 * svc, kept for a "Details" disclosure.
 * @module
 */

/** A failure as the page tells it. */
export interface ExplainedFailure {
  /** What happened, for anyone. */
  summary: string;
  /** The server's own words, for whoever runs svc; left out when the summary is them. */
  details?: string;
}

/** What a stored answer that broke off without saying why says. */
export const BROKE_OFF = "The answer broke off before it was complete";

/** Words meant for whoever runs svc: an address, a command of svc, a setting. */
const FOR_OPERATORS = /https?:\/\/|\bsvc (?:ui|api)\b|\bSVC_[A-Z0-9_]+/;

/**
 * A failure in words for the page, from the server's message and, when the
 * page got it from a response, its HTTP status (0: no answer at all).
 *
 * @example
 * ```ts
 * import { explainFailure } from "./failures.ts";
 * const down = explainFailure('Cannot reach Ollama at "http://gpu:11434": connection refused', 502);
 * console.assert(down.summary === "The model server did not answer");
 * console.assert(down.details!.includes("gpu:11434"));
 * console.assert(explainFailure("The chat has no documents").details === undefined);
 * ```
 */
export function explainFailure(message: string, status?: number): ExplainedFailure {
  const text = message.trim();
  if (text === "") return { summary: BROKE_OFF };
  const summary = summaryOf(text, status);
  if (summary !== undefined) return { summary, details: text };
  if (!FOR_OPERATORS.test(text)) return { summary: text };
  return { summary: generic(status), details: text };
}

/** The summary of a failure svc knows by its words or status. */
function summaryOf(text: string, status: number | undefined): string | undefined {
  if (status === 0) return "svc cannot be reached: it may be restarting, or the network is down";
  if (/^Cannot reach .+ at "|is not available: it needs the .+ server at "/.test(text)) {
    return "The model server did not answer";
  }
  if (/ did not answer within | stopped answering for /.test(text) || status === 504) {
    return "The model server did not answer in time";
  }
  if (/ answered \d{3}\b| answered with an error| sent malformed stream data/.test(text)) {
    return "The model server answered with an error";
  }
  if (status === 500) return "Something went wrong in svc; the error was logged";
  return undefined;
}

/** What a failure whose words are for whoever runs svc is called, by its status. */
function generic(status: number | undefined): string {
  if (status === 429) return "svc is busy: try again in a moment";
  if (status === 502) return "The model server answered with an error";
  if (status === 503 || status === 507) return "svc cannot store anything right now";
  if (status !== undefined && status >= 500) return "Something went wrong in svc";
  return "svc could not do this";
}
