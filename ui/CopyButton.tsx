/**
 * A button that copies a text and says whether it worked.
 * @module
 */
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { copyText } from "./clipboard.ts";
import { Icon } from "./Icons.tsx";

/** Copies `text` when pressed. */
export function CopyButton(props: { text: string; label: string }): JSX.Element {
  const [result, setResult] = useState<"copied" | "failed" | undefined>(undefined);
  useEffect(() => {
    if (!result) return;
    const timer = setTimeout(() => setResult(undefined), 2500);
    return () => clearTimeout(timer);
  }, [result]);
  return (
    <button
      type="button"
      class={`button ghost small${result === "failed" ? " danger" : ""}`}
      onClick={() =>
        copyText(props.text).then(() => setResult("copied"), () => setResult("failed"))}
    >
      <Icon name={result === "copied" ? "check" : "copy"} />
      <span aria-live="polite">
        {result === "copied" ? "Copied" : result === "failed" ? "Copy failed" : props.label}
      </span>
    </button>
  );
}
