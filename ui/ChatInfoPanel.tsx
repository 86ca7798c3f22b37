/**
 * What a chat was made with: its components, parameters and documents; its
 * export as Markdown or JSON.
 * @module
 */
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { describeError } from "./api_client.ts";
import type { Document } from "./api_types.ts";
import type { ViewChat } from "./chat_store.ts";
import { chatName } from "./conversation.ts";
import { chatJson, chatMarkdown, exportName } from "./export.ts";
import { Icon } from "./Icons.tsx";
import { SidePanel } from "./SidePanel.tsx";

/** The chat's settings, and its deletion. */
export function ChatInfoPanel(props: {
  chat: ViewChat;
  onClose: () => void;
  onDelete: () => void;
  onOpen: (document: Document) => void;
  /** Takes a document out of the chat. */
  onRemove: (document: Document) => Promise<void>;
}): JSX.Element {
  const [removing, setRemoving] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  async function remove(document: Document) {
    setBusy(true);
    setFailure(undefined);
    try {
      await props.onRemove(document);
    } catch (error) {
      setFailure(`Cannot take "${document.name}" out of the chat: ${describeError(error)}`);
    } finally {
      setBusy(false);
      setRemoving(undefined);
    }
  }
  const { metadata } = props.chat;
  const params = Object.entries(metadata.params);
  return (
    <SidePanel id="info" title="Chat info" onClose={props.onClose}>
      <p class="panel-intro">
        A chat keeps the settings it was made with; for others, start a new chat.
      </p>
      <dl class="facts">
        <dt>Assistant</dt>
        <dd>{metadata.assistant}</dd>
        <dt>Source storage</dt>
        <dd>{metadata.source_storage}</dd>
        <dt>Messages</dt>
        <dd>{props.chat.messages.length}</dd>
      </dl>
      <h3 class="panel-subhead">Parameters</h3>
      {params.length === 0
        ? <p class="muted">The components' defaults.</p>
        : (
          <dl class="facts params">
            {params.map(([name, value]) => [
              <dt key={`${name}-name`}>
                <code>{name}</code>
              </dt>,
              <dd key={`${name}-value`}>
                {typeof value === "string" ? value : JSON.stringify(value)}
              </dd>,
            ])}
          </dl>
        )}
      <h3 class="panel-subhead">Documents ({metadata.documents.length})</h3>
      {failure && <p class="field-error" role="alert">{failure}</p>}
      <ul class="document-list">
        {metadata.documents.map((document) => (
          <li key={document.id}>
            <button
              type="button"
              class="link-like document-open"
              aria-label={`Open ${document.name}`}
              onClick={() => props.onOpen(document)}
            >
              <Icon name="file" /> {document.name}
            </button>
            {removing === document.id
              ? (
                <span class="document-remove-ask">
                  <button
                    type="button"
                    class="button small danger-solid"
                    disabled={busy}
                    onClick={() => remove(document)}
                  >
                    Take out
                  </button>
                  <button
                    type="button"
                    class="button small ghost"
                    onClick={() => setRemoving(undefined)}
                  >
                    Keep
                  </button>
                </span>
              )
              : metadata.documents.length > 1 && (
                <button
                  type="button"
                  class="button ghost small icon-only"
                  aria-label={`Take ${document.name} out of the chat`}
                  onClick={() => setRemoving(document.id)}
                >
                  <Icon name="close" />
                </button>
              )}
          </li>
        ))}
      </ul>
      <h3 class="panel-subhead">Export</h3>
      <p class="muted">The questions and answers, each answer with its sources.</p>
      <div class="panel-actions">
        <button
          type="button"
          class="button small"
          aria-label="Export as Markdown"
          onClick={() =>
            download(
              exportName(chatName(props.chat), "md"),
              "text/markdown",
              chatMarkdown(props.chat),
            )}
        >
          <Icon name="download" /> Markdown
        </button>
        <button
          type="button"
          class="button small"
          aria-label="Export as JSON"
          onClick={() =>
            download(
              exportName(chatName(props.chat), "json"),
              "application/json",
              chatJson(props.chat),
            )}
        >
          <Icon name="download" /> JSON
        </button>
      </div>
      <button type="button" class="button danger-solid" onClick={props.onDelete}>
        <Icon name="trash" /> Delete this chat…
      </button>
    </SidePanel>
  );
}

/** Saves a text as a file through the browser's download. */
function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: `${type}; charset=utf-8` }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url));
}
