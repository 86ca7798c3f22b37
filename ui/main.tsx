/**
 * The entry of the web UI: reads the settings the server put in the page,
 * picks the page for the address, and renders it.
 * @module
 */
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference lib="dom.asynciterable" />
import { render } from "preact";
import { ApiClient } from "./api_client.ts";
import type { UiSettings } from "./api_types.ts";
import { App, Crash, type Page } from "./App.tsx";
import {
  AUTH_PATH,
  browserApiUrl,
  type LoginReason,
  loginUrl,
  LOGOUT_PATH,
  safeNext,
} from "./paths.ts";
import { clearSession, loadSession, saveSession, takeSignIn } from "./session.ts";

function readSettings(): UiSettings {
  const element = document.getElementById("svc-settings");
  return JSON.parse(element?.textContent ?? "{}");
}

function start(root: HTMLElement) {
  const settings = readSettings();
  const api = new ApiClient(browserApiUrl(settings.apiUrl, location.hostname), {
    token: () => loadSession()?.token,
    onUnauthorized() {
      clearSession();
      location.replace(loginUrl("expired", here()));
    },
  });
  const path = location.pathname;
  let page: Page;
  if (path === LOGOUT_PATH) {
    // The session ends on the server first, so that the token is refused wherever it went; the
    // token is forgotten here even when the API cannot be reached.
    const leave = () => {
      clearSession();
      location.replace(loginUrl("logged-out"));
    };
    api.logout().then(leave, leave);
    return;
  } else if (path === AUTH_PATH) {
    const query = new URLSearchParams(location.search);
    const next = safeNext(query.get("next"));
    // Back from a provider's sign-in: the API put the session, or what went wrong, in the
    // fragment, which no server sees; it leaves the address (and the history) at once.
    const back = new URLSearchParams(location.hash.slice(1));
    const token = back.get("token");
    const user = back.get("user");
    if (token && user !== null && takeSignIn(query.get("signin"))) saveSession({ user, token });
    if (location.hash) history.replaceState(null, "", location.pathname + location.search);
    if (loadSession()) {
      location.replace(next);
      return;
    }
    const reason = query.get("reason") ?? undefined;
    page = {
      name: "login",
      reason: reason as LoginReason,
      next,
      failure: back.get("error") ?? undefined,
    };
  } else {
    const session = loadSession();
    if (!session) {
      location.replace(loginUrl(undefined, here()));
      return;
    }
    page = { name: "workspace", session };
  }
  root.textContent = "";
  render(<App api={api} settings={settings} page={page} />, root);
}

/** This page of the UI, to come back to after a login. */
function here(): string {
  return location.pathname + location.search;
}

const root = document.getElementById("app")!;
try {
  start(root);
} catch (error) {
  render(<Crash error={error} />, root);
}
