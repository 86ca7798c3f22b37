/**
 * One message: who wrote it and when, its text (Markdown for the assistant),
 * and for an answer its state, copy button and sources.
 * @module
 */
import type { JSX } from "preact";
import { useCallback } from "preact/hooks";
import { linkCitations, SOURCE_ATTRIBUTE } from "./citations.ts";
import type { ViewMessage } from "./chat_store.ts";
import { CopyButton } from "./CopyButton.tsx";
import { Failure } from "./Failure.tsx";
import { Icon, Logo } from "./Icons.tsx";
import { Markdown } from "./Markdown.tsx";
import { initial } from "./Sidebar.tsx";
import { formatMessageTime } from "./time.ts";

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
}): JSX.Element {
  const { message } = props;
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
        {message.role === "user" ? <p class="message-text">{message.content}</p> : (
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
        {message.role === "assistant" && !waiting && (
          <div class="message-actions">
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
          </div>
        )}
      </div>
    </article>
  );
}
