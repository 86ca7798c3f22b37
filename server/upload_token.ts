/**
 * The token that lets a client upload the content of a document it registered:
 * an HS256 JWT of the type `svc-upload+jwt` for the audience `svc:upload`,
 * with the user and the document id, living 5 minutes.
 * @module
 */
import { SvcError } from "../components/core/errors.ts";
import { hmacKey, signJwt, type TokenKind, verifyJwt } from "./jwt.ts";

/** How long an upload token lives, in seconds; fixed by the interface. */
export const UPLOAD_TOKEN_TTL = 5 * 60;

/** The type and audience of an upload token, which no session token has. */
export const UPLOAD_TOKEN: TokenKind = { type: "svc-upload+jwt", audience: "svc:upload" };

/** Options of {@linkcode UploadTokens}. */
export interface UploadTokensOptions {
  /**
   * The signing secret; random per process when neither it nor `key` is given
   * (`serveApi` gives the key of `SVC_API_DOCUMENT_UPLOAD_SECRET`, or the one it keeps in the
   * local root).
   */
  secret?: string;
  /** The signing key, instead of a secret. */
  key?: Uint8Array;
  /** The clock, for tests. */
  now?: () => Date;
}

/** Signs and checks upload tokens. */
export class UploadTokens {
  readonly #key: Uint8Array;
  readonly #now: () => Date;

  /** @throws {SvcError} for a secret shorter than 32 bytes */
  constructor(options: UploadTokensOptions = {}) {
    this.#key = options.key ??
      hmacKey(options.secret, "SVC_API_DOCUMENT_UPLOAD_SECRET");
    this.#now = options.now ?? (() => new Date());
  }

  /** A token for `user` to upload the document `id`. */
  async sign(user: string, id: string): Promise<string> {
    return await signJwt({ user, id }, this.#key, {
      now: this.#now(),
      ttl: UPLOAD_TOKEN_TTL,
      kind: UPLOAD_TOKEN,
    });
  }

  /**
   * The user and document of a token.
   * @throws {SvcError} 401 for a missing, malformed, forged or expired token
   */
  async verify(token: string | undefined): Promise<{ user: string; id: string }> {
    if (!token) {
      throw new SvcError('The upload has no "token" field: send the data of POST /document', {
        status: 401,
      });
    }
    return await verifyJwt(token, this.#key, {
      now: this.#now(),
      claims: ["user", "id"],
      kind: UPLOAD_TOKEN,
      name: "upload token",
      whenExpired: "register the document again",
    });
  }
}
