/**
 * The logged-in user, kept in localStorage for the UI's origin so that a
 * reload or a new tab stays logged in until logout or expiry.
 * @module
 */

const KEY = "svc.session";

/** Who is logged in, and the bearer token the API gave. */
export interface Session {
  user: string;
  token: string;
}

/** The stored session, if any. */
export function loadSession(): Session | undefined {
  try {
    const value = JSON.parse(localStorage.getItem(KEY) ?? "null");
    if (typeof value?.token === "string" && typeof value?.user === "string") return value;
  } catch {
    // A broken entry is no session.
  }
  return undefined;
}

export function saveSession(session: Session): void {
  localStorage.setItem(KEY, JSON.stringify(session));
}

export function clearSession(): void {
  localStorage.removeItem(KEY);
}

const SIGN_IN_KEY = "svc.signIn";

/**
 * A mark of a provider's sign-in that this tab starts, kept in the tab until
 * it comes back: a session in the address is taken only with it.
 */
export function startSignIn(): string {
  const mark = crypto.randomUUID();
  sessionStorage.setItem(SIGN_IN_KEY, mark);
  return mark;
}

/** Whether `mark` is the one this tab's sign-in kept; it is used up either way. */
export function takeSignIn(mark: string | null): boolean {
  const kept = sessionStorage.getItem(SIGN_IN_KEY);
  sessionStorage.removeItem(SIGN_IN_KEY);
  return mark !== null && kept === mark;
}

/**
 * The user a session token names, from its claims; only for showing it,
 * since the API checks the token.
 *
 * @example
 * ```ts
 * import { userOfToken } from "./session.ts";
 * const claims = btoa(JSON.stringify({ user: "ada" })).replace(/=+$/, "");
 * console.assert(userOfToken(`x.${claims}.y`) === "ada");
 * console.assert(userOfToken("not a token") === "");
 * ```
 */
export function userOfToken(token: string): string {
  try {
    const part = token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/");
    const json = new TextDecoder().decode(Uint8Array.from(atob(part), (c) => c.charCodeAt(0)));
    const user = JSON.parse(json).user;
    return typeof user === "string" ? user : "";
  } catch {
    return "";
  }
}
