/**
 * What the `authentication` option names: a class that signs a user in at
 * `POST /token`, finds the user of any other request, and ends a session at
 * `POST /logout`. Every built-in class signs users in through the shared
 * {@linkcode Sessions}, so that a class of its own only says who logs in.
 * @module
 */
import type { Hono } from "hono";
import { quote, SvcError } from "../../components/core/errors.ts";
import type { Database } from "../database/mod.ts";
import type { Sessions } from "./sessions.ts";

/** What the server gives an authentication before its first request. */
export interface AuthenticationContext {
  /** The session tokens, kept in the database. */
  sessions: Sessions;
  /** The API's database, for what a class keeps (the accounts of password sign-in). */
  database: Database;
  /** Says something at start-up, as a warning line of the log. */
  warn(message: string): void;
  /**
   * Where clients reach the API (`api.url`) and the origins of the web UI it
   * serves (`api.origins`), for a class with routes of its own.
   */
  api?: { url: string; origins: string[] };
}

/** What the server knows of a request's client besides the request. */
export interface ClientInfo {
  /**
   * The client's address: the connection's, or, when the connection comes
   * from a trusted proxy (`SVC_API_TRUSTED_PROXIES`), the one that proxy
   * names in `X-Forwarded-For`. Unknown when the app is called without a socket.
   */
  address?: string;
  /** The trusted proxy's address, when the connection comes from one. */
  proxy?: string;
}

/**
 * The base of every authentication. A class is constructed with no
 * arguments; the server calls {@linkcode Authentication.setUp} once, then
 * `createToken` for `POST /token`, `getUser` for every protected route and
 * `logout` for `POST /logout`.
 *
 * A class that signs users in with a form overrides only
 * {@linkcode Authentication.signIn}: it says who the login is, and the
 * session, its token, its checks and its end are shared. A class may instead
 * override `createToken` and `getUser` (the two methods of CONTRACT section 5),
 * each answering with an `SvcError` of status 401 (422 for a malformed login,
 * 429 for too many) when it refuses.
 */
export abstract class Authentication {
  #context: AuthenticationContext | undefined;
  /** How long this class's sessions last, in seconds; the sessions' default when unset. */
  protected sessionTtl: number | undefined;

  /**
   * Takes what the server gives, before the first request. A class that
   * checks settings or says something at start-up overrides it and calls
   * `super.setUp(context)`.
   */
  setUp(context: AuthenticationContext): void | Promise<void> {
    this.#context = context;
  }

  /**
   * What {@linkcode Authentication.setUp} gave.
   * @throws {SvcError} when it was not called
   */
  protected get context(): AuthenticationContext {
    if (this.#context === undefined) {
      throw new SvcError(
        `${this.constructor.name} was not set up: call setUp() with the sessions and the ` +
          "database before its first request",
      );
    }
    return this.#context;
  }

  /**
   * The user a login request to `POST /token` signs in, once its credentials
   * are checked. By default no login is taken: a class that signs users in
   * elsewhere (a provider's redirect, a proxy's header) leaves it so.
   *
   * @throws {SvcError} 401 for wrong credentials, 422 for a malformed login,
   * 429 for too many
   */
  signIn(_request: Request, _client: ClientInfo): Promise<string> {
    return Promise.reject(
      new SvcError(`${quote(this.constructor.name)} does not take a username and password`, {
        status: 405,
      }),
    );
  }

  /**
   * Routes of the class's own, mounted at the API's root path, such as the
   * login and callback of a provider's redirects. None by default.
   */
  routes(): Hono | undefined {
    return undefined;
  }

  /** The bearer token for a login request to `POST /token`: a new session of the user. */
  async createToken(request: Request, client: ClientInfo = {}): Promise<string> {
    const user = await this.signIn(request, client);
    return await this.context.sessions.start(user, { ttl: this.sessionTtl });
  }

  /**
   * The user of a request to a protected route, from its bearer token.
   * @throws {SvcError} 401 for a missing, malformed, forged, expired or ended token
   */
  async getUser(request: Request, _client: ClientInfo = {}): Promise<string> {
    return (await this.context.sessions.verify(bearerToken(request))).user;
  }

  /**
   * Ends the session of the request's bearer token at once, for every process
   * that shares the database.
   * @throws {SvcError} 401 as {@linkcode Authentication.getUser}
   */
  async logout(request: Request, _client: ClientInfo = {}): Promise<void> {
    await this.context.sessions.end(bearerToken(request));
  }
}

/**
 * The bearer token of a request's `Authorization` header.
 * @throws {SvcError} 401 when there is none
 */
export function bearerToken(request: Request): string {
  const header = request.headers.get("authorization") ?? "";
  const [scheme, token] = header.split(/\s+/, 2);
  if (scheme?.toLowerCase() !== "bearer" || !token) {
    throw new SvcError("The request has no bearer token: log in at POST /token", {
      status: 401,
    });
  }
  return token;
}

/**
 * The username and password of a login form.
 * @throws {SvcError} 422 for a body that is not a form, or a form without either field
 */
export async function readLoginForm(
  request: Request,
): Promise<{ username: string; password: string }> {
  let form: FormData;
  try {
    form = await request.formData();
  } catch (error) {
    throw new SvcError(
      "The login must be a form (application/x-www-form-urlencoded or multipart/form-data) " +
        "with the fields username and password",
      { status: 422, cause: error },
    );
  }
  const username = form.get("username");
  const password = form.get("password");
  const missing = [["username", username], ["password", password]]
    .filter(([, value]) => typeof value !== "string").map(([name]) => name);
  if (missing.length > 0) {
    throw new SvcError(`The login form lacks the field ${missing.join(" and ")}`, {
      status: 422,
    });
  }
  return { username: username as string, password: password as string };
}
