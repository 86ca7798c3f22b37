/**
 * The login page (`/auth/`): it says how the configured authentication
 * works, and why a login failed; with an OpenID provider, it is one link
 * that signs in there.
 * @module
 */
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { type ApiClient, ApiError, describeError } from "./api_client.ts";
import type { UiSettings } from "./api_types.ts";
import { Icon, Logo } from "./Icons.tsx";
import { type LoginReason, openIdConnectLoginUrl } from "./paths.ts";
import { saveSession, startSignIn, userOfToken } from "./session.ts";

const REASONS: Record<string, string> = {
  expired: "Your session has ended. Log in again to go on.",
  "logged-out": "You are logged out.",
};

/** What the login page is given. */
interface LoginProps {
  api: ApiClient;
  settings: UiSettings;
  reason: LoginReason;
  /** The page of the UI to go to once logged in. */
  next: string;
  /** Why the last sign-in failed, as the API said. */
  failure?: string;
}

/** The login form, or the link to the OpenID provider. */
export function LoginPage(props: LoginProps): JSX.Element {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>(props.failure);
  const demo = props.settings.demoAuthentication;
  const proxied = props.settings.trustedProxy;
  useEffect(() => {
    document.title = "Log in · svc";
    // Behind a proxy that has signed the user in, there is nothing to ask: go on, unless the user
    // has just logged out.
    if (proxied && props.reason !== "logged-out") void logIn("", "");
  }, []);

  function submit(event: Event) {
    event.preventDefault();
    void logIn(username, password);
  }

  async function logIn(name: string, secret: string) {
    setBusy(true);
    setFailure(undefined);
    try {
      const token = await props.api.login(name, secret);
      // Behind the proxy the form is empty, and the session names the user the proxy named.
      saveSession({ user: proxied ? userOfToken(token) : name, token });
      location.replace(props.next);
    } catch (error) {
      // The API's own sentence says it best: a wrong password (401), or that it cannot be reached.
      setFailure(
        error instanceof ApiError ? error.message : `Cannot log in: ${describeError(error)}`,
      );
      setBusy(false);
    }
  }

  const reason = props.reason && REASONS[props.reason];
  const provider = props.settings.openIdConnect;
  if (proxied) {
    return (
      <main class="login-page">
        <div class="login-card" role="region" aria-labelledby="login-title">
          <CardTop reason={reason} />
          <p>This svc signs you in through the proxy in front of it.</p>
          {failure && (
            <p class="login-error" role="alert">
              <Icon name="alert" /> {failure}
            </p>
          )}
          <button
            type="button"
            class="button primary wide"
            disabled={busy}
            onClick={() => void logIn("", "")}
          >
            {busy ? "Logging in…" : "Continue"}
          </button>
          <p class="login-foot">svc {props.settings.version} · API at {props.api.baseUrl}</p>
        </div>
      </main>
    );
  }
  if (provider) {
    return (
      <main class="login-page">
        <div class="login-card" role="region" aria-labelledby="login-title">
          <CardTop reason={reason} />
          {failure && (
            <p class="login-error" role="alert">
              <Icon name="alert" /> {failure}
            </p>
          )}
          <a
            class="button primary wide"
            href={openIdConnectLoginUrl(props.api.baseUrl, location.origin, {
              next: props.next,
              signIn: "",
            })}
            onClick={(event) => {
              // The mark is made on the click, so that only this tab's sign-in is taken back.
              event.currentTarget.href = openIdConnectLoginUrl(props.api.baseUrl, location.origin, {
                next: props.next,
                signIn: startSignIn(),
              });
            }}
          >
            Sign in with {provider.name}
          </a>
          <p class="login-foot">svc {props.settings.version} · API at {props.api.baseUrl}</p>
        </div>
      </main>
    );
  }
  return (
    <main class="login-page">
      <form class="login-card" onSubmit={submit} aria-labelledby="login-title">
        <CardTop reason={reason} />
        {demo && (
          <div class="demo-rule">
            <Icon name="info" />
            <p>
              This svc uses demo authentication: anyone can log in with any username,{" "}
              {demo.sharedPassword
                ? "using the password its administrator set (SVC_DEMO_AUTHENTICATION_PASSWORD)."
                : "using the username itself as the password."}{" "}
              Each username sees only its own chats.
            </p>
          </div>
        )}
        <div class="field">
          <label for="username">Username</label>
          <input
            id="username"
            name="username"
            autoComplete="username"
            value={username}
            onInput={(event) => setUsername(event.currentTarget.value)}
            autofocus
          />
        </div>
        <div class="field">
          <label for="password">Password</label>
          <input
            id="password"
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        </div>
        {failure && (
          <p class="login-error" role="alert">
            <Icon name="alert" /> {failure}
          </p>
        )}
        <button type="submit" class="button primary wide" disabled={busy}>
          {busy ? "Logging in…" : "Log in"}
        </button>
        <p class="login-foot">svc {props.settings.version} · API at {props.api.baseUrl}</p>
      </form>
    </main>
  );
}

/** The top of the login card: svc's name, the title, and why the page is shown. */
function CardTop(props: { reason: string | undefined }): JSX.Element {
  return (
    <>
      <div class="login-brand">
        <Logo />
        <span class="brand-name">svc</span>
      </div>
      <h1 id="login-title">Log in</h1>
      {props.reason && <p class="login-reason" role="status">{props.reason}</p>}
    </>
  );
}
