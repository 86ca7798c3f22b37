/**
 * The open chat's name, renamed in place: the Rename button turns it into a
 * field that Enter saves and Escape leaves.
 * @module
 */
import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { describeError } from "./api_client.ts";
import { Icon } from "./Icons.tsx";

/** The chat's heading, and its rename field while renaming. */
export function ChatTitle(props: {
  name: string;
  onRename: (name: string) => Promise<void>;
}): JSX.Element {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(props.name);
  const [saving, setSaving] = useState(false);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const input = useRef<HTMLInputElement>(null);
  const opener = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (editing) input.current?.select();
  }, [editing]);

  function stop() {
    setEditing(false);
    setProblem(undefined);
    requestAnimationFrame(() => opener.current?.focus());
  }

  async function save(event: Event) {
    event.preventDefault();
    const name = draft.trim();
    if (name === "") {
      setProblem("Enter a name");
      return;
    }
    if (name === props.name) return stop();
    setSaving(true);
    try {
      await props.onRename(name);
      stop();
    } catch (error) {
      setProblem(`Cannot rename the chat: ${describeError(error)}`);
    } finally {
      setSaving(false);
    }
  }

  if (editing) {
    return (
      <form class="chat-rename" onSubmit={save}>
        <label for="chat-rename" class="visually-hidden">Chat name</label>
        <input
          id="chat-rename"
          ref={input}
          value={draft}
          maxLength={255}
          autoComplete="off"
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? "chat-rename-error" : undefined}
          onInput={(event) => setDraft(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === "Escape") {
              event.preventDefault();
              stop();
            }
          }}
        />
        <button type="submit" class="button primary small" disabled={saving}>Save</button>
        <button type="button" class="button ghost small" onClick={stop}>Cancel</button>
        {problem && <p class="field-error" id="chat-rename-error" role="alert">{problem}</p>}
      </form>
    );
  }
  return (
    <>
      <h1 id="chat-title" class="chat-title" title={props.name}>{props.name}</h1>
      <button
        type="button"
        class="button ghost small"
        ref={opener}
        onClick={() => {
          setDraft(props.name);
          setEditing(true);
        }}
      >
        <Icon name="edit" /> <span class="label-wide">Rename</span>
      </button>
    </>
  );
}
