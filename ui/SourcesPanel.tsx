/**
 * The sources of an answer, best first: rank, document, location, and the
 * whole passage.
 * @module
 */
import type { JSX } from "preact";
import type { Source } from "./api_types.ts";
import { Icon } from "./Icons.tsx";
import { formatLocation } from "./location.ts";
import { SidePanel } from "./SidePanel.tsx";

/** The passages an answer was written from. */
export function SourcesPanel(props: { sources: Source[]; onClose: () => void }): JSX.Element {
  return (
    <SidePanel id="sources" title="Sources" onClose={props.onClose}>
      <p class="panel-intro">
        The answer was written from these passages of the chat's documents, best match first.
      </p>
      <ol class="sources">
        {props.sources.map((source, index) => {
          const location = formatLocation(source.location);
          return (
            <li key={source.id} class="source">
              <details open={index === 0}>
                <summary>
                  <span class="source-rank" aria-label={`Rank ${index + 1}`}>{index + 1}</span>
                  <span class="source-title">
                    <span class="source-document">
                      <Icon name="file" /> {source.document.name}
                    </span>
                    {location && <span class="source-location">{location}</span>}
                  </span>
                </summary>
                <blockquote class="passage">{source.content}</blockquote>
                <p class="source-meta">{source.num_tokens} tokens</p>
              </details>
            </li>
          );
        })}
      </ol>
    </SidePanel>
  );
}
