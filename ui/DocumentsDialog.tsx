/**
 * The user's documents, newest first: each with its size, pages and the
 * chats that use it; opened, deleted (svc refuses while a chat uses one: the
 * dialog says which, and how to free it), or chosen for a new chat.
 * @module
 */
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { type ApiClient, describeError } from "./api_client.ts";
import type { Document, DocumentSummary } from "./api_types.ts";
import { chatName } from "./conversation.ts";
import { formatSize, pageCount } from "./files.ts";
import { Icon } from "./Icons.tsx";
import { Modal } from "./Modal.tsx";
import { Notice } from "./Notice.tsx";

/** The documents dialog. */
export function DocumentsDialog(props: {
  api: ApiClient;
  /** The user's chats, to name those that use a document. */
  chats: readonly { id: string; metadata: { name: string } }[];
  onOpen: (document: Document) => void;
  /** Starts a new chat from these documents. */
  onNewChat: (documents: DocumentSummary[]) => void;
  onClose: () => void;
}): JSX.Element {
  const [documents, setDocuments] = useState<DocumentSummary[] | undefined>(undefined);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [asking, setAsking] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  const load = () =>
    props.api.documents().then(setDocuments, (error) => setFailure(describeError(error)));
  useEffect(() => void load(), []);

  const nameOf = (chatId: string) => {
    const chat = props.chats.find((c) => c.id === chatId);
    return chat ? `"${chatName(chat)}"` : "a chat";
  };

  async function remove(document: DocumentSummary) {
    setBusy(true);
    setFailure(undefined);
    try {
      await props.api.deleteDocument(document.id);
      setDocuments((list) => list?.filter((d) => d.id !== document.id));
      setChosen((set) => new Set([...set].filter((id) => id !== document.id)));
    } catch (error) {
      setFailure(`Cannot delete "${document.name}": ${describeError(error)}`);
    } finally {
      setAsking(undefined);
      setBusy(false);
    }
  }

  const picked = (documents ?? []).filter((document) => chosen.has(document.id));
  return (
    <Modal id="documents" title="Your documents" class="wide" onClose={props.onClose}>
      <div class="modal-body">
        {failure && <Notice message={failure} />}
        {!documents && !failure && (
          <p aria-busy="true">
            <span class="spinner" aria-hidden="true" /> Reading your documents…
          </p>
        )}
        {documents?.length === 0 && (
          <p class="muted">No documents yet: they come with a new chat, or Add documents.</p>
        )}
        {documents && documents.length > 0 && (
          <ul class="document-rows" aria-label="Documents">
            {documents.map((document) => {
              const used = document.chats.length > 0;
              return (
                <li key={document.id} class="document-row">
                  <input
                    type="checkbox"
                    id={`pick-${document.id}`}
                    checked={chosen.has(document.id)}
                    onChange={(event) => {
                      const on = event.currentTarget.checked;
                      setChosen((set) => {
                        const next = new Set(set);
                        if (on) next.add(document.id);
                        else next.delete(document.id);
                        return next;
                      });
                    }}
                  />
                  <div class="document-row-main">
                    <label for={`pick-${document.id}`} class="document-row-name">
                      {document.name}
                    </label>
                    <span class="document-row-meta">
                      {document.size !== null && formatSize(document.size)}
                      {document.pages !== null && ` · ${pageCount(document.name, document.pages)}`}
                      {" · "}
                      {used ? `used by ${document.chats.map(nameOf).join(", ")}` : "in no chat"}
                    </span>
                    {asking === document.id && (
                      <div class="document-row-ask" role="group" aria-label="Delete">
                        {used
                          ? (
                            <p>
                              {`${nameOf(document.chats[0]!)} uses it: take it out of the chat ` +
                                "(Chat info) or delete the chat first."}
                            </p>
                          )
                          : <p>Delete it for good?</p>}
                        {!used && (
                          <button
                            type="button"
                            class="button small danger-solid"
                            disabled={busy}
                            onClick={() => remove(document)}
                          >
                            Delete {document.name}
                          </button>
                        )}
                        <button
                          type="button"
                          class="button small ghost"
                          onClick={() =>
                            setAsking(undefined)}
                        >
                          {used ? "Close" : "Cancel"}
                        </button>
                      </div>
                    )}
                  </div>
                  <div class="document-row-actions">
                    <button
                      type="button"
                      class="button ghost small"
                      aria-label={`Open ${document.name}`}
                      onClick={() => props.onOpen(document)}
                    >
                      <Icon name="book" /> <span class="label-wide">Open</span>
                    </button>
                    <button
                      type="button"
                      class="button ghost small danger"
                      aria-label={`Delete ${document.name}`}
                      onClick={() => setAsking(document.id)}
                    >
                      <Icon name="trash" />
                    </button>
                  </div>
                </li>
              );
            })}
          </ul>
        )}
      </div>
      <div class="modal-actions">
        <button type="button" class="button ghost" onClick={props.onClose}>Close</button>
        <button
          type="button"
          class="button primary"
          disabled={picked.length === 0}
          onClick={() => props.onNewChat(picked)}
        >
          <Icon name="plus" /> New chat from {picked.length === 1 ? "this" : "these"}
          {picked.length > 0 && ` (${picked.length})`}
        </button>
      </div>
    </Modal>
  );
}
