/**
 * The sources of an answer, best first: rank, document, location, the whole
 * passage, and a button that opens the document at the passage's page. A
 * citation of the answer opens the panel at its source.
 * @module
 */
import type { JSX } from "preact";
import { useEffect } from "preact/hooks";
import type { Source } from "./api_types.ts";
import { Icon } from "./Icons.tsx";
import { formatLocation } from "./location.ts";
import { SidePanel } from "./SidePanel.tsx";

/** The passages an answer was written from. */
export function SourcesPanel(props: {
  sources: Source[];
  /** The source a citation asked for, from 1: opened, shown and given the focus. */
  focus?: number;
  onOpenDocument: (source: Source, rank: number) => void;
  onClose: () => void;
}): JSX.Element {
  const { focus } = props;
  useEffect(() => {
    if (focus === undefined) return;
    const summary = document.querySelector<HTMLElement>(`#source-${focus} summary`);
    summary?.scrollIntoView({ block: "nearest" });
    // After the panel has taken the focus for its close button.
    requestAnimationFrame(() => summary?.focus());
  }, [focus, props.sources]);
  return (
    <SidePanel id="sources" title="Sources" onClose={props.onClose}>
      <p class="panel-intro">
        The answer was written from these passages of the chat's documents, best match first.
      </p>
      <ol class="sources">
        {props.sources.map((source, index) => {
          const location = formatLocation(source.location, source.document.name);
          const rank = index + 1;
          const open = focus === undefined ? index === 0 : rank === focus;
          return (
            <li
              key={`${source.id}-${rank === focus}`}
              id={`source-${rank}`}
              class={`source${rank === focus ? " cited" : ""}`}
            >
              <details open={open}>
                <summary>
                  <span class="source-rank" aria-label={`Source ${rank}`}>{rank}</span>
                  <span class="source-title">
                    <span class="source-document">
                      <Icon name="file" /> {source.document.name}
                    </span>
                    {location && <span class="source-location">{location}</span>}
                  </span>
                </summary>
                <blockquote class="passage">{source.content}</blockquote>
                <div class="source-foot">
                  <p class="source-meta">{source.num_tokens} tokens</p>
                  <button
                    type="button"
                    class="button ghost small"
                    onClick={() => props.onOpenDocument(source, rank)}
                  >
                    <Icon name="book" /> {location ? "Open at page" : "Open the document"}
                  </button>
                </div>
              </details>
            </li>
          );
        })}
      </ol>
    </SidePanel>
  );
}
