/**
 * A chat's documents as pills, at most {@linkcode PILL_LIMIT}; a "+N more"
 * button shows the rest. A pill opens its document.
 * @module
 */
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import type { Document } from "./api_types.ts";
import { Icon } from "./Icons.tsx";
import { splitPills } from "./pills.ts";

/** The documents of a chat. */
export function DocumentPills(
  props: { documents: Document[]; onOpen: (document: Document) => void },
): JSX.Element {
  const [expanded, setExpanded] = useState(false);
  const { shown, hidden } = splitPills(props.documents);
  const pill = (document: Document) => (
    <li key={document.id}>
      <button
        type="button"
        class="pill"
        title={document.name}
        aria-label={`Open ${document.name}`}
        onClick={() => props.onOpen(document)}
      >
        <Icon name="file" />
        <span class="pill-name">{document.name}</span>
      </button>
    </li>
  );
  return (
    <div class="pills-block">
      <ul class="pills" aria-label="Documents">
        {shown.map(pill)}
        {hidden.length > 0 && (
          <li>
            <button
              type="button"
              class="pill more"
              aria-expanded={expanded}
              aria-controls="more-documents"
              onClick={() => setExpanded(!expanded)}
            >
              {expanded ? "Show fewer" : `+${hidden.length} more`}
            </button>
          </li>
        )}
      </ul>
      {hidden.length > 0 && expanded && (
        <ul class="pills more-pills" id="more-documents" aria-label="More documents">
          {hidden.map(pill)}
        </ul>
      )}
    </div>
  );
}
