/**
 * Password sign-in: users with an account in the API's database (made with
 * `svc user add`), each with an argon2id hash of its password. Usernames are
 * matched in their one spelling (`usernames.ts`), logins are limited per user
 * and address (`login_limits.ts`), and passwords are checked by workers.
 * @module
 */
import { SvcError } from "../../components/core/errors.ts";
import { findAccount, loginKey, normalizeAccountNames } from "./account_names.ts";
import {
  Authentication,
  type AuthenticationContext,
  type ClientInfo,
  readLoginForm,
} from "./authentication.ts";
import { LoginLimits, type LoginLimitsOptions } from "./login_limits.ts";
import { type PasswordPool, passwordPool } from "./password_hash.ts";
import type { Env } from "../settings.ts";

/** Options of {@linkcode PasswordAuthentication}: the server gives `env`, the one it read at start; the defaults come from there. */
export interface PasswordAuthenticationOptions {
  /** The limits of failed logins. */
  limits?: LoginLimitsOptions;
  /**
   * The workers that check passwords.
   * @default {the process's, from the environment}
   */
  passwords?: PasswordPool;
  /**
   * The environment svc read at start, for the limits and the workers not given above.
   * @default {{}}
   */
  env?: Env;
}

/**
 * Sign-in with the accounts of `svc user`: a login whose password matches
 * its account's hash starts a session. A wrong password and an unknown user
 * get the same answer, after the same work.
 */
export class PasswordAuthentication extends Authentication {
  readonly #limits: LoginLimits;
  readonly #passwords: PasswordPool;
  // Checked against for an unknown user, so that its answer takes as long as a wrong password's.
  #decoy: Promise<string> | undefined;

  constructor(options: PasswordAuthenticationOptions = {}) {
    super();
    this.#limits = new LoginLimits({ env: options.env, ...options.limits });
    this.#passwords = options.passwords ?? passwordPool(options.env);
  }

  override async setUp(context: AuthenticationContext): Promise<void> {
    super.setUp(context);
    // Counted in the database, so that replicas behind a load balancer count every login.
    this.#limits.countIn(context.database);
    for (const note of await normalizeAccountNames(context.database)) context.warn(note);
    const accounts = await context.database.listAccounts(Math.floor(Date.now() / 1000));
    if (accounts.length === 0) {
      context.warn(
        'PasswordAuthentication has no accounts yet: nobody can log in until "svc user add NAME" ' +
          "makes one",
      );
    }
  }

  override async signIn(request: Request, client: ClientInfo): Promise<string> {
    const { username, password } = await readLoginForm(request);
    const key = loginKey(username);
    if (key === undefined) throw wrong();
    this.#passwords.checkRoom();
    const attempt = await this.#limits.reserve(key, client.address);
    const account = await findAccount(this.context.database, username);
    if (this.#decoy === undefined) {
      this.#decoy = this.#passwords.hash(crypto.randomUUID());
      // Made again next time, rather than failing every unknown user's login from now on.
      this.#decoy.catch(() => this.#decoy = undefined);
    }
    const hash = account?.hash ?? await this.#decoy;
    const good = await this.#passwords.verify(password, hash) && account !== undefined;
    if (!good) throw wrong();
    await this.#limits.succeeded(attempt);
    return account.user;
  }
}

function wrong(): SvcError {
  return new SvcError("The username or password is wrong", { status: 401 });
}
