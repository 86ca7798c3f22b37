/**
 * The app: the login page or the workspace, and a readable page instead of
 * a blank one if the code itself breaks.
 * @module
 */
import type { JSX } from "preact";
import { useErrorBoundary } from "preact/hooks";
import type { ApiClient } from "./api_client.ts";
import type { UiSettings } from "./api_types.ts";
import { Icon } from "./Icons.tsx";
import { LoginPage } from "./LoginPage.tsx";
import type { LoginReason } from "./paths.ts";
import type { Session } from "./session.ts";
import { Workspace } from "./Workspace.tsx";

/** Which page to show. */
export type Page =
  | { name: "login"; reason: LoginReason; next: string; failure?: string }
  | { name: "workspace"; session: Session };

/** The whole UI. */
export function App(props: { api: ApiClient; settings: UiSettings; page: Page }): JSX.Element {
  const [error] = useErrorBoundary((error) => console.error(error));
  if (error) return <Crash error={error} />;
  return props.page.name === "login"
    ? (
      <LoginPage
        api={props.api}
        settings={props.settings}
        reason={props.page.reason}
        next={props.page.next}
        failure={props.page.failure}
      />
    )
    : <Workspace api={props.api} settings={props.settings} session={props.page.session} />;
}

/** What the page says when its own code failed. */
export function Crash(props: { error: unknown }): JSX.Element {
  const message = props.error instanceof Error ? props.error.message : String(props.error);
  return (
    <main class="login-page">
      <div class="state-card" role="alert">
        <Icon name="alert" class="state-icon" />
        <h1>Something went wrong in this page</h1>
        <p>{message}</p>
        <p class="muted">Your chats are safe on the server. Reloading the page usually helps.</p>
        <button type="button" class="button primary" onClick={() => location.reload()}>
          <Icon name="refresh" /> Reload
        </button>
      </div>
    </main>
  );
}
