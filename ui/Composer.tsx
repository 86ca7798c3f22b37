/**
 * The question box: Enter sends, Shift+Enter adds a line; while an answer
 * streams, its button stops it.
 * @module
 */
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { Icon } from "./Icons.tsx";

/** Where the user asks. */
export function Composer(props: {
  disabled: boolean;
  answering: boolean;
  /** Whether the question was answered: a failed one is put back in the box. */
  onAsk: (prompt: string) => Promise<boolean>;
  onStop: () => void;
  /** A question being answered again (Retry): the box lets go of it if it still holds it. */
  retried?: { prompt: string };
}): JSX.Element {
  const [text, setText] = useState("");
  useEffect(() => {
    const prompt = props.retried?.prompt;
    if (prompt !== undefined) setText((typed) => typed.trim() === prompt ? "" : typed);
  }, [props.retried]);
  const canSend = !props.disabled && !props.answering && text.trim() !== "";

  async function send() {
    if (!canSend) return;
    const prompt = text.trim();
    setText("");
    // Kept when the answer fails, to send again or change, unless something else was typed.
    if (!(await props.onAsk(prompt))) setText((typed) => typed === "" ? prompt : typed);
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
