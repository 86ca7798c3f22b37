/**
 * An open chat: its header with the documents, its messages, and the box to
 * ask in.
 * @module
 */
import { Fragment, type JSX } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { describeError } from "./api_client.ts";
import type { Document, Message } from "./api_types.ts";
import type { ViewChat, ViewMessage } from "./chat_store.ts";
import { ChatTitle } from "./ChatTitle.tsx";
import { Composer } from "./Composer.tsx";
import { chatName, withAnswers } from "./conversation.ts";
import { DocumentPills } from "./DocumentPills.tsx";
import { Icon } from "./Icons.tsx";
import { MessageItem } from "./MessageItem.tsx";
import { PrepareBars } from "./PrepareBars.tsx";

/** An earlier wording of a question shown, with the conversation that followed it once read. */
interface Branch {
  questionKey: string;
  index: number;
  messages?: Message[];
  error?: string;
}

/** The chat on screen. */
export function ChatView(props: {
  chat: ViewChat;
  user: string;
  answering: boolean;
  infoOpen: boolean;
  /** Whether the question was answered: a failed one stays in the box. */
  onAsk: (prompt: string) => Promise<boolean>;
  onStop: () => void;
  onPrepare: () => void;
  onRegenerate: () => void;
  /** Answers a failed question again. */
  onRetry: (prompt: string) => void;
  onRename: (name: string) => Promise<void>;
  onAddDocuments: () => void;
  onShowSources: (messageKey: string, source?: number) => void;
  onShowInfo: () => void;
  onDelete: () => void;
  /** A message that a search found: scrolled to and marked. */
  found?: string;
  /** Asks a question again in other words. */
  onEdit: (question: ViewMessage, prompt: string) => void;
  /** Rates an answer. */
  onRate: (answer: ViewMessage, rating: "good" | "bad" | null, note?: string) => Promise<void>;
  /** Opens one of the chat's documents as itself. */
  onOpenDocument: (document: Document) => void;
  /** The messages that followed an earlier wording of a question. */
  onBranch: (questionId: string) => Promise<Message[]>;
}): JSX.Element {
  const { chat } = props;
  const list = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const [away, setAway] = useState(false);
  const [retried, setRetried] = useState<{ prompt: string } | undefined>(undefined);
  const lastQuestion = chat.messages.findLast((message) => message.role === "user")?.key;
  const asked = useRef(lastQuestion);

  // Follow a streaming answer, unless the reader scrolled up to read something else; a new
  // question is scrolled to wherever the reader was, and followed from there.
  useLayoutEffect(() => {
    const element = list.current;
    if (!element) return;
    if (lastQuestion !== asked.current) {
      asked.current = lastQuestion;
      stick.current = true;
    }
    if (stick.current) element.scrollTop = element.scrollHeight;
  }, [chat.messages]);

  // What grows or narrows after a render (a turned phone, a row of buttons that loads later)
  // keeps a reader who is at the end there.
  useEffect(() => {
    const element = list.current;
    if (!element) return;
    const observer = new ResizeObserver(() => {
      if (stick.current) element.scrollTop = element.scrollHeight;
    });
    observer.observe(element);
    for (const child of element.children) observer.observe(child);
    return () => observer.disconnect();
  }, [chat.messages]);

  function jumpToLatest() {
    const element = list.current;
    if (!element) return;
    stick.current = true;
    element.scrollTop = element.scrollHeight;
    setAway(false);
  }
  useEffect(() => {
    document.getElementById("prompt")?.focus();
  }, [chat.id]);
  // A message a search found is shown in place of the chat's end.
  useLayoutEffect(() => {
    const element = props.found && document.getElementById(`message-${props.found}`);
    if (!element) return;
    stick.current = false;
    element.scrollIntoView({ block: "center" });
  }, [props.found, chat.loaded]);

  // An earlier wording of a question shows the conversation that followed it, read only.
  const [branch, setBranch] = useState<Branch | undefined>(undefined);
  useEffect(() => setBranch(undefined), [chat.messages]);
  const current = withAnswers(chat.messages, props.answering);
  const at = branch ? current.findIndex((message) => message.key === branch.questionKey) : -1;
  const messages: ViewMessage[] = at >= 0 && branch?.messages
    ? [
      ...current.slice(0, at),
      ...branch.messages.map((message) => ({ ...message, key: `branch-${message.id}` })),
    ]
    : current;
  function showVersion(question: ViewMessage, index: number) {
    const versions = question.versions ?? [];
    if (index >= versions.length - 1) return setBranch(undefined);
    const version = versions[index]!;
    setBranch({ questionKey: question.key, index, messages: undefined });
    props.onBranch(version.id).then(
      (read) =>
        setBranch((now) =>
          now?.questionKey === question.key && now.index === index
            ? { ...now, messages: read }
            : now
        ),
      (error) =>
        setBranch((now) =>
          now?.questionKey === question.key && now.index === index
            ? { ...now, error: describeError(error) }
            : now
        ),
    );
  }
  const last = messages.at(-1);
  const lastAnswer = last?.role === "assistant" ? last : undefined;
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
          <ChatTitle name={chatName(chat)} onRename={props.onRename} />
          <div class="chat-actions">
            <button type="button" class="button ghost small" onClick={props.onAddDocuments}>
              <Icon name="plus" /> <span class="label-wide">Add documents</span>
            </button>
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
        <DocumentPills documents={chat.metadata.documents} onOpen={props.onOpenDocument} />
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
          setAway(!stick.current);
        }}
      >
        {!chat.prepared && (
          <div class={`prepare-card${chat.prepareError ? " failed" : ""}`} role="status">
            {chat.preparing
              ? (
                <>
                  <p>
                    <span class="spinner" aria-hidden="true" />{" "}
                    Preparing the documents: reading and storing them for search…
                  </p>
                  <PrepareBars documents={chat.metadata.documents} progress={chat.progress ?? {}} />
                </>
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
                  {chat.prepareError && (
                    <>
                      {/* A chat whose documents cannot be prepared has a way out. */}
                      <PrepareBars
                        documents={chat.metadata.documents}
                        progress={chat.progress ?? {}}
                        label="The documents"
                      />
                      <button
                        type="button"
                        class="button ghost small danger"
                        onClick={props.onDelete}
                      >
                        <Icon name="trash" /> Delete this chat
                      </button>
                    </>
                  )}
                </>
              )}
          </div>
        )}
        {messages.map((message, index) => {
          const inBranch = message.key.startsWith("branch-");
          const question = message.role === "user" && (message.versions?.length ?? 0) > 1
            ? (inBranch ? current[at] : message)
            : undefined;
          return (
            <Fragment key={message.key}>
              {inBranch && index === at && (
                <p class="branch-note" role="status">
                  {branch?.error
                    ? `The earlier conversation cannot be shown: ${branch.error}`
                    : "An earlier wording of the question, and what followed it. The latest " +
                      "version is the conversation you ask in."}
                </p>
              )}
              <MessageItem
                message={inBranch && question
                  ? { ...message, versions: question.versions }
                  : message}
                found={message.id === props.found}
                assistant={chat.metadata.assistant}
                user={props.user}
                onShowSources={(source) => props.onShowSources(message.key, source)}
                questionVersion={question
                  ? {
                    index: inBranch ? branch!.index : question.versions!.length - 1,
                    count: question.versions!.length,
                    onChange: (to) => showVersion(question, to),
                  }
                  : undefined}
                onEdit={message.role === "user" && !inBranch && !props.answering &&
                    !message.key.startsWith("local-")
                  ? (prompt) => props.onEdit(message, prompt)
                  : undefined}
                onRate={inBranch ? undefined : props.onRate}
                // Only the last answer is written again; a failed one offers to try again.
                onRegenerate={!inBranch && message === lastAnswer && !props.answering
                  ? () => {
                    const question = messages[index - 1];
                    if (message.state === "failed" && question?.role === "user") {
                      setRetried({ prompt: question.content });
                      props.onRetry(question.content);
                    } else props.onRegenerate();
                  }
                  : undefined}
              />
            </Fragment>
          );
        })}
        {away && (
          <button type="button" class="button small jump-latest" onClick={jumpToLatest}>
            <Icon name="down" /> Jump to latest
          </button>
        )}
      </div>
      <p class="visually-hidden" role="status" aria-live="polite">{status}</p>
      <Composer
        disabled={!chat.prepared}
        answering={props.answering}
        onAsk={props.onAsk}
        onStop={props.onStop}
        retried={retried}
      />
    </section>
  );
}
