/**
 * The new chat dialog: a name, the components, their parameters, and the
 * documents, uploaded as soon as they are chosen.
 * @module
 */
import type { JSX } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { type ApiClient, describeError } from "./api_client.ts";
import type { ChatMetadata, Components } from "./api_types.ts";
import type { ViewChat } from "./chat_store.ts";
import { DocumentPicker } from "./DocumentPicker.tsx";
import { Modal } from "./Modal.tsx";
import { Notice } from "./Notice.tsx";
import { ParamInputs } from "./ParamInputs.tsx";
import { type FieldValue, paramFields, parseParams } from "./params.ts";
import { defaultChatName } from "./time.ts";
import { useUploads } from "./uploads.ts";

/** Creates a chat and prepares it. */
export function NewChatDialog(props: {
  api: ApiClient;
  components: Components;
  onCreate: (metadata: ChatMetadata) => Promise<ViewChat>;
  onCreated: (chat: ViewChat) => void;
  onClose: () => void;
}): JSX.Element {
  const { components } = props;
  const [name, setName] = useState(defaultChatName);
  const [assistant, setAssistant] = useState(components.assistants[0]?.title ?? "");
  const [sourceStorage, setSourceStorage] = useState(components.source_storages[0]?.title ?? "");
  const [values, setValues] = useState<Record<string, FieldValue>>({});
  const [showErrors, setShowErrors] = useState(false);
  const [advanced, setAdvanced] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  /** Create was pressed while files were still uploading: create once they are done. */
  const [queued, setQueued] = useState(false);
  const uploads = useUploads(props.api, components.documents);

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
  const documentsProblem = uploads.documents.length === 0
    ? uploads.pending > 0 ? undefined : "Add at least one document"
    : undefined;

  function submit(event: Event) {
    event.preventDefault();
    setShowErrors(true);
    if (paramProblems > 0) setAdvanced(true);
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
    setBusy(true);
    setFailure(undefined);
    try {
      const chat = await props.onCreate({
        name: name.trim() || defaultChatName(),
        source_storage: sourceStorage,
        assistant,
        params,
        documents: uploads.documents,
      });
      props.onCreated(chat);
      props.onClose();
    } catch (error) {
      setFailure(describeError(error));
      setBusy(false);
    }
  }

  return (
    <Modal id="new-chat" title="New chat" class="wide" onClose={props.onClose}>
      <form class="modal-form" onSubmit={submit} noValidate>
        <div class="modal-body">
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
            />
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
              Taken from the chosen components. Retrieval settings change how the documents are cut
              and searched; model settings change how answers are written.
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
          {failure && <Notice message={`The chat was not created: ${failure}`} />}
        </div>
        <div class="modal-actions">
          <button type="button" class="button ghost" onClick={props.onClose}>Cancel</button>
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
