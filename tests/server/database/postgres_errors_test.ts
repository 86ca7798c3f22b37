import assert from "node:assert/strict";
import { postgresError } from "../../../server/database/postgres_errors.ts";

/** An error as the postgres package or a socket gives it. */
function failure(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

Deno.test("postgresError() words a lost or refused connection as a 503 sentence, and keeps what the server said", () => {
  const prefix = 'Cannot read from the database "postgresql://db/svc"';
  const cases: [Error, string][] = [
    [
      failure("write CONNECTION_CLOSED 127.0.0.1:5432", "CONNECTION_CLOSED"),
      "the connection to the server was lost",
    ],
    [failure("read ECONNRESET", "ECONNRESET"), "the connection to the server was lost"],
    [
      failure("This socket has been ended by the other party", "EPIPE"),
      "the connection to the server was lost",
    ],
    [
      failure("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"),
      "the server refuses connections (is it running?)",
    ],
    [
      failure("terminating connection due to administrator command", "57P01"),
      "terminating connection due to administrator command",
    ],
    [failure("sorry, too many clients already", "53300"), "sorry, too many clients already"],
  ];
  for (const [error, words] of cases) {
    const refused = postgresError(prefix, error);
    assert.equal(refused.status, 503, error.message);
    assert.equal(refused.message, `${prefix}: ${words}`);
    assert.equal(refused.cause, error);
  }
  assert.equal(postgresError(prefix, failure("syntax error", "42601")).status, 500);
});
