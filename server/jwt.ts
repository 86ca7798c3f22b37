/**
 * The HS256 JSON Web Tokens of svc: the session tokens and the upload tokens.
 * Each carries its type (the header's `typ`) and its audience (`aud`), so that
 * one kind is never taken for the other, even when both are signed with the
 * same secret; each expires, and a refused one is a 401 that says whether it
 * expired.
 * @module
 */
import type { JWTPayload } from "jose";
import { SvcError } from "../components/core/errors.ts";

/**
 * jose, loaded with the first token signed or checked rather than when `svc api` starts, which it
 * held up by some 10 ms.
 */
function jose(): Promise<typeof import("jose")> {
  return joseModule ??= import("jose");
}
let joseModule: Promise<typeof import("jose")> | undefined;

/** The shortest signing secret svc takes, in bytes: HS256's own key size. */
export const MIN_SECRET_BYTES = 32;

/**
 * The signing key of `secret`; random bytes when it is unset, so tokens die
 * with the process.
 *
 * @throws {SvcError} naming `name` for a secret shorter than 32 bytes
 */
export function hmacKey(secret: string | undefined, name = "The signing secret"): Uint8Array {
  if (!secret) return crypto.getRandomValues(new Uint8Array(MIN_SECRET_BYTES));
  const key = new TextEncoder().encode(secret);
  if (key.length < MIN_SECRET_BYTES) {
    throw new SvcError(
      `${name} is ${key.length} bytes long, too short to sign tokens safely: use at least ` +
        `${MIN_SECRET_BYTES} random characters (such as the output of "openssl rand -hex 32")`,
    );
  }
  return key;
}

/** What kind of token a JWT is: its header's `typ` and its `aud` claim. */
export interface TokenKind {
  /** The header's `typ`: `svc-session+jwt`. */
  type: string;
  /** Who the token is for: `svc:api`. */
  audience: string;
}

/** Options of {@linkcode signJwt}. */
export interface SignJwtOptions {
  /** The time of issue. */
  now: Date;
  /** How long the token lives, in seconds. */
  ttl: number;
  /** The token's type and audience. */
  kind: TokenKind;
}

/** An HS256 JWT of `claims`, issued at `options.now`, that expires `options.ttl` seconds later. */
export async function signJwt(
  claims: Record<string, string>,
  key: Uint8Array,
  options: SignJwtOptions,
): Promise<string> {
  const now = Math.floor(options.now.getTime() / 1000);
  const { SignJWT } = await jose();
  return await new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: options.kind.type })
    .setAudience(options.kind.audience)
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
  /** The type and audience the token must have. */
  kind: TokenKind;
  /** The token as messages name it: `The <name> is not valid`. */
  name: string;
  /** What to do about an expired token: `The <name> has expired: <whenExpired>`. */
  whenExpired: string;
}

/**
 * The claims of a token: an HS256 JWT signed with `key`, of the type and
 * audience of `options.kind`, with an expiry that has not come at
 * `options.now`, and each of `options.claims` a string.
 *
 * A token whose signature, type and audience were checked once is not checked again while it is
 * among the last {@linkcode VERIFIED_TOKENS} checked with the same key: a bearer sends the same
 * token with every request, and checking its signature cost more than the rest of authenticating
 * it. Its expiry and claims are read again every time.
 *
 * @throws {SvcError} 401 `The <name> has expired: <whenExpired>` for an
 * expired token, else `The <name> is not valid`
 */
export async function verifyJwt<Claim extends string>(
  token: string,
  key: Uint8Array,
  options: VerifyJwtOptions<Claim>,
): Promise<Record<Claim, string>> {
  const { errors } = await jose();
  try {
    const payload = await verifiedPayload(token, key, options);
    if (typeof payload.exp !== "number" || payload.exp * 1000 <= options.now.getTime()) {
      throw new errors.JWTExpired('"exp" claim timestamp check failed', payload, "exp");
    }
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

/** How many tokens whose signature was checked are remembered, per key. */
export const VERIFIED_TOKENS = 1024;

/** The payloads of the tokens checked with each key, by type, audience and token. */
const verified = new WeakMap<Uint8Array, Map<string, JWTPayload>>();

/**
 * The payload of a token whose signature, type and audience are right; its expiry is left to the
 * caller. Remembered once checked, the oldest forgotten first.
 */
async function verifiedPayload(
  token: string,
  key: Uint8Array,
  { kind, now }: { kind: TokenKind; now: Date },
): Promise<JWTPayload> {
  let tokens = verified.get(key);
  if (!tokens) verified.set(key, tokens = new Map());
  const id = `${kind.type}\n${kind.audience}\n${token}`;
  const known = tokens.get(id);
  if (known) return known;
  const { jwtVerify } = await jose();
  const { payload } = await jwtVerify(token, key, {
    algorithms: ["HS256"],
    typ: kind.type,
    audience: kind.audience,
    currentDate: now,
    requiredClaims: ["exp", "aud"],
  });
  tokens.set(id, payload);
  if (tokens.size > VERIFIED_TOKENS) tokens.delete(tokens.keys().next().value!);
  return payload;
}
