/**
 * An open chat: its header with the documents, its messages, and the box to
 * ask in.
 * @module
 */
import type { JSX } from "preact";
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import type { ViewChat } from "./chat_store.ts";
import { Composer } from "./Composer.tsx";
import { DocumentPills } from "./DocumentPills.tsx";
import { Icon } from "./Icons.tsx";
import { MessageItem } from "./MessageItem.tsx";

/** The chat on screen. */
export function ChatView(props: {
  chat: ViewChat;
  user: string;
  answering: boolean;
  infoOpen: boolean;
  onAsk: (prompt: string) => void;
  onStop: () => void;
  onPrepare: () => void;
  onShowSources: (messageKey: string, source?: number) => void;
  onShowInfo: () => void;
  onDelete: () => void;
}): JSX.Element {
  const { chat } = props;
  const list = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  // Follow a streaming answer, unless the reader scrolled up to read something else.
  useLayoutEffect(() => {
    const element = list.current;
    if (element && stick.current) element.scrollTop = element.scrollHeight;
  }, [chat.messages]);
  useEffect(() => {
    document.getElementById("prompt")?.focus();
  }, [chat.id]);

  const last = chat.messages.at(-1);
  const status = props.answering
    ? last?.state === "waiting" ? "Looking through the documents…" : "Writing the answer…"
    : last?.state === "stopped"
    ? "Answer stopped"
    : last?.role === "assistant" && !last.state
    ? "Answer complete"
    : "";

  return (
    <section class="chat" aria-labelledby="chat-title">
      <header class="chat-header">
        <div class="chat-title-row">
          <h1 id="chat-title" class="chat-title">{chat.metadata.name}</h1>
          <div class="chat-actions">
            <button
              type="button"
              class="button ghost small"
              aria-expanded={props.infoOpen}
              onClick={props.onShowInfo}
            >
              <Icon name="info" /> <span class="label-wide">Chat info</span>
            </button>
            <button type="button" class="button ghost small danger" onClick={props.onDelete}>
              <Icon name="trash" /> <span class="label-wide">Delete chat</span>
            </button>
          </div>
        </div>
        <p class="chat-components">
          {chat.metadata.assistant} <span aria-hidden="true">·</span> {chat.metadata.source_storage}
        </p>
        <DocumentPills documents={chat.metadata.documents} />
      </header>
      <div
        class="messages"
        ref={list}
        // Focusable, so that the keyboard can scroll it; named, so that it is announced as such.
        tabIndex={0}
        role="region"
        aria-label="Messages"
        onScroll={(event) => {
          const element = event.currentTarget;
          stick.current = element.scrollHeight - element.scrollTop - element.clientHeight < 80;
        }}
      >
        {!chat.prepared && (
          <div class={`prepare-card${chat.prepareError ? " failed" : ""}`} role="status">
            {chat.preparing
              ? (
                <p>
                  <span class="spinner" aria-hidden="true" />{" "}
                  Preparing the documents: reading and storing them for search…
                </p>
              )
              : (
                <>
                  <p>
                    {chat.prepareError
                      ? `Preparing the documents failed: ${chat.prepareError}`
                      : "This chat's documents are not prepared yet."}
                  </p>
                  <button type="button" class="button primary small" onClick={props.onPrepare}>
                    <Icon name="refresh" /> Prepare the documents
                  </button>
                </>
              )}
          </div>
        )}
        {chat.messages.map((message) => (
          <MessageItem
            key={message.key}
            message={message}
            assistant={chat.metadata.assistant}
            user={props.user}
            onShowSources={(source) => props.onShowSources(message.key, source)}
          />
        ))}
      </div>
      <p class="visually-hidden" role="status" aria-live="polite">{status}</p>
      <Composer
        disabled={!chat.prepared}
        answering={props.answering}
        onAsk={props.onAsk}
        onStop={props.onStop}
      />
    </section>
  );
}
