/**
 * API keys, for programs: long-lived bearer credentials that a user creates,
 * names, lists and revokes. A key is `svc_` and 43 characters of base64url
 * (32 random bytes); it is shown once, when it is made, and the database keeps
 * only its SHA-256 and its first characters. A key is accepted on every route
 * that takes a bearer token, whichever authentication is configured, and each
 * request reads its row, so that a revoked key is refused at once by every
 * process that shares the database.
 * @module
 */
import { quote, SvcError } from "../../components/core/errors.ts";
import type { ApiKeyRecord, Database } from "../database/mod.ts";
import { bearerToken } from "./authentication.ts";

/** How every API key begins, which no session token does (a JWT begins with `eyJ`). */
export const API_KEY_PREFIX = "svc_";

/** How many characters of a key are kept and shown to recognise it: `svc_` and 8 more. */
export const SHOWN_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;

/** The most API keys one user may have. */
export const MAX_API_KEYS_PER_USER = 100;

/**
 * How close "last used" is kept, in seconds: a program that calls many times
 * a minute writes it once a minute, not on every request.
 */
export const LAST_USED_PRECISION = 60;

const KEY_SHAPE = /^svc_[A-Za-z0-9_-]{43}$/;

/** Options of {@linkcode ApiKeys}. */
export interface ApiKeysOptions {
  /** Where the keys are kept. */
  database: Database;
  /** The clock, for tests. */
  now?: () => Date;
  /**
   * The most keys one user may have.
   * @default {MAX_API_KEYS_PER_USER}
   */
  maxPerUser?: number;
}

/** A key just made: its record, and the key itself, which is never shown again. */
export interface CreatedApiKey {
  record: ApiKeyRecord;
  key: string;
}

/**
 * Whether a bearer token is meant as an API key (by its prefix), though not
 * whether it is a good one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isApiKey } from "./api_keys.ts";
 * assert.equal(isApiKey("svc_AbC"), true);
 * assert.equal(isApiKey("eyJhbGciOiJIUzI1NiJ9.e30.sig"), false);
 * ```
 */
export function isApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

/** The API key a request carries as its bearer token, or `undefined` when it carries none. */
export function requestApiKey(request: Request): string | undefined {
  if (!request.headers.has("authorization")) return undefined;
  try {
    const token = bearerToken(request);
    return isApiKey(token) ? token : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The SHA-256 of a key, in hex: what the database keeps and finds a key by.
 * A fast hash is right here, unlike for passwords: a key is 32 random bytes,
 * so no dictionary or brute force reaches it however fast the hash, and a
 * slow hash would only slow every request that carries one. Finding the row
 * by the hash means no comparison of secrets that could leak by its timing.
 */
export async function hashApiKey(key: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  return new Uint8Array(digest).toHex();
}

/**
 * Makes, lists, revokes and checks the API keys of users.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openDatabase } from "../database/mod.ts";
 * import { ApiKeys } from "./api_keys.ts";
 * const database = await openDatabase("sqlite://", { localRoot: "." });
 * const keys = new ApiKeys({ database });
 * const { record, key } = await keys.create("ada", "nightly import");
 * assert.equal(await keys.verify(key), "ada");
 * assert.equal(key.startsWith(record.prefix), true);
 * await keys.revoke("ada", record.id);
 * await assert.rejects(keys.verify(key), /not valid/);
 * await database.close();
 * ```
 */
export class ApiKeys {
  readonly #database: Database;
  readonly #now: () => Date;
  readonly #maxPerUser: number;

  constructor(options: ApiKeysOptions) {
    this.#database = options.database;
    this.#now = options.now ?? (() => new Date());
    this.#maxPerUser = options.maxPerUser ?? MAX_API_KEYS_PER_USER;
  }

  /**
   * A new key of the user, with its name.
   * @throws {SvcError} 429 when the user has the most keys already
   */
  async create(user: string, name: string): Promise<CreatedApiKey> {
    const key = API_KEY_PREFIX +
      crypto.getRandomValues(new Uint8Array(32)).toBase64({
        alphabet: "base64url",
        omitPadding: true,
      });
    const record: ApiKeyRecord = {
      id: crypto.randomUUID(),
      name,
      prefix: key.slice(0, SHOWN_PREFIX_LENGTH),
      created: this.#seconds(),
      lastUsed: null,
    };
    await this.#database.addApiKey(
      user,
      { ...record, hash: await hashApiKey(key) },
      this.#maxPerUser,
    );
    return { record, key };
  }

  /** The user's keys, oldest first, without the keys themselves. */
  list(user: string): Promise<ApiKeyRecord[]> {
    return this.#database.listApiKeys(user);
  }

  /**
   * One of the user's keys, without the key itself.
   * @throws {SvcError} 404 for a missing or another user's key
   */
  async get(user: string, id: string): Promise<ApiKeyRecord> {
    const found = (await this.list(user)).find((record) => record.id === id);
    if (found === undefined) throw new SvcError(`No API key ${quote(id)}`, { status: 404 });
    return found;
  }

  /**
   * Revokes the user's key at once.
   * @throws {SvcError} 404 for a missing or another user's key
   */
  revoke(user: string, id: string): Promise<void> {
    return this.#database.removeApiKey(user, id);
  }

  /**
   * The user of a key, from the database on every call; records when it was used.
   * @throws {SvcError} 401 for a malformed, unknown or revoked key
   */
  async verify(key: string): Promise<string> {
    const owner = KEY_SHAPE.test(key)
      ? await this.#database.apiKeyOwner(await hashApiKey(key))
      : undefined;
    if (owner === undefined) {
      throw new SvcError(
        "The API key is not valid: it was revoked, or never made; create one in the web UI or " +
          "at POST /api-keys",
        { status: 401 },
      );
    }
    const now = this.#seconds();
    if (owner.lastUsed === null || now - owner.lastUsed >= LAST_USED_PRECISION) {
      // When the disk refuses the write, the key still works: "last used" is
      // a convenience, and a read-only database still answers reads.
      await this.#database.touchApiKey(owner.id, now).catch(() => {});
    }
    return owner.user;
  }

  #seconds(): number {
    return Math.floor(this.#now().getTime() / 1000);
  }
}
