/**
 * URLs as messages and logs may show them: scheme, host and path, without the
 * user name and password, the query or the fragment, any of which may hold a
 * secret (`https://ada:pw@host/v1?key=...`). Every URL that reaches an error
 * message, a log line or `svc check` goes through here.
 * @module
 */

/**
 * The URL reduced to its scheme, host and path, as written (the path is not
 * normalised, so a file name reads as it was given). Something that is not a
 * URL loses whatever could be a password (all before its last `@`) and all
 * from its first `?` or `#`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactUrl } from "./redact_url.ts";
 * assert.equal(redactUrl("https://ada:pw@api.example.com/v1?key=secret#x"), "https://api.example.com/v1");
 * assert.equal(redactUrl("ada:pw@gpu-box:11434"), "gpu-box:11434");
 * assert.equal(redactUrl("sqlite:///data/svc.db"), "sqlite:///data/svc.db");
 * ```
 */
export function redactUrl(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? "";
  let rest = url.slice(scheme.length);
  if (URL.canParse(url)) {
    // As a URL parser reads it: the user name and password end at the last
    // "@" of the authority, which ends at the first of "/?#" (for http, "\\"
    // too, which may only hide more here, never less).
    const authority = rest.slice(0, rest.search(/[/?#]|$/));
    rest = rest.slice(authority.lastIndexOf("@") + 1);
  } else {
    // Not a URL ("ada:p?w@host", a password with a "/" or "?" unescaped):
    // every "@" may end a password, so none of it shows.
    rest = rest.slice(rest.lastIndexOf("@") + 1);
  }
  return scheme + rest.replace(/[?#][\s\S]*$/, "");
}

/** A URL with a scheme in running text, up to white space, a quote or an angle bracket. */
const URL_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/** Options of {@linkcode redactUrls}. */
export interface RedactUrlsOptions {
  /**
   * URLs whose secret parts (user name, password, query, its values and the
   * fragment) are hidden as `***` wherever they show in the text, also apart
   * from their URL, as libraries quote them
   * (`URL fragments are not supported: "#key"`). Parts shorter than four
   * characters are left alone: they are no secret worth the name, and hiding
   * them (`tls=0`) would garble the text.
   * @default {[]}
   */
  secretsOf?: readonly string[];
}

/**
 * The text with every URL in it reduced by {@linkcode redactUrl}: for
 * messages that carry another library's words, such as fetch's
 * `error sending request for url (http://ada:pw@host/?key=...)`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactUrls } from "./redact_url.ts";
 * assert.equal(
 *   redactUrls("error sending request for url (http://ada:pw@host/v1?key=s): refused"),
 *   "error sending request for url (http://host/v1): refused",
 * );
 * const url = "libsql://db.internal?authToken=s3cr3t-token";
 * assert.equal(
 *   redactUrls('Unknown value "s3cr3t-token"', { secretsOf: [url] }),
 *   'Unknown value "***"',
 * );
 * ```
 */
export function redactUrls(text: string, options: RedactUrlsOptions = {}): string {
  const reduced = text.replace(URL_IN_TEXT, (match, offset: number) => {
    // A URL in parentheses ends at the last closing one, which is not part of it.
    const close = text[offset - 1] === "(" ? match.lastIndexOf(")") : -1;
    return close === -1 ? redactUrl(match) : redactUrl(match.slice(0, close)) + match.slice(close);
  });
  // The longest first, so that a part of a longer secret never shows.
  const secrets = [...new Set((options.secretsOf ?? []).flatMap(secretParts))]
    .filter((part) => part.length >= 4)
    .sort((a, b) => b.length - a.length);
  return secrets.reduce((result, secret) => result.replaceAll(secret, "***"), reduced);
}

/** What {@linkcode redactUrl} drops of a URL, whole and piece by piece, raw and decoded. */
function secretParts(url: string): string[] {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? "";
  const kept = redactUrl(url);
  const rest = url.slice(scheme.length);
  const keptRest = kept.slice(scheme.length);
  const start = rest.indexOf(keptRest);
  const userInfo = start > 0 ? rest.slice(0, start - 1) : "";
  const after = start >= 0 ? rest.slice(start + keptRest.length) : "";
  const pieces = [userInfo, ...userInfo.split(":"), after, ...after.slice(1).split(/[?#&=]/)];
  return pieces.flatMap((piece) => [piece, safeDecode(piece)]);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
