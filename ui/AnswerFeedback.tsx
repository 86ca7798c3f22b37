/**
 * Thumbs up and down on an answer, with an optional note: stored with the
 * answer, so that `svc export-labelled` can turn the good ones into
 * labelled questions.
 * @module
 */
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { describeError } from "./api_client.ts";
import type { Feedback } from "./api_types.ts";
import { Icon } from "./Icons.tsx";

/** The rating of an answer, and the note that may go with it. */
export function AnswerFeedback(props: {
  feedback?: Feedback;
  onRate: (rating: "good" | "bad" | null, note?: string) => Promise<void>;
}): JSX.Element {
  const [writing, setWriting] = useState(false);
  const [note, setNote] = useState(props.feedback?.note ?? "");
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const rating = props.feedback?.rating;

  async function rate(next: "good" | "bad" | null, text?: string) {
    setBusy(true);
    setFailure(undefined);
    try {
      await props.onRate(next, text);
      setWriting(next !== null && text === undefined);
    } catch (error) {
      setFailure(`The rating was not saved: ${describeError(error)}`);
    } finally {
      setBusy(false);
    }
  }

  const thumb = (value: "good" | "bad", label: string) => (
    <button
      type="button"
      class={`button ghost small icon-only${rating === value ? " rated" : ""}`}
      aria-label={label}
      aria-pressed={rating === value}
      disabled={busy}
      // Pressed again, a rating is taken back.
      onClick={() => rate(rating === value ? null : value)}
    >
      <Icon name={value === "good" ? "thumbUp" : "thumbDown"} />
    </button>
  );

  return (
    <>
      {thumb("good", "Good answer")}
      {thumb("bad", "Bad answer")}
      {rating && !writing && (
        <button
          type="button"
          class="button ghost small"
          onClick={() => setWriting(true)}
        >
          {props.feedback?.note ? "Edit note" : "Add a note"}
        </button>
      )}
      {writing && rating && (
        <form
          class="feedback-note"
          onSubmit={(event) => {
            event.preventDefault();
            void rate(rating, note.trim());
          }}
        >
          <label class="visually-hidden" for="feedback-note">What was good or bad</label>
          <textarea
            id="feedback-note"
            rows={2}
            value={note}
            placeholder="What was good or bad (optional)"
            onInput={(event) => setNote(event.currentTarget.value)}
          />
          <div class="feedback-note-actions">
            <button type="submit" class="button small primary" disabled={busy}>Save note</button>
            <button type="button" class="button small ghost" onClick={() => setWriting(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {failure && <span class="field-error" role="alert">{failure}</span>}
    </>
  );
}
