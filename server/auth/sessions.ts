/**
 * Sessions, shared by every authentication: a session token is an HS256 JWT
 * of the type `svc-session+jwt` for the audience `svc:api`, with the claims
 * `user`, `sid` (the session's row in the database) and `exp`. A token is
 * good while it is signed with the secret, unexpired, and its session is in
 * the database: logging out deletes the row, which ends the token at once on
 * every process that shares the database.
 * @module
 */
import { envNumber } from "../../components/core/env_number.ts";
import { type Env, numberDefault } from "../settings.ts";
import { SvcError } from "../../components/core/errors.ts";
import type { Database } from "../database/mod.ts";
import { hmacKey, signJwt, type TokenKind, verifyJwt } from "../jwt.ts";

/** The type and audience of a session token, which no upload token has. */
export const SESSION_TOKEN: TokenKind = { type: "svc-session+jwt", audience: "svc:api" };

/** How long a session lasts unless `SVC_API_SESSION_TTL` says otherwise: 7 days, in seconds. */
export const DEFAULT_SESSION_TTL: number = numberDefault("SVC_API_SESSION_TTL");

/** Options of {@linkcode Sessions}. */
export interface SessionsOptions {
  /** Where the sessions are kept. */
  database: Database;
  /** The signing key (see `signingKey`), or a secret of at least 32 bytes. */
  key: Uint8Array | string;
  /**
   * How long a session lasts, in seconds.
   * @default {env SVC_API_SESSION_TTL, else 7 days}
   */
  ttl?: number;
  /** The clock, for tests. */
  now?: () => Date;
  /**
   * The environment svc read at start, where the options above not given are read.
   * @default {{}}
   */
  env?: Env;
}

/** Options of {@linkcode Sessions.start}. */
export interface StartSessionOptions {
  /** How long this session lasts, in seconds, instead of the default. */
  ttl?: number;
}

/**
 * Starts, checks and ends the sessions of signed-in users.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openDatabase } from "../database/mod.ts";
 * import { Sessions } from "./sessions.ts";
 * const database = await openDatabase("sqlite://", { localRoot: "." });
 * const sessions = new Sessions({ database, key: "k".repeat(32) });
 * const token = await sessions.start("ada");
 * assert.equal((await sessions.verify(token)).user, "ada");
 * await sessions.end(token);
 * await assert.rejects(sessions.verify(token), /has ended/);
 * await database.close();
 * ```
 */
export class Sessions {
  readonly #database: Database;
  readonly #key: Uint8Array;
  readonly #now: () => Date;
  /** How long a session lasts by default, in seconds. */
  readonly ttl: number;

  /** @throws {SvcError} for a secret shorter than 32 bytes, or an invalid `SVC_API_SESSION_TTL` */
  constructor(options: SessionsOptions) {
    this.#database = options.database;
    this.#key = typeof options.key === "string"
      ? hmacKey(options.key, "The session secret")
      : options.key;
    this.#now = options.now ?? (() => new Date());
    this.ttl = options.ttl ??
      envNumber("SVC_API_SESSION_TTL", {
        fallback: DEFAULT_SESSION_TTL,
        unit: "seconds",
        env: options.env ?? {},
      });
  }

  /** A new session of `user`, kept in the database, and its token. */
  async start(user: string, options: StartSessionOptions = {}): Promise<string> {
    const now = this.#now();
    const ttl = Math.max(1, Math.round(options.ttl ?? this.ttl));
    const id = crypto.randomUUID();
    const created = Math.floor(now.getTime() / 1000);
    await this.#database.startSession({ id, user, created, expires: created + ttl });
    return await signJwt({ user, sid: id }, this.#key, { now, ttl, kind: SESSION_TOKEN });
  }

  /**
   * The user and session of a token.
   * @throws {SvcError} 401 for a malformed, forged or expired token, one of
   * another type (an upload token), or one whose session has ended
   */
  async verify(token: string): Promise<{ user: string; sid: string }> {
    const now = this.#now();
    const claims = await verifyJwt(token, this.#key, {
      now,
      claims: ["user", "sid"],
      kind: SESSION_TOKEN,
      name: "bearer token",
      whenExpired: "log in again",
    });
    const user = await this.#database.sessionUser(claims.sid, Math.floor(now.getTime() / 1000));
    if (user !== claims.user) throw ended();
    return claims;
  }

  /**
   * Ends the session of a token at once.
   * @throws {SvcError} 401 as {@linkcode Sessions.verify}
   */
  async end(token: string): Promise<void> {
    const { sid } = await this.verify(token);
    if (!await this.#database.endSession(sid)) throw ended();
  }
}

function ended(): SvcError {
  return new SvcError("The bearer token's session has ended (logged out): log in again", {
    status: 401,
  });
}
