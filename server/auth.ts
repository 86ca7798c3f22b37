/**
 * Authentication of REST API requests: a class that makes a token from a
 * login request and finds the user of any other request.
 * @module
 */
import { SvcError } from "../components/core/errors.ts";
import { envVar } from "../components/core/requirements.ts";
import { hmacKey, signJwt, verifyJwt } from "./jwt.ts";

/**
 * What the `authentication` option names. Both methods answer with an
 * `SvcError` of status 401 (or 422 for a malformed login) when they refuse.
 */
export abstract class Authentication {
  /** The bearer token for a login request to `POST /token`. */
  abstract createToken(request: Request): Promise<string>;
  /** The user of a request to a protected route. */
  abstract getUser(request: Request): Promise<string>;
}

/** Options of {@linkcode SvcDemoAuthentication}, for tests; the defaults come from the environment. */
export interface DemoAuthenticationOptions {
  /** Env `SVC_DEMO_AUTHENTICATION_PASSWORD`: the one password; else each user's name is its password. */
  password?: string;
  /** Env `SVC_DEMO_AUTHENTICATION_SECRET`: signs the tokens; random per process when unset. */
  secret?: string;
  /**
   * Env `SVC_DEMO_AUTHENTICATION_TTL`: how long a token lives, in seconds.
   * @default {604800}
   */
  ttl?: number;
  /** The clock, for tests. */
  now?: () => Date;
}

/**
 * Authentication for demos: any username logs in with a password equal to it
 * (or to env `SVC_DEMO_AUTHENTICATION_PASSWORD` when set), both blank included.
 * Tokens are HS256 JWTs with the claims `user` and `exp`.
 */
export class SvcDemoAuthentication extends Authentication {
  readonly #password?: string;
  readonly #key: Uint8Array;
  readonly #ttl: number;
  readonly #now: () => Date;

  constructor(options: DemoAuthenticationOptions = {}) {
    super();
    this.#password = options.password ?? envVar("SVC_DEMO_AUTHENTICATION_PASSWORD");
    this.#key = hmacKey(options.secret ?? envVar("SVC_DEMO_AUTHENTICATION_SECRET"));
    this.#ttl = options.ttl ?? ttlFromEnv();
    this.#now = options.now ?? (() => new Date());
  }

  /** What the demo authentication accepts, said once at start-up. */
  get notice(): string {
    const password = this.#password === undefined
      ? "the same password as the username"
      : "the password set in SVC_DEMO_AUTHENTICATION_PASSWORD";
    return `SvcDemoAuthentication is for demos only: any username logs in with ${password}`;
  }

  override async createToken(request: Request): Promise<string> {
    const form = await readForm(request);
    const username = form.get("username");
    const password = form.get("password");
    const missing = [["username", username], ["password", password]]
      .filter(([, value]) => typeof value !== "string").map(([name]) => name);
    if (missing.length > 0) {
      throw new SvcError(`The login form lacks the field ${missing.join(" and ")}`, {
        status: 422,
      });
    }
    if (password !== (this.#password ?? username)) {
      throw new SvcError("The username or password is wrong", { status: 401 });
    }
    return await signJwt({ user: username as string }, this.#key, {
      now: this.#now(),
      ttl: this.#ttl,
    });
  }

  override async getUser(request: Request): Promise<string> {
    const header = request.headers.get("authorization") ?? "";
    const [scheme, token] = header.split(/\s+/, 2);
    if (scheme?.toLowerCase() !== "bearer" || !token) {
      throw new SvcError("The request has no bearer token: log in at POST /token", {
        status: 401,
      });
    }
    const { user } = await verifyJwt(token, this.#key, {
      now: this.#now(),
      claims: ["user"],
      name: "bearer token",
      whenExpired: "log in again",
    });
    return user;
  }
}

async function readForm(request: Request): Promise<FormData> {
  try {
    return await request.formData();
  } catch (error) {
    throw new SvcError(
      "The login must be a form (application/x-www-form-urlencoded or multipart/form-data) " +
        "with the fields username and password",
      { status: 422, cause: error },
    );
  }
}

function ttlFromEnv(): number {
  const value = envVar("SVC_DEMO_AUTHENTICATION_TTL");
  if (value === undefined) return 7 * 24 * 60 * 60;
  const ttl = Number(value);
  if (!Number.isInteger(ttl) || ttl <= 0) {
    throw new SvcError(
      `SVC_DEMO_AUTHENTICATION_TTL must be a positive number of seconds, not "${value}"`,
    );
  }
  return ttl;
}
