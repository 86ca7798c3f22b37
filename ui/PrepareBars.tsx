/**
 * Preparing documents, a bar each: how far each one is read and indexed, and
 * why one failed.
 * @module
 */
import type { JSX } from "preact";
import type { Document } from "./api_types.ts";
import { Icon } from "./Icons.tsx";
import { fraction, type ProgressByDocument, stepText } from "./prepare_progress.ts";

/** One bar per document, in the documents' order. */
export function PrepareBars(props: {
  documents: readonly Document[];
  progress: ProgressByDocument;
  label?: string;
}): JSX.Element {
  return (
    <ul class="prepare-bars" aria-label={props.label ?? "Preparing the documents"}>
      {props.documents.map((document) => {
        const step = props.progress[document.id];
        const failed = step?.stage === "failed";
        return (
          <li key={document.id} class={`upload prepare-bar${failed ? " failed" : ""}`}>
            <Icon name={failed ? "alert" : step?.stage === "indexed" ? "check" : "file"} />
            <div class="upload-main">
              <div class="upload-line">
                <span class="upload-name" title={document.name}>{document.name}</span>
                <span class="upload-size">{failed ? "Failed" : stepText(step)}</span>
              </div>
              {failed
                ? <span class="upload-problem" role="alert">{stepText(step)}</span>
                : (
                  <progress
                    max={1}
                    value={fraction(step)}
                    aria-label={`Preparing ${document.name}`}
                    aria-valuetext={stepText(step)}
                  />
                )}
            </div>
          </li>
        );
      })}
    </ul>
  );
}
