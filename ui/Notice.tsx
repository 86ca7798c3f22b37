/**
 * A problem told in words at the top of the page, until dismissed.
 * @module
 */
import type { JSX } from "preact";
import { Icon } from "./Icons.tsx";

/** An error banner. */
export function Notice(props: { message: string; onDismiss?: () => void }): JSX.Element {
  return (
    <div class="notice" role="alert">
      <Icon name="alert" />
      <p>{props.message}</p>
      {props.onDismiss && (
        <button
          type="button"
          class="button icon-only ghost small"
          aria-label="Dismiss"
          onClick={props.onDismiss}
        >
          <Icon name="close" />
        </button>
      )}
    </div>
  );
}
