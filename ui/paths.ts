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

/**
 * The login page's address for a reason, and the page of the UI to come back
 * to once logged in (none for the chat list).
 */
export function loginUrl(reason?: LoginReason, next?: string): string {
  const query = new URLSearchParams();
  if (reason) query.set("reason", reason);
  const back = safeNext(next);
  if (back !== "/") query.set("next", back);
  return query.size > 0 ? `${AUTH_PATH}?${query}` : AUTH_PATH;
}

/**
 * A page of this UI to go to after logging in: a path of the same origin,
 * never another site's address; the chat list otherwise.
 *
 * @example
 * ```ts
 * import { safeNext } from "./paths.ts";
 * console.assert(safeNext("/?chat=abc") === "/?chat=abc");
 * console.assert(safeNext("//evil.example/") === "/");
 * console.assert(safeNext("https://evil.example/") === "/");
 * ```
 */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.includes("\\")) return "/";
  return next;
}

/**
 * The API's address that starts a sign-in at an OpenID provider, which
 * comes back to this UI's login page with `signin` (which the tab that
 * started it kept, so that a link made elsewhere cannot sign it in), and from
 * there to `next`.
 *
 * @example
 * ```ts
 * import { openIdConnectLoginUrl } from "./paths.ts";
 * const url = new URL(openIdConnectLoginUrl("http://127.0.0.1:31476", "http://127.0.0.1:31477", {
 *   next: "/?chat=a",
 *   signIn: "f00",
 * }));
 * console.assert(url.pathname === "/auth/oidc/login");
 * const back = "http://127.0.0.1:31477/auth/?next=%2F%3Fchat%3Da&signin=f00";
 * console.assert(url.searchParams.get("return_to") === back);
 * ```
 */
export function openIdConnectLoginUrl(
  apiUrl: string,
  pageOrigin: string,
  options: { next?: string; signIn: string },
): string {
  const returnTo = new URL(loginUrl(undefined, options.next), pageOrigin);
  returnTo.searchParams.set("signin", options.signIn);
  return `${apiUrl}/auth/oidc/login?${new URLSearchParams({ return_to: returnTo.href })}`;
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
