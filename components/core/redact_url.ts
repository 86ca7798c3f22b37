/**
 * URLs as messages and logs may show them: scheme, host and path, without the
 * user name and password, the query or the fragment, any of which may hold a
 * secret (`https://ada:pw@host/v1?key=...`). Every URL that reaches an error
 * message, a log line or `svc check` goes through here.
 * @module
 */
import { isAsciiDigit, isAsciiLetter, isSpace, type Work } from "./text_scan.ts";

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
  let reduced = "";
  let kept = 0;
  for (const [start, end] of urlSpans(text)) {
    const match = text.slice(start, end);
    // A URL in parentheses ends at the last closing one, which is not part of it.
    const close = text[start - 1] === "(" ? match.lastIndexOf(")") : -1;
    reduced += text.slice(kept, start) +
      (close === -1 ? redactUrl(match) : redactUrl(match.slice(0, close)) + match.slice(close));
    kept = end;
  }
  reduced += text.slice(kept);
  // The longest first, so that a part of a longer secret never shows.
  const secrets = [...new Set((options.secretsOf ?? []).flatMap(secretParts))]
    .filter((part) => part.length >= 4)
    .sort((a, b) => b.length - a.length);
  return secrets.reduce((result, secret) => result.replaceAll(secret, "***"), reduced);
}

/**
 * Where the URLs of a text are, as `[start, end)` pairs: what
 * `/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>\`]+/gi` matches, a scheme, `://` and all up
 * to white space, a quote or an angle bracket, found in time linear in the
 * text, which that expression is not (it starts again at each letter of a
 * long run of letters and reads the run to its end each time).
 *
 * Each `://` is found once, by a forward search; the walk back over its
 * scheme stops at the `:` of the one before, since `:` is no scheme
 * character, and the walk forward over a URL ends where the next search
 * starts: no character is looked at more than three times. `work` counts
 * them, for a test.
 */
export function urlSpans(text: string, work: Work = { steps: 0 }): [number, number][] {
  const spans: [number, number][] = [];
  let from = 0;
  while (true) {
    const colon = text.indexOf("://", from);
    work.steps += (colon < 0 ? text.length : colon + 3) - from;
    if (colon < 0) return spans;
    let start = colon;
    while (start > from && isSchemeCharacter(text.charCodeAt(start - 1))) {
      start--;
      work.steps++;
    }
    // The leftmost start a match can have: the first letter of the run.
    while (start < colon && !isAsciiLetter(text.charCodeAt(start))) {
      start++;
      work.steps++;
    }
    let end = colon + 3;
    if (start < colon) {
      while (end < text.length && !endsUrl(text.charCodeAt(end))) {
        end++;
        work.steps++;
      }
    }
    if (start < colon && end > colon + 3) {
      spans.push([start, end]);
      from = end;
    } else {
      from = colon + 1;
    }
  }
}

/** `[a-z0-9+.-]`, either case. */
function isSchemeCharacter(code: number): boolean {
  return isAsciiLetter(code) || isAsciiDigit(code) || code === 0x2b || code === 0x2e ||
    code === 0x2d;
}

/** `[\s"'<>\`]`: what ends a URL in running text. */
function endsUrl(code: number): boolean {
  return isSpace(code) || code === 0x22 || code === 0x27 || code === 0x3c || code === 0x3e ||
    code === 0x60;
}

/** What {@linkcode redactUrl} drops of a URL, whole and piece by piece, raw and decoded. */
export function secretParts(url: string): string[] {
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
