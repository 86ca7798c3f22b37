/**
 * ‹ 1/2 ›: which version of a message is shown, an earlier answer or an
 * earlier wording of a question.
 * @module
 */
import type { JSX } from "preact";
import { Icon } from "./Icons.tsx";

/** Steps through `count` versions; `index` from 0. */
export function VersionSwitch(props: {
  index: number;
  count: number;
  /** What the versions are: "answer", "question". */
  of: string;
  onChange: (index: number) => void;
}): JSX.Element {
  const { index, count } = props;
  return (
    <span class="versions" role="group" aria-label={`Versions of the ${props.of}`}>
      <button
        type="button"
        class="button ghost small icon-only"
        aria-label={`Earlier ${props.of}`}
        aria-disabled={index <= 0}
        onClick={() => index > 0 && props.onChange(index - 1)}
      >
        <Icon name="back" />
      </button>
      <span class="versions-count" aria-live="polite">
        <span class="visually-hidden">Version</span> {index + 1}/{count}
      </span>
      <button
        type="button"
        class="button ghost small icon-only"
        aria-label={`Later ${props.of}`}
        aria-disabled={index >= count - 1}
        onClick={() => index < count - 1 && props.onChange(index + 1)}
      >
        <Icon name="forward" />
      </button>
    </span>
  );
}
