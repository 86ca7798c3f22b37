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
