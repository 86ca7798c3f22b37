/**
 * Sign-in with an organisation's OpenID provider: the authorization code
 * flow with PKCE, state and nonce, through `openid-client`. The API has two
 * routes of its own, `GET /auth/oidc/login` (sends the browser to the
 * provider) and `GET /auth/oidc/callback` (where the provider sends it
 * back); the callback starts a svc session, so that tokens, their checks and
 * logout are those of every other sign-in.
 * @module
 */
import type * as OpenIdClient from "npm:openid-client@6.8.9";
import { Hono } from "hono";
import { quote, SvcError } from "../../components/core/errors.ts";
import { redactUrl } from "../../components/core/redact_url.ts";
import type { Env } from "../settings.ts";
import { importPackage } from "../../components/packages.ts";
import { Authentication, type AuthenticationContext } from "./authentication.ts";
import { isLoopback } from "./loopback.ts";

/** The paths of the routes, under the API's root path. */
export const OIDC_LOGIN_PATH = "/auth/oidc/login";
/** Where the provider sends the browser back, unless `SVC_OIDC_REDIRECT_URL` says otherwise. */
export const OIDC_CALLBACK_PATH = "/auth/oidc/callback";

/** How long a sign-in may take at the provider, in seconds. */
const FLOW_TTL = 10 * 60;
const COOKIE_PREFIX = "svc_oidc_";

/** Options of {@linkcode OpenIDConnectAuthentication}; each defaults to its environment variable. */
export interface OpenIDConnectOptions {
  /** Env `SVC_OIDC_ISSUER`: the provider's issuer URL, where its discovery document is. */
  issuer?: string;
  /** Env `SVC_OIDC_CLIENT_ID`: svc's client id at the provider. */
  clientId?: string;
  /** Env `SVC_OIDC_CLIENT_SECRET`: svc's client secret; unset for a public client. */
  clientSecret?: string;
  /**
   * Env `SVC_OIDC_REDIRECT_URL`: the callback the provider sends the browser
   * to, as registered there: the public address of the API's
   * `/auth/oidc/callback`, where a proxy changes it.
   * @default {`${api.url}/auth/oidc/callback`}
   */
  redirectUrl?: string;
  /**
   * Env `SVC_OIDC_SCOPES`, separated by spaces; `openid` is always asked for.
   * @default {"openid profile email"}
   */
  scopes?: string[];
  /**
   * Env `SVC_OIDC_USER_CLAIM`: the claim whose value is the svc user.
   * @default {"sub"}
   */
  userClaim?: string;
  /**
   * Env `SVC_OIDC_NAME`: the provider as the login page names it ("Sign in with …").
   * @default {the issuer's host}
   */
  name?: string;
  /**
   * The environment svc read at start, where each option above not given is read (`SVC_OIDC_*`).
   * @default {{}}
   */
  env?: Env;
}

/** The settings of OpenID Connect sign-in, complete. */
export interface OpenIDConnectSettings {
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  redirectUrl: string | undefined;
  scopes: string[];
  userClaim: string;
  name: string;
}

/**
 * The settings of OpenID Connect sign-in, from the options, else the
 * environment, else their defaults.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openIdConnectSettings } from "./oidc.ts";
 * const settings = openIdConnectSettings({ issuer: "https://login.example.org", clientId: "svc" });
 * assert.equal(settings.name, "login.example.org");
 * assert.deepEqual(settings.scopes, ["openid", "profile", "email"]);
 * ```
 *
 * @throws {SvcError} naming a missing issuer or client id, an issuer or
 * redirect URL that is not https (but on loopback), or scopes without openid
 */
export function openIdConnectSettings(options: OpenIDConnectOptions = {}): OpenIDConnectSettings {
  const env = options.env ?? {};
  const issuer = options.issuer ?? env.SVC_OIDC_ISSUER;
  const clientId = options.clientId ?? env.SVC_OIDC_CLIENT_ID;
  const missing = [["SVC_OIDC_ISSUER", issuer], ["SVC_OIDC_CLIENT_ID", clientId]]
    .filter(([, value]) => !value).map(([name]) => name);
  if (missing.length > 0) {
    throw new SvcError(
      `OpenIDConnectAuthentication needs ${missing.join(" and ")}: the provider's issuer URL ` +
        "and svc's client id there",
    );
  }
  const redirectUrl = options.redirectUrl ?? (env.SVC_OIDC_REDIRECT_URL || undefined);
  for (
    const [name, url] of [["SVC_OIDC_ISSUER", issuer!], ["SVC_OIDC_REDIRECT_URL", redirectUrl]]
  ) {
    if (url !== undefined) secureUrl(name!, url);
  }
  const scopes = options.scopes ??
    (env.SVC_OIDC_SCOPES || "openid profile email").split(/\s+/).filter(Boolean);
  if (!scopes.includes("openid")) {
    throw new SvcError(
      `SVC_OIDC_SCOPES must include "openid", not ${quote(scopes.join(" "))}: without it the ` +
        "provider does not say who signed in",
    );
  }
  return {
    issuer: issuer!,
    clientId: clientId!,
    clientSecret: options.clientSecret ?? (env.SVC_OIDC_CLIENT_SECRET || undefined),
    redirectUrl,
    scopes,
    userClaim: options.userClaim ?? (env.SVC_OIDC_USER_CLAIM || "sub"),
    name: options.name ?? (env.SVC_OIDC_NAME || new URL(issuer!).host),
  };
}

/** What the login route keeps in the browser until the callback: one cookie per sign-in. */
interface Flow {
  /** The PKCE code verifier. */
  verifier: string;
  nonce: string;
  /** Where the browser goes back to, in the web UI. */
  returnTo: string;
}

/**
 * Sign-in at an OpenID provider. The web UI's login page shows "Sign in with
 * <name>"; the provider signs the user in and sends the browser back to the
 * callback, which checks the answer (state, PKCE, the ID token's signature,
 * issuer, audience and nonce), names the user by one claim, starts a
 * session, and sends the browser back to the web UI with the session's
 * token in the address's fragment (which no server sees). A login form at
 * `POST /token` is refused (405).
 */
export class OpenIDConnectAuthentication extends Authentication {
  /** The settings, complete. */
  readonly settings: OpenIDConnectSettings;
  #configuration: Promise<OpenIdClient.Configuration> | undefined;
  #redirectUrl = "";
  #origins: string[] = [];

  /** @throws {SvcError} as {@linkcode openIdConnectSettings} */
  constructor(options: OpenIDConnectOptions = {}) {
    super();
    this.settings = openIdConnectSettings(options);
  }

  /** @throws {SvcError} when the server does not say where the API and the web UI are */
  override setUp(context: AuthenticationContext): void {
    super.setUp(context);
    if (context.api === undefined && this.settings.redirectUrl === undefined) {
      throw new SvcError(
        "OpenIDConnectAuthentication needs the API's URL for its callback: set " +
          "SVC_OIDC_REDIRECT_URL, or set it up with the api of its context",
      );
    }
    this.#redirectUrl = this.settings.redirectUrl ?? `${context.api!.url}${OIDC_CALLBACK_PATH}`;
    this.#origins = context.api?.origins ?? [];
  }

  /** `GET /auth/oidc/login` and `GET /auth/oidc/callback`. */
  override routes(): Hono {
    const app = new Hono();
    app.get(OIDC_LOGIN_PATH, (c) => this.#login(c.req.raw));
    app.get(OIDC_CALLBACK_PATH, (c) => this.#callback(c.req.raw));
    return app;
  }

  async #login(request: Request): Promise<Response> {
    const returnTo = this.#returnTo(new URL(request.url).searchParams.get("return_to"));
    try {
      const client = await importPackage<typeof OpenIdClient>("openid-client");
      const configuration = await this.#discover(client);
      const flow: Flow = { verifier: client.randomPKCECodeVerifier(), nonce: "", returnTo };
      flow.nonce = client.randomNonce();
      const state = client.randomState();
      const url = client.buildAuthorizationUrl(configuration, {
        redirect_uri: this.#redirectUrl,
        scope: this.settings.scopes.join(" "),
        state,
        nonce: flow.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
        code_challenge_method: "S256",
      });
      const headers = new Headers({ location: url.href, "cache-control": "no-store" });
      headers.append("set-cookie", this.#cookie(state, encodeFlow(flow), FLOW_TTL));
      return new Response(null, { status: 302, headers });
    } catch (error) {
      return backWithError(returnTo, `Cannot start the sign-in at ${this.settings.name}`, error);
    }
  }

  async #callback(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const state = url.searchParams.get("state") ?? "";
    const flow = decodeFlow(cookieValue(request, `${COOKIE_PREFIX}${state}`));
    if (!/^[\w-]{16,}$/.test(state) || flow === undefined) {
      throw new SvcError(
        "This sign-in was not started in this browser, or took longer than " +
          `${FLOW_TTL / 60} min: start it again from the login page`,
        { status: 400 },
      );
    }
    const returnTo = this.#returnTo(flow.returnTo);
    // Back where it started, once: the same sign-in cannot come back twice.
    const headers = new Headers({ "cache-control": "no-store" });
    headers.append("set-cookie", this.#cookie(state, "", 0));
    try {
      const providerError = url.searchParams.get("error");
      if (providerError !== null) {
        const description = url.searchParams.get("error_description");
        throw new SvcError(
          `${this.settings.name} refused the sign-in: ${providerError}` +
            (description ? ` (${description})` : ""),
          { status: 401 },
        );
      }
      const user = await this.#user(url, state, flow);
      const token = await this.context.sessions.start(user, { ttl: this.sessionTtl });
      const fragment = new URLSearchParams({ token, user });
      headers.set("location", `${returnTo}#${fragment}`);
      return new Response(null, { status: 303, headers });
    } catch (error) {
      const back = backWithError(returnTo, `Cannot sign in with ${this.settings.name}`, error);
      back.headers.append("set-cookie", headers.get("set-cookie")!);
      return back;
    }
  }

  /** The svc user of the provider's answer: the configured claim of the ID token, else of userinfo. */
  async #user(url: URL, state: string, flow: Flow): Promise<string> {
    const client = await importPackage<typeof OpenIdClient>("openid-client");
    const configuration = await this.#discover(client);
    // The callback as the provider was told it, whatever path a proxy passed on.
    const current = new URL(this.#redirectUrl);
    current.search = url.search;
    const tokens = await client.authorizationCodeGrant(configuration, current, {
      pkceCodeVerifier: flow.verifier,
      expectedState: state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    let value = claims[this.settings.userClaim];
    if (value === undefined) {
      const info = await client.fetchUserInfo(configuration, tokens.access_token, claims.sub);
      value = info[this.settings.userClaim];
    }
    if ((typeof value !== "string" && typeof value !== "number") || String(value).trim() === "") {
      throw new SvcError(
        `${this.settings.name} did not give the claim ${quote(this.settings.userClaim)} that ` +
          "names the user (SVC_OIDC_USER_CLAIM): ask for its scope in SVC_OIDC_SCOPES, or name " +
          "another claim",
        { status: 401 },
      );
    }
    return String(value);
  }

  /** The provider's configuration, discovered once; again after a failure. */
  #discover(client: typeof OpenIdClient): Promise<OpenIdClient.Configuration> {
    const { issuer, clientId, clientSecret } = this.settings;
    this.#configuration ??= client.discovery(
      new URL(issuer),
      clientId,
      clientSecret,
      clientSecret === undefined ? client.None() : undefined,
      // Plain http only for a provider on this machine (see secureUrl).
      isLoopback(new URL(issuer).hostname) ? { execute: [client.allowInsecureRequests] } : {},
    ).catch((error) => {
      this.#configuration = undefined;
      throw new SvcError(
        `Cannot read the OpenID configuration of ${redactUrl(issuer)}: ${(error as Error).message}`,
        { status: 502, cause: error },
      );
    });
    return this.#configuration;
  }

  /**
   * Where to send the browser back: a page of the web UI, whose origin is one
   * of the API's origins, so that no other site can receive a token.
   * @throws {SvcError} 400 for any other address
   */
  #returnTo(value: string | null): string {
    const fallback = this.#origins[0] === undefined ? undefined : `${this.#origins[0]}/auth/`;
    const target = value ?? fallback;
    if (target === undefined || !URL.canParse(target)) {
      throw new SvcError(
        "The sign-in needs return_to, the address of the web UI to come back to",
        { status: 400 },
      );
    }
    const url = new URL(target);
    if (!this.#origins.includes(url.origin)) {
      throw new SvcError(
        `Cannot send a sign-in back to ${quote(url.origin)}: it is not one of the API's ` +
          "origins ([api] origins)",
        { status: 400 },
      );
    }
    url.hash = "";
    return url.href;
  }

  #cookie(state: string, value: string, maxAge: number): string {
    const callback = new URL(this.#redirectUrl);
    return [
      `${COOKIE_PREFIX}${state}=${value}`,
      `Path=${callback.pathname}`,
      `Max-Age=${maxAge}`,
      "HttpOnly",
      "SameSite=Lax",
      ...(callback.protocol === "https:" ? ["Secure"] : []),
    ].join("; ");
  }
}

/** A response that sends the browser back to the web UI with what went wrong. */
function backWithError(returnTo: string, what: string, error: unknown): Response {
  const reason = error instanceof Error ? error.message : String(error);
  const fragment = new URLSearchParams({ error: `${what}: ${reason}` });
  return new Response(null, {
    status: 303,
    headers: { location: `${returnTo}#${fragment}`, "cache-control": "no-store" },
  });
}

function encodeFlow(flow: Flow): string {
  return new TextEncoder().encode(JSON.stringify(flow)).toBase64({ alphabet: "base64url" });
}

function decodeFlow(value: string | undefined): Flow | undefined {
  if (!value) return undefined;
  try {
    const flow = JSON.parse(
      new TextDecoder().decode(Uint8Array.fromBase64(value, { alphabet: "base64url" })),
    );
    const fields = [flow?.verifier, flow?.nonce, flow?.returnTo];
    return fields.every((field) => typeof field === "string") ? flow : undefined;
  } catch {
    return undefined;
  }
}

function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}

/**
 * @throws {SvcError} for a URL that is not https, but for one on loopback,
 * where a test or a provider on the same machine may use http
 */
function secureUrl(name: string, value: string): void {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  const ok = url !== undefined &&
    (url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url.hostname)));
  if (!ok) {
    throw new SvcError(
      `${name} must be an https URL (http only on loopback), not ${quote(redactUrl(value))}`,
    );
  }
}
