/**
 * The demo sign-in: any username, with a password equal to it. For a svc that
 * only this machine reaches; `serveApi` refuses it on any other address
 * unless the operator opts in (see `exposedDemo`).
 * @module
 */
import { SvcError } from "../../components/core/errors.ts";
import type { Env } from "../settings.ts";
import {
  Authentication,
  type AuthenticationContext,
  type ClientInfo,
  readLoginForm,
} from "./authentication.ts";

/** Options of {@linkcode SvcDemoAuthentication}: the server gives `env`, the one it read at start; the defaults come from there. */
export interface DemoAuthenticationOptions {
  /** Env `SVC_DEMO_AUTHENTICATION_PASSWORD`: the one password; else each user's name is its password. */
  password?: string;
  /**
   * Env `SVC_DEMO_AUTHENTICATION_TTL`: how long a session lasts, in seconds.
   * @default {the sessions' own, 7 days}
   */
  ttl?: number;
  /**
   * The environment svc read at start, for the two settings above.
   * @default {{}}
   */
  env?: Env;
}

/**
 * Authentication for demos: any username logs in with a password equal to it
 * (or to env `SVC_DEMO_AUTHENTICATION_PASSWORD` when set), both blank included.
 */
export class SvcDemoAuthentication extends Authentication {
  readonly #password?: string;

  constructor(options: DemoAuthenticationOptions = {}) {
    super();
    const env = options.env ?? {};
    this.#password = options.password ?? env.SVC_DEMO_AUTHENTICATION_PASSWORD;
    this.sessionTtl = options.ttl ?? ttlFromEnv(env);
  }

  /** What the demo authentication accepts, said once at start-up. */
  get notice(): string {
    const password = this.#password === undefined
      ? "the same password as the username"
      : "the password set in SVC_DEMO_AUTHENTICATION_PASSWORD";
    return `SvcDemoAuthentication is for demos only: any username logs in with ${password}`;
  }

  override setUp(context: AuthenticationContext): void {
    super.setUp(context);
    context.warn(this.notice);
  }

  override async signIn(request: Request, _client: ClientInfo): Promise<string> {
    const { username, password } = await readLoginForm(request);
    if (password !== (this.#password ?? username)) {
      throw new SvcError("The username or password is wrong", { status: 401 });
    }
    return username;
  }
}

function ttlFromEnv(env: Env): number | undefined {
  const value = env.SVC_DEMO_AUTHENTICATION_TTL;
  if (value === undefined) return undefined;
  const ttl = Number(value);
  if (!Number.isInteger(ttl) || ttl <= 0) {
    throw new SvcError(
      `SVC_DEMO_AUTHENTICATION_TTL must be a positive number of seconds, not "${value}"`,
    );
  }
  return ttl;
}
