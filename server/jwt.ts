/**
 * The HS256 JSON Web Tokens of svc: the bearer tokens of
 * `SvcDemoAuthentication` and the upload tokens. Each expires, and a refused
 * one is a 401 that says whether it expired.
 * @module
 */
import { errors, jwtVerify, SignJWT } from "jose";
import { SvcError } from "../components/core/errors.ts";

/** The signing key of `secret`; random bytes when it is unset, so tokens die with the process. */
export function hmacKey(secret: string | undefined): Uint8Array {
  return secret ? new TextEncoder().encode(secret) : crypto.getRandomValues(new Uint8Array(32));
}

/** Options of {@linkcode signJwt}. */
export interface SignJwtOptions {
  /** The time of issue. */
  now: Date;
  /** How long the token lives, in seconds. */
  ttl: number;
}

/** An HS256 JWT of `claims`, issued at `options.now`, that expires `options.ttl` seconds later. */
export async function signJwt(
  claims: Record<string, string>,
  key: Uint8Array,
  options: SignJwtOptions,
): Promise<string> {
  const now = Math.floor(options.now.getTime() / 1000);
  return await new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256" })
    .setIssuedAt(now)
    .setExpirationTime(now + options.ttl)
    .sign(key);
}

/** Options of {@linkcode verifyJwt}. */
export interface VerifyJwtOptions<Claim extends string> {
  /** The time to check the expiry against. */
  now: Date;
  /** The claims the token must carry as strings. */
  claims: readonly Claim[];
  /** The token as messages name it: `The <name> is not valid`. */
  name: string;
  /** What to do about an expired token: `The <name> has expired: <whenExpired>`. */
  whenExpired: string;
}

/**
 * The claims of a token: an HS256 JWT signed with `key`, with an expiry that
 * has not come at `options.now`, and each of `options.claims` a string.
 *
 * @throws {SvcError} 401 `The <name> has expired: <whenExpired>` for an
 * expired token, else `The <name> is not valid`
 */
export async function verifyJwt<Claim extends string>(
  token: string,
  key: Uint8Array,
  options: VerifyJwtOptions<Claim>,
): Promise<Record<Claim, string>> {
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ["HS256"],
      currentDate: options.now,
      requiredClaims: ["exp"],
    });
    const missing = options.claims.filter((claim) => typeof payload[claim] !== "string");
    if (missing.length > 0) throw new Error(`the token lacks ${missing.join(" and ")}`);
    return Object.fromEntries(options.claims.map((claim) => [claim, payload[claim]])) as Record<
      Claim,
      string
    >;
  } catch (error) {
    const reason = error instanceof errors.JWTExpired
      ? `has expired: ${options.whenExpired}`
      : "is not valid";
    throw new SvcError(`The ${options.name} ${reason}`, { status: 401, cause: error });
  }
}
