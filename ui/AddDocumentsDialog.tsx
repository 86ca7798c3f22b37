/**
 * Adding documents to an open chat: they are uploaded as soon as they are
 * chosen, then a prepared chat indexes only these, a bar each; Cancel stops
 * that and leaves the chat as it was.
 * @module
 */
import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { type ApiClient, describeError } from "./api_client.ts";
import type { Chat } from "./api_types.ts";
import { DocumentPicker } from "./DocumentPicker.tsx";
import { Modal } from "./Modal.tsx";
import { Notice } from "./Notice.tsx";
import { PrepareBars } from "./PrepareBars.tsx";
import { type ProgressByDocument, withStep } from "./prepare_progress.ts";
import { useUploads } from "./uploads.ts";

/** Adds documents to a chat. */
export function AddDocumentsDialog(props: {
  api: ApiClient;
  chatId: string;
  chatName: string;
  suffixes: string[];
  /** The chat with its documents added. */
  onAdded: (chat: Chat) => void;
  onClose: () => void;
}): JSX.Element {
  const uploads = useUploads(props.api, props.suffixes);
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<ProgressByDocument>({});
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [showErrors, setShowErrors] = useState(false);
  const working = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => working.current?.abort(), []);

  const problem = uploads.unreadable > 0
    ? "Remove or replace the documents that cannot be read"
    : uploads.documents.length === 0 && uploads.pending === 0
    ? "Add at least one document"
    : uploads.pending > 0
    ? "Wait for the uploads to finish"
    : undefined;

  async function add(event: Event) {
    event.preventDefault();
    setShowErrors(true);
    if (problem) return;
    const controller = new AbortController();
    working.current = controller;
    setBusy(true);
    setFailure(undefined);
    setProgress({});
    try {
      const chat = await props.api.addDocuments(props.chatId, uploads.documents, {
        signal: controller.signal,
        onProgress: (step) => {
          setProgress((steps) => withStep(steps, step));
          if (step.stage === "failed") {
            uploads.markUnreadable(step.document.id, step.error ?? "it failed");
          }
        },
      });
      working.current = undefined;
      props.onAdded(chat);
      props.onClose();
    } catch (error) {
      working.current = undefined;
      setFailure(
        controller.signal.aborted
          ? "Adding was cancelled: the chat keeps the documents it had."
          : `The documents were not added: ${describeError(error)}`,
      );
      setBusy(false);
    }
  }

  return (
    <Modal
      id="add-documents"
      title={`Add documents to "${props.chatName}"`}
      onClose={props.onClose}
    >
      <form class="modal-form" onSubmit={add} noValidate>
        <div class="modal-body">
          {busy
            ? (
              <div class="preparing" aria-live="polite">
                <p class="modal-intro">
                  Only these documents are read and indexed; the chat's others stay as they are.
                </p>
                <PrepareBars documents={uploads.documents} progress={progress} />
              </div>
            )
            : (
              <DocumentPicker
                uploads={uploads}
                suffixes={props.suffixes}
                error={showErrors ? problem : undefined}
              />
            )}
          {failure && <Notice message={failure} />}
        </div>
        <div class="modal-actions">
          <button
            type="button"
            class="button ghost"
            onClick={() => busy ? working.current?.abort() : props.onClose()}
          >
            {busy ? "Cancel adding" : "Cancel"}
          </button>
          <button type="submit" class="button primary" disabled={busy}>
            {busy ? "Adding…" : "Add documents"}
          </button>
        </div>
      </form>
    </Modal>
  );
}
