/**
 * The question box: Enter sends, Shift+Enter adds a line; while an answer
 * streams, its button stops it.
 * @module
 */
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { Icon } from "./Icons.tsx";

/** Where the user asks. */
export function Composer(props: {
  disabled: boolean;
  answering: boolean;
  onAsk: (prompt: string) => void;
  onStop: () => void;
}): JSX.Element {
  const [text, setText] = useState("");
  const canSend = !props.disabled && !props.answering && text.trim() !== "";

  function send() {
    if (!canSend) return;
    props.onAsk(text.trim());
    setText("");
  }

  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <div class="composer-box">
        <label for="prompt" class="visually-hidden">Ask about the documents</label>
        <textarea
          id="prompt"
          rows={1}
          value={text}
          disabled={props.disabled}
          placeholder={props.disabled
            ? "Prepare the documents to ask about them"
            : "Ask a question about the documents"}
          aria-describedby="composer-hint"
          onInput={(event) => setText(event.currentTarget.value)}
          onKeyDown={(event) => {
            // isComposing: Enter that confirms an input method's candidate must not send.
            if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              send();
            }
          }}
        />
        {props.answering
          ? (
            <button type="button" class="button stop" onClick={props.onStop}>
              <Icon name="stop" /> Stop
            </button>
          )
          : (
            <button type="submit" class="button primary send" disabled={!canSend}>
              <Icon name="send" /> <span class="visually-hidden">Send</span>
            </button>
          )}
      </div>
      <p id="composer-hint" class="composer-hint">
        Enter sends · Shift+Enter adds a line
      </p>
    </form>
  );
}
