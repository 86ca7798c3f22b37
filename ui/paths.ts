/**
 * The UI's pages and how to move between them.
 * @module
 */

/** The login page. */
export const AUTH_PATH = "/auth/";
/** The logout page, which forgets the session and shows the login page. */
export const LOGOUT_PATH = "/logout/";

/** Why the login page is shown, as its query says. */
export type LoginReason = "expired" | "logged-out" | undefined;

/** The login page's address for a reason. */
export function loginUrl(reason?: LoginReason): string {
  return reason ? `${AUTH_PATH}?${new URLSearchParams({ reason })}` : AUTH_PATH;
}

/**
 * The API's address as the browser must use it: an API bound to every
 * interface (`0.0.0.0`, `[::]`) is reached on the host the page came from.
 *
 * @example
 * ```ts
 * import { browserApiUrl } from "./paths.ts";
 * console.assert(browserApiUrl("http://0.0.0.0:31476", "example.org") === "http://example.org:31476");
 * console.assert(browserApiUrl("http://127.0.0.1:31476/svc", "x") === "http://127.0.0.1:31476/svc");
 * ```
 */
export function browserApiUrl(apiUrl: string, pageHostname: string): string {
  try {
    const url = new URL(apiUrl);
    if (url.hostname === "0.0.0.0" || url.hostname === "[::]") {
      url.hostname = pageHostname;
      return url.href.replace(/\/$/, apiUrl.endsWith("/") ? "/" : "");
    }
  } catch {
    // Not a URL: let the first request fail with the address in its message.
  }
  return apiUrl;
}
