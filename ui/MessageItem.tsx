/**
 * One message: who wrote it and when, its text (Markdown for the assistant),
 * and for an answer its state, versions, rating, copy button and sources;
 * for a question, its versions and a way to ask it again in other words.
 * @module
 */
import type { JSX } from "preact";
import { useCallback, useState } from "preact/hooks";
import { AnswerFeedback } from "./AnswerFeedback.tsx";
import { linkCitations, SOURCE_ATTRIBUTE } from "./citations.ts";
import type { ViewMessage } from "./chat_store.ts";
import { CopyButton } from "./CopyButton.tsx";
import { Failure } from "./Failure.tsx";
import { Icon, Logo } from "./Icons.tsx";
import { Markdown } from "./Markdown.tsx";
import { initial } from "./Sidebar.tsx";
import { formatMessageTime } from "./time.ts";
import { VersionSwitch } from "./VersionSwitch.tsx";
import { lazy } from "./lazy.tsx";

// Opened by Edit, which few answers see: loaded then.
const QuestionEditor = lazy(() => import("./QuestionEditor.tsx").then((m) => m.QuestionEditor));

/** A message of the open chat. */
export function MessageItem(props: {
  message: ViewMessage;
  /** Whether a search found this message. */
  found?: boolean;
  assistant: string;
  /** The logged-in user, whose initial marks their messages. */
  user: string;
  /** Shows the answer's sources, with source `source` (from 1) open when given. */
  onShowSources: (source?: number) => void;
  /** Writes this answer again (Retry for a failed one); the last answer only. */
  onRegenerate?: () => void;
  /** Rates the answer (the version shown). */
  onRate?: (version: ViewMessage, rating: "good" | "bad" | null, note?: string) => Promise<void>;
  /** Asks this question again in other words; questions of the conversation only. */
  onEdit?: (prompt: string) => void;
  /** Which wording of this question is shown, when the chat shows one: see ChatView. */
  questionVersion?: { index: number; count: number; onChange: (index: number) => void };
}): JSX.Element {
  const versions = props.message.versions ?? [];
  const [picked, setPicked] = useState<number | undefined>(undefined);
  const [editing, setEditing] = useState(false);
  // An answer shows the version picked, else itself (its latest).
  const message: ViewMessage = props.message.role === "assistant" && picked !== undefined &&
      versions[picked]
    ? { ...props.message, ...versions[picked], key: props.message.key }
    : props.message;
  const who = message.role === "user"
    ? "You"
    : message.role === "assistant"
    ? props.assistant
    : "svc";
  const sources = message.sources ?? [];
  const decorate = useCallback(
    (fragment: DocumentFragment) => linkCitations(fragment, sources),
    [sources],
  );
  const waiting = message.state === "waiting";
  const streaming = message.state === "streaming";
  return (
    <article
      id={`message-${message.id}`}
      class={`message ${message.role}${streaming ? " streaming" : ""}${
        props.found ? " found" : ""
      }`}
      aria-label={`${who}, ${formatMessageTime(message.timestamp)}`}
      aria-busy={waiting || streaming}
    >
      <span class={`avatar ${message.role}`} aria-hidden="true">
        {message.role === "system"
          ? <Logo />
          : message.role === "user"
          ? initial(props.user)
          : initial(who.split("/").at(-1) ?? who)}
      </span>
      <div class="message-body">
        <header class="message-head">
          <span class="message-who">{who}</span>
          <time dateTime={message.timestamp}>{formatMessageTime(message.timestamp)}</time>
        </header>
        {message.role === "user" && editing && props.onEdit
          ? (
            <QuestionEditor
              text={message.content}
              onAsk={(prompt) => {
                setEditing(false);
                props.onEdit!(prompt);
              }}
              onCancel={() => setEditing(false)}
            />
          )
          : message.role === "user"
          ? <p class="message-text">{message.content}</p>
          : (
            <Markdown
              text={message.content}
              decorate={message.role === "assistant" ? decorate : undefined}
              onClick={(event) => {
                const link = (event.target as Element).closest(`a[${SOURCE_ATTRIBUTE}]`);
                if (!link) return;
                event.preventDefault();
                props.onShowSources(Number(link.getAttribute(SOURCE_ATTRIBUTE)));
              }}
            />
          )}
        {waiting && (
          <p class="typing">
            <span class="dots" aria-hidden="true">
              <span />
              <span />
              <span />
            </span>
            Looking through the documents…
          </p>
        )}
        {message.state === "stopped" && (
          <p class="message-note">
            Stopped.{" "}
            {message.content ? "The answer above is incomplete." : "No answer was written."}
          </p>
        )}
        {message.state === "failed" && (
          <div class="message-error" role="alert">
            <Icon name="alert" />
            <Failure
              lead="The answer failed:"
              message={message.error ?? ""}
              status={message.errorStatus}
              details={message.errorDetails}
            />
          </div>
        )}
        {message.role === "user" && !editing && (props.onEdit || props.questionVersion) && (
          <div class="message-actions">
            {props.questionVersion && props.questionVersion.count > 1 && (
              <VersionSwitch of="question" {...props.questionVersion} />
            )}
            {props.onEdit && (
              <button
                type="button"
                class="button ghost small"
                onClick={() => setEditing(true)}
              >
                <Icon name="edit" /> Edit
              </button>
            )}
          </div>
        )}
        {message.role === "assistant" && !waiting && (
          <div class="message-actions">
            {versions.length > 1 && !streaming && (
              <VersionSwitch
                of="answer"
                index={picked ?? versions.length - 1}
                count={versions.length}
                onChange={setPicked}
              />
            )}
            {message.content && <CopyButton text={message.content} label="Copy" />}
            {props.onRegenerate && !streaming && (
              <button type="button" class="button ghost small" onClick={props.onRegenerate}>
                <Icon name="refresh" /> {message.state === "failed" ? "Retry" : "Regenerate"}
              </button>
            )}
            {sources.length > 0 && (
              <button
                type="button"
                class="button ghost small"
                onClick={() => props.onShowSources()}
              >
                <Icon name="book" /> Sources ({sources.length})
              </button>
            )}
            {props.onRate && !streaming && !message.key.startsWith("local-") &&
              message.state !== "failed" && (
              <AnswerFeedback
                feedback={message.feedback}
                onRate={(rating, note) => props.onRate!(message, rating, note)}
              />
            )}
          </div>
        )}
      </div>
    </article>
  );
}
