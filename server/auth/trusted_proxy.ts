/**
 * Sign-in by a reverse proxy that has signed the user in already (an SSO
 * gateway, a proxy with its own login): it names the user in a header, and
 * svc takes that header only from the addresses of `SVC_API_TRUSTED_PROXIES`.
 * @module
 */
import { quote, SvcError } from "../../components/core/errors.ts";
import type { Env } from "../settings.ts";
import { Authentication, type ClientInfo } from "./authentication.ts";
import { TRUSTED_PROXIES_ENV, trustedProxies } from "./trusted_proxies.ts";

/** The header a proxy names the user in unless `SVC_API_PROXY_USER_HEADER` says otherwise. */
export const DEFAULT_PROXY_USER_HEADER = "X-Forwarded-User";

/** Options of {@linkcode TrustedProxyAuthentication}: the server gives `env`, the one it read at start; the defaults come from there. */
export interface TrustedProxyAuthenticationOptions {
  /**
   * The header that names the user.
   * @default {env SVC_API_PROXY_USER_HEADER, else "X-Forwarded-User"}
   */
  header?: string;
  /**
   * The environment svc read at start: `SVC_API_PROXY_USER_HEADER` and `SVC_API_TRUSTED_PROXIES`.
   * @default {{}}
   */
  env?: Env;
}

/**
 * The user is the one a trusted proxy names in its header. A request with
 * that header from any other address is refused (401), whatever else it
 * carries; a request without it may still show a bearer token (a session or
 * an API key). `POST /token` through the proxy starts a session of the user
 * it names, whatever the form says (the web UI's way in); a login form
 * without the header is refused (405): the proxy signs users in.
 */
export class TrustedProxyAuthentication extends Authentication {
  /** The header that names the user, as configured. */
  readonly header: string;

  /**
   * @throws {SvcError} for a header name that is not one, or when no proxy is
   * trusted (`SVC_API_TRUSTED_PROXIES`): nobody could sign in
   */
  constructor(options: TrustedProxyAuthenticationOptions = {}) {
    super();
    const env = options.env ?? {};
    const header = options.header ?? env.SVC_API_PROXY_USER_HEADER ?? "";
    this.header = header.trim() || DEFAULT_PROXY_USER_HEADER;
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(this.header)) {
      throw new SvcError(
        `SVC_API_PROXY_USER_HEADER must be a header name such as "${DEFAULT_PROXY_USER_HEADER}", ` +
          `not ${quote(this.header)}`,
      );
    }
    if (trustedProxies(env[TRUSTED_PROXIES_ENV]).empty) {
      throw new SvcError(
        `TrustedProxyAuthentication trusts no proxy: set ${TRUSTED_PROXIES_ENV} to the ` +
          `addresses svc sees the proxy's connections come from, such as ["127.0.0.1"]`,
      );
    }
  }

  /**
   * A session of the user the trusted proxy names.
   * @throws {SvcError} 401 for the header from another address, 405 without it
   */
  override async createToken(request: Request, client: ClientInfo = {}): Promise<string> {
    const user = this.#proxyUser(request, client);
    if (user === undefined) return await super.createToken(request, client);
    return await this.context.sessions.start(user, { ttl: this.sessionTtl });
  }

  /**
   * The user the trusted proxy names; else the bearer token's.
   * @throws {SvcError} 401 for the header from an address that is not a
   * trusted proxy's, an empty one, or neither header nor bearer token
   */
  override async getUser(request: Request, client: ClientInfo = {}): Promise<string> {
    const user = this.#proxyUser(request, client);
    if (user !== undefined) return user;
    if (!request.headers.has("authorization")) {
      throw new SvcError(
        `The request has neither the header ${quote(this.header)} of a trusted proxy nor a ` +
          "bearer token: reach svc through its proxy",
        { status: 401 },
      );
    }
    return await super.getUser(request, client);
  }

  /**
   * Ends the bearer token's session.
   * @throws {SvcError} 400 for a user the proxy names: svc keeps no session of theirs
   */
  override async logout(request: Request, client: ClientInfo = {}): Promise<void> {
    if (!request.headers.has("authorization") && this.#proxyUser(request, client) !== undefined) {
      throw new SvcError(
        `svc keeps no session for the user the proxy names in ${quote(this.header)}: ` +
          "sign out at the proxy",
        { status: 400 },
      );
    }
    await super.logout(request, client);
  }

  #proxyUser(request: Request, client: ClientInfo): string | undefined {
    const value = request.headers.get(this.header);
    if (value === null) return undefined;
    if (client.proxy === undefined) {
      throw new SvcError(
        `The header ${quote(this.header)} is taken only from a trusted proxy, and this request ` +
          `came from ${client.address ?? "an unknown address"}, which is not one ` +
          `(${TRUSTED_PROXIES_ENV})`,
        { status: 401 },
      );
    }
    const user = value.trim();
    if (user === "") {
      throw new SvcError(`The trusted proxy sent an empty ${quote(this.header)} header`, {
        status: 401,
      });
    }
    return user;
  }
}
