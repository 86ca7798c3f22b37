/**
 * The new chat dialog: a name, the components, their parameters, and the
 * documents, uploaded as soon as they are chosen; then each document's
 * progress while they are prepared. The chat exists once they are: Cancel
 * stops preparing and makes no chat, and a document that cannot be read is
 * named in the dialog, to remove or replace.
 * @module
 */
import type { JSX } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { type ApiClient, describeError } from "./api_client.ts";
import type { Chat, Components, DocumentSummary } from "./api_types.ts";
import { UNNAMED_CHAT } from "./conversation.ts";
import { DocumentPicker } from "./DocumentPicker.tsx";
import { Modal } from "./Modal.tsx";
import { Notice } from "./Notice.tsx";
import { ParamInputs } from "./ParamInputs.tsx";
import { type FieldValue, paramFields, parseParams } from "./params.ts";
import { PrepareBars } from "./PrepareBars.tsx";
import { type ProgressByDocument, withStep } from "./prepare_progress.ts";
import { useUploads } from "./uploads.ts";

/** Creates a chat and prepares it. */
export function NewChatDialog(props: {
  api: ApiClient;
  components: Components;
  /** Documents of the user's to start with ("new chat from these"). */
  documents?: readonly DocumentSummary[];
  /** The chat, made and prepared, with its welcome message. */
  onCreated: (chat: Chat) => void;
  onClose: () => void;
}): JSX.Element {
  const { components } = props;
  // Left empty, the chat takes its name from its first question.
  const [name, setName] = useState("");
  const [assistant, setAssistant] = useState(components.assistants[0]?.title ?? "");
  const [sourceStorage, setSourceStorage] = useState(components.source_storages[0]?.title ?? "");
  const [values, setValues] = useState<Record<string, FieldValue>>({});
  const [showErrors, setShowErrors] = useState(false);
  const [advanced, setAdvanced] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  /** Create was pressed while files were still uploading: create once they are done. */
  const [queued, setQueued] = useState(false);
  const [progress, setProgress] = useState<ProgressByDocument>({});
  const [cancelled, setCancelled] = useState(false);
  const preparing = useRef<AbortController | undefined>(undefined);
  const form = useRef<HTMLFormElement>(null);
  const uploads = useUploads(props.api, components.documents, props.documents);
  // Closing the dialog while preparing cancels it.
  useEffect(() => () => preparing.current?.abort(), []);

  const chosen = useMemo(
    () =>
      [
        components.source_storages.find((c) => c.title === sourceStorage),
        components.assistants.find((c) => c.title === assistant),
      ].filter((c) => c !== undefined),
    [components, sourceStorage, assistant],
  );
  const fields = useMemo(() => paramFields(chosen), [chosen]);
  const { params, errors } = parseParams(fields, values);
  const paramProblems = Object.keys(errors).length;
  const documentsProblem = uploads.unreadable > 0
    ? "Remove or replace the documents that cannot be read"
    : uploads.documents.length === 0
    ? uploads.pending > 0 ? undefined : "Add at least one document"
    : undefined;

  function submit(event: Event) {
    event.preventDefault();
    setShowErrors(true);
    if (paramProblems > 0) {
      setAdvanced(true);
      // The first field to fix takes the focus, in view, once the section is open.
      requestAnimationFrame(() => {
        const field = form.current?.querySelector<HTMLElement>("[aria-invalid=true]");
        field?.scrollIntoView({ block: "center" });
        field?.focus();
      });
    }
    if (paramProblems > 0 || documentsProblem) return;
    if (uploads.pending > 0) setQueued(true);
    else create();
  }

  useEffect(() => {
    if (!queued || uploads.pending > 0) return;
    setQueued(false);
    if (!documentsProblem) create();
  }, [queued, uploads.pending]);

  async function create() {
    const controller = new AbortController();
    preparing.current = controller;
    setBusy(true);
    setFailure(undefined);
    setCancelled(false);
    setProgress({});
    let chat: Chat | undefined;
    try {
      chat = await props.api.createChat({
        name: name.trim(),
        source_storage: sourceStorage,
        assistant,
        params,
        documents: uploads.documents,
      });
      const welcome = await props.api.prepare(chat.id, {
        signal: controller.signal,
        onProgress: (step) => {
          setProgress((steps) => withStep(steps, step));
          if (step.stage === "failed") {
            uploads.markUnreadable(step.document.id, step.error ?? "it failed");
          }
        },
      });
      preparing.current = undefined;
      props.onCreated({ ...chat, prepared: true, messages: [welcome] });
      props.onClose();
    } catch (error) {
      preparing.current = undefined;
      // No chat is kept half made: a new one is made when the documents are right.
      if (chat) props.api.deleteChat(chat.id).catch(() => {});
      if (controller.signal.aborted) setCancelled(true);
      else setFailure(describeError(error));
      setBusy(false);
    }
  }

  function cancel() {
    if (preparing.current) preparing.current.abort();
    else props.onClose();
  }

  const preparingView = busy && (
    <div class="preparing" aria-live="polite">
      <p class="modal-intro">
        Preparing the documents: each is read and indexed for search. Cancel stops this, and no chat
        is made.
      </p>
      <PrepareBars documents={uploads.documents} progress={progress} />
    </div>
  );

  return (
    <Modal id="new-chat" title="New chat" class="wide" onClose={props.onClose}>
      <form class="modal-form" ref={form} onSubmit={submit} noValidate>
        <div class="modal-body">
          {preparingView}
          <div hidden={busy}>
            <p class="modal-intro">
              Pick who answers and where the passages are kept, then add the documents to ask about.
            </p>
            <div class="field">
              <label for="chat-name">Name</label>
              <input
                id="chat-name"
                value={name}
                onInput={(event) => setName(event.currentTarget.value)}
                autoComplete="off"
                placeholder={`${UNNAMED_CHAT}: named after your first question`}
                aria-describedby="chat-name-hint"
              />
              <p class="field-hint" id="chat-name-hint">
                Left empty, the chat is named after your first question; rename it at any time.
              </p>
            </div>
            <div class="field-row">
              <div class="field">
                <label for="assistant">Assistant</label>
                <select
                  id="assistant"
                  value={assistant}
                  onChange={(event) => setAssistant(event.currentTarget.value)}
                >
                  {components.assistants.map((c) => (
                    <option key={c.title} value={c.title}>{c.title}</option>
                  ))}
                </select>
              </div>
              <div class="field">
                <label for="source-storage">Source storage</label>
                <select
                  id="source-storage"
                  value={sourceStorage}
                  onChange={(event) => setSourceStorage(event.currentTarget.value)}
                >
                  {components.source_storages.map((c) => (
                    <option key={c.title} value={c.title}>{c.title}</option>
                  ))}
                </select>
              </div>
            </div>
            <DocumentPicker
              uploads={uploads}
              suffixes={components.documents}
              error={showErrors ? documentsProblem : undefined}
            />
            <details
              class="advanced"
              open={advanced}
              onToggle={(event) => setAdvanced(event.currentTarget.open)}
            >
              <summary>
                Advanced parameters
                {fields.length > 0 && <span class="count">{fields.length}</span>}
                {showErrors && paramProblems > 0 && (
                  <span class="field-error inline">
                    {paramProblems === 1 ? "1 needs a fix" : `${paramProblems} need a fix`}
                  </span>
                )}
              </summary>
              <p class="field-hint">
                Taken from the chosen components. Retrieval settings change how the documents are
                cut and searched; model settings change how answers are written.
              </p>
              <ParamInputs
                components={chosen}
                fields={fields}
                values={values}
                errors={showErrors ? errors : {}}
                onChange={(name, value) => setValues({ ...values, [name]: value })}
              />
              {Object.keys(values).length > 0 && (
                <button
                  type="button"
                  class="button ghost small"
                  onClick={() => setValues({})}
                >
                  Reset to defaults
                </button>
              )}
            </details>
          </div>
          {cancelled && (
            <Notice message="Preparing was cancelled: no chat was made. Change what you need and create it again." />
          )}
          {failure && <Notice message={`The chat was not created: ${failure}`} />}
        </div>
        <div class="modal-actions">
          <button type="button" class="button ghost" onClick={cancel}>
            {busy ? "Cancel preparing" : "Cancel"}
          </button>
          <button type="submit" class="button primary" disabled={busy || queued}>
            {busy
              ? "Preparing the documents…"
              : queued
              ? "Creating once the uploads finish…"
              : "Create chat"}
          </button>
        </div>
      </form>
    </Modal>
  );
}
