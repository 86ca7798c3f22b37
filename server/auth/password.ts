/**
 * Password sign-in: users with an account in the API's database (made with
 * `svc user add`), each with an argon2id hash of its password. Failed logins
 * are limited per user and per address.
 * @module
 */
import { SvcError } from "../../components/core/errors.ts";
import {
  Authentication,
  type AuthenticationContext,
  type ClientInfo,
  readLoginForm,
} from "./authentication.ts";
import { LoginLimits, type LoginLimitsOptions } from "./login_limits.ts";
import { hashPassword, verifyPassword } from "./password_hash.ts";

/** Options of {@linkcode PasswordAuthentication}, for tests; the defaults come from the environment. */
export interface PasswordAuthenticationOptions {
  /** The limits of failed logins. */
  limits?: LoginLimitsOptions;
}

/**
 * Sign-in with the accounts of `svc user`: a login whose password matches
 * its account's hash starts a session. A wrong password and an unknown user
 * get the same answer, after the same work.
 */
export class PasswordAuthentication extends Authentication {
  readonly #limits: LoginLimits;
  // Checked against for an unknown user, so that its answer takes as long as a wrong password's.
  #decoy: Promise<string> | undefined;

  constructor(options: PasswordAuthenticationOptions = {}) {
    super();
    this.#limits = new LoginLimits(options.limits);
  }

  override async setUp(context: AuthenticationContext): Promise<void> {
    super.setUp(context);
    // Counted in the database, so that replicas behind a load balancer count every failure.
    this.#limits.countIn(context.database);
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
    await this.#limits.check(username, client.address);
    const hash = await this.context.database.passwordHash(username);
    this.#decoy ??= hashPassword(crypto.randomUUID());
    const good = await verifyPassword(password, hash ?? await this.#decoy) && hash !== undefined;
    if (!good) {
      await this.#limits.failed(username, client.address);
      throw new SvcError("The username or password is wrong", { status: 401 });
    }
    await this.#limits.succeeded(username);
    return username;
  }
}
