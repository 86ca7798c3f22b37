/**
 * The token that lets a client upload the content of a document it registered:
 * an HS256 JWT with the user and the document id, living 5 minutes.
 * @module
 */
import { SvcError } from "../components/core/errors.ts";
import { envVar } from "../components/core/requirements.ts";
import { hmacKey, signJwt, verifyJwt } from "./jwt.ts";

/** How long an upload token lives, in seconds; fixed by the interface. */
export const UPLOAD_TOKEN_TTL = 5 * 60;

/** Options of {@linkcode UploadTokens}. */
export interface UploadTokensOptions {
  /** The signing secret; env `SVC_API_DOCUMENT_UPLOAD_SECRET`, else random per process. */
  secret?: string;
  /** The clock, for tests. */
  now?: () => Date;
}

/** Signs and checks upload tokens. */
export class UploadTokens {
  readonly #key: Uint8Array;
  readonly #now: () => Date;
  /** Whether the secret is random, so tokens die with the process (worth a warning). */
  readonly randomSecret: boolean;

  constructor(options: UploadTokensOptions = {}) {
    const secret = options.secret ?? envVar("SVC_API_DOCUMENT_UPLOAD_SECRET");
    this.randomSecret = !secret;
    this.#key = hmacKey(secret);
    this.#now = options.now ?? (() => new Date());
  }

  /** A token for `user` to upload the document `id`. */
  async sign(user: string, id: string): Promise<string> {
    return await signJwt({ user, id }, this.#key, { now: this.#now(), ttl: UPLOAD_TOKEN_TTL });
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
      name: "upload token",
      whenExpired: "register the document again",
    });
  }
}
