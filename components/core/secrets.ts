/**
 * The one place that knows the process's secrets: the keys of its assistants
 * and embedders, the passwords and tokens of its database URLs, its signing
 * secrets. They are registered at start from the environment and the
 * configuration, and by the components that hold keys; {@linkcode redact}
 * hides them, with URLs' secret parts and credentials of any kind, in every
 * message and log line.
 * @module
 */
import { redactCredentials } from "./credentials.ts";
import { redactUrls } from "./redact_url.ts";

/** Shorter values are no secret worth the name, and hiding them would garble the text. */
const MIN_SECRET_LENGTH = 4;

/** Variables whose value is a secret by their name: `OPENAI_API_KEY`, `SVC_API_SESSION_SECRET`. */
const SECRET_NAME = /(?:^|_)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIALS?)$/i;

/** Query parameters whose value is a secret by their name: `authToken`, `api_key`, `sig`. */
const SECRET_PARAMETER = /token|key|secret|password|passwd|pwd|auth|sig|credential/i;

/** Variables that may name a server without a scheme, its user and password in it: `OLLAMA_HOST`. */
const URL_NAME = /(?:^|_)(?:URL|URI|HOST|PROXY)$/i;

/** Secrets known by value, hidden as `***` wherever they show. */
export class Secrets {
  #values = new Set<string>();
  #longestFirst: string[] = [];

  /**
   * Registers a secret with the forms it travels in: as it is, URL-encoded,
   * JSON-escaped, and in base64 (as `Basic` sends it).
   */
  add(value: string | undefined): void {
    if (value === undefined) return;
    this.#register([
      value,
      encodeURIComponent(value),
      JSON.stringify(value).slice(1, -1),
      base64(value),
    ]);
  }

  /**
   * Registers the secret parts of a URL: its password, its user information with it
   * (`user:password`) and that as `fetch` sends it (`Basic` and its base64), and the values of
   * query parameters named as secrets (`?authToken=...`, `?api_key=...`), each raw and decoded.
   * Its user name alone, the other parameters and their names are no secret: hidden wherever they
   * show, they would garble every message that holds the same words (`postgres`, `require`).
   */
  addUrl(url: string | undefined): void {
    if (url === undefined) return;
    const parsed = urlOf(url);
    if (!parsed) return;
    const parts: string[] = [];
    if (parsed.password) {
      const user = safeDecode(parsed.username);
      const password = safeDecode(parsed.password);
      parts.push(
        parsed.password,
        password,
        `${parsed.username}:${parsed.password}`,
        `${user}:${password}`,
        base64(`${user}:${password}`),
      );
    }
    for (const [name, value] of parsed.searchParams) {
      if (SECRET_PARAMETER.test(name)) parts.push(value, encodeURIComponent(value));
    }
    this.#register(parts);
  }

  /**
   * Registers an environment variable as its name tells: the value of a key,
   * token, secret or password (`*_KEY`, `*_TOKEN`, ...), and the secret parts
   * of any value written as a URL.
   */
  addVariable(name: string, value: string | undefined): void {
    if (value === undefined) return;
    if (SECRET_NAME.test(name)) this.add(value);
    if (value.includes("://") || (URL_NAME.test(name) && value.includes("@"))) this.addUrl(value);
  }

  /** The longest secret known, in characters: what an excerpt must read past its cut. */
  get longest(): number {
    return this.#longestFirst[0]?.length ?? 0;
  }

  /**
   * The text with every secret known replaced by `***`, the longest first so
   * that no part of a longer one shows. One native search per secret: linear
   * in the text for a given set of secrets.
   */
  hide(text: string): string {
    let result = text;
    for (const secret of this.#longestFirst) {
      if (result.includes(secret)) result = result.replaceAll(secret, "***");
    }
    return result;
  }

  #register(values: readonly string[]): void {
    const before = this.#values.size;
    for (const value of values) {
      if (value.length >= MIN_SECRET_LENGTH) this.#values.add(value);
    }
    if (this.#values.size !== before) {
      this.#longestFirst = [...this.#values].sort((a, b) => b.length - a.length);
    }
  }
}

/** The secrets of this process. */
export const secrets: Secrets = new Secrets();

/**
 * Registers the secrets of an environment, the process's by default: see
 * {@linkcode Secrets.addVariable}.
 */
export function addEnvironmentSecrets(
  env: Readonly<Record<string, string>> = processEnvironment(),
): void {
  for (const [name, value] of Object.entries(env)) secrets.addVariable(name, value);
}

function processEnvironment(): Record<string, string> {
  try {
    return Deno.env.toObject();
  } catch {
    // Without the permission to read it, nothing of it can reach a message either.
    return {};
  }
}

/**
 * The text as a message or a log line may show it: the process's secrets
 * hidden, URLs without their user name, password, query and fragment, and
 * credentials of any scheme hidden (see `credentials.ts`). Linear in the
 * text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redact, secrets } from "./secrets.ts";
 * secrets.add("sk-example-4242");
 * assert.equal(
 *   redact("Invalid key sk-example-4242 for http://ada:pw@gpu-box/v1?x=1 (Bearer eyJ0eXAiOi)"),
 *   "Invalid key *** for http://gpu-box/v1 (Bearer ***)",
 * );
 * ```
 */
export function redact(text: string): string {
  return redactCredentials(redactUrls(secrets.hide(text)));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Base64 of the text's UTF-8 bytes. */
function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** A URL as a URL parser reads it; one without a scheme (`user:pw@host:11434`) read as http. */
function urlOf(url: string): URL | undefined {
  if (URL.canParse(url) && /^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return new URL(url);
  return URL.canParse(`http://${url}`) ? new URL(`http://${url}`) : undefined;
}
