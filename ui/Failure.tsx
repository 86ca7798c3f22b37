/**
 * A failure on the page: its summary in plain words, the server's own
 * sentence behind "Details".
 * @module
 */
import type { JSX } from "preact";
import { explainFailure } from "./failures.ts";

/** The words of a failure; `lead` comes before the summary ("The answer failed:"). */
export function Failure(
  props: { message: string; status?: number; details?: string; lead?: string },
): JSX.Element {
  const explained = explainFailure(props.message, props.status);
  const details = [explained.details, props.details].filter(Boolean).join(" ");
  return (
    <span class="failure">
      <span class="failure-summary">
        {props.lead && `${props.lead} `}
        {explained.summary}
      </span>
      {details && (
        <details class="failure-details">
          <summary>Details</summary>
          <span>{details}</span>
        </details>
      )}
    </span>
  );
}
