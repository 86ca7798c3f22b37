/**
 * A question of the conversation asked again in other words: its text to
 * change, then asked; the earlier wording and its answers stay as version 1.
 * @module
 */
import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

/** A question asked again in other words: its text to change, then asked. */
export function QuestionEditor(
  props: { text: string; onAsk: (prompt: string) => void; onCancel: () => void },
): JSX.Element {
  const [text, setText] = useState(props.text);
  const box = useRef<HTMLTextAreaElement>(null);
  // It takes the place of the Edit button, and so its focus.
  useEffect(() => box.current?.focus(), []);
  const changed = text.trim() !== "" && text.trim() !== props.text.trim();
  return (
    <form
      class="question-editor"
      onSubmit={(event) => {
        event.preventDefault();
        if (changed) props.onAsk(text.trim());
      }}
    >
      <label class="visually-hidden" for="question-edit">The question in other words</label>
      <textarea
        id="question-edit"
        rows={3}
        value={text}
        ref={box}
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.stopPropagation();
            props.onCancel();
          }
        }}
      />
      <div class="question-editor-actions">
        <button type="submit" class="button small primary" disabled={!changed}>Ask again</button>
        <button type="button" class="button small ghost" onClick={props.onCancel}>Cancel</button>
      </div>
      <p class="field-hint">The earlier question and its answers stay, as version 1.</p>
    </form>
  );
}
