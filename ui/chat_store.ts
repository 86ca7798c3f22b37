/**
 * The user's chats in the page: listed from the API without their messages,
 * each one's messages read when it is opened, changed through the API, and
 * each answer streamed into its chat whichever chat is on screen.
 * @module
 */
import { useMemo, useRef, useState } from "preact/hooks";
import { type ApiClient, describeError, type FailureInfo, failureOf } from "./api_client.ts";
import type { Chat, ChatSummary, MessageLine } from "./api_types.ts";
import { BROKE_OFF } from "./failures.ts";
import { type ProgressByDocument, withStep } from "./prepare_progress.ts";

import type { ViewMessage } from "./conversation.ts";

export type { AnswerState, ViewMessage } from "./conversation.ts";

/** A chat as the page shows it. */
export interface ViewChat extends Omit<Chat, "messages"> {
  messages: ViewMessage[];
  /** Whether `messages` holds the chat's messages: the list gives none, opening the chat reads them. */
  loaded: boolean;
  /** The time of the last message, as the list gave it. */
  last_activity?: string | null;
  opening?: boolean;
  openError?: FailureInfo;
  preparing?: boolean;
  prepareError?: string;
  /** Where each document stands while the chat is prepared. */
  progress?: ProgressByDocument;
}

/** What {@linkcode useChatStore} gives. */
export interface ChatStore {
  /** `undefined` while loading. */
  chats: ViewChat[] | undefined;
  loadError: FailureInfo | undefined;
  reload(): Promise<void>;
  /** Reads the messages of a chat that the list gave without them; once, unless it failed. */
  open(chatId: string): Promise<void>;
  /** Lists a chat made and prepared elsewhere (the new chat dialog), with its messages. */
  add(chat: Chat): ViewChat;
  prepare(chatId: string): Promise<void>;
  remove(chatId: string): Promise<void>;
  /** Asks a question; whether it was answered (stopped counts): false when it failed. */
  ask(chatId: string, prompt: string): Promise<boolean>;
  /** Answers the last question again; the chat keeps the earlier answers as versions. */
  regenerate(chatId: string): Promise<boolean>;
  /** Asks a question again in other words, in place of it and what followed (kept as a branch). */
  edit(chatId: string, question: ViewMessage, prompt: string): Promise<boolean>;
  /** Rates an answer, with an optional note; `null` takes the rating back. */
  rate(
    chatId: string,
    answer: ViewMessage,
    rating: "good" | "bad" | null,
    note?: string,
  ): Promise<void>;
  /**
   * Answers a question that failed: again in place of its failed answer when
   * the chat kept the question, else asked anew.
   */
  retry(chatId: string, prompt: string): Promise<boolean>;
  rename(chatId: string, name: string): Promise<void>;
  /** Puts a chat as the API gave it back (after documents were added) in place of the listed one. */
  replace(chat: Chat): void;
  stop(chatId: string): void;
  isAnswering(chatId: string): boolean;
}

/** Where an answer goes in its chat: see the store's `answer`. */
type Placement =
  | { kind: "ask"; prompt: string }
  | { kind: "regenerate" }
  | { kind: "edit"; questionKey: string; prompt: string }
  | { kind: "follow"; key: string };

let counter = 0;
function localKey(): string {
  return `local-${++counter}`;
}

function viewChat(chat: Chat): ViewChat {
  return {
    ...chat,
    loaded: true,
    messages: chat.messages.map((message) => ({
      ...message,
      key: message.id,
      // A stored answer that did not end complete says how it ended, and why when it was told.
      ...(message.status ? { state: message.status } : {}),
      ...(message.status === "failed"
        ? { error: (message as { error?: string }).error ?? BROKE_OFF }
        : {}),
    })),
  };
}

function listedChat(summary: ChatSummary): ViewChat {
  const { num_messages: _count, ...chat } = summary;
  return { ...chat, messages: [], loaded: false };
}

/** The chats of the logged-in user. */
export function useChatStore(api: ApiClient): ChatStore {
  const [chats, setChats] = useState<ViewChat[] | undefined>(undefined);
  const [loadError, setLoadError] = useState<FailureInfo | undefined>(undefined);
  const [answering, setAnswering] = useState<ReadonlySet<string>>(new Set());
  const controllers = useRef(new Map<string, AbortController>());
  const opening = useRef(new Set<string>());

  return useMemo(() => {
    const update = (chatId: string, change: (chat: ViewChat) => ViewChat) =>
      setChats((list) => list?.map((chat) => chat.id === chatId ? change(chat) : chat));
    const updateMessage = (
      chatId: string,
      key: string,
      change: (message: ViewMessage) => ViewMessage,
    ) =>
      update(chatId, (chat) => ({
        ...chat,
        messages: chat.messages.map((message) => message.key === key ? change(message) : message),
      }));
    const setBusy = (chatId: string, busy: boolean) =>
      setAnswering((set) => {
        const next = new Set(set);
        if (busy) next.add(chatId);
        else next.delete(chatId);
        return next;
      });

    /**
     * Streams an answer into the chat: after a new question (`ask`), in place of the answer
     * after the last question (`regenerate`), after a question asked again in other words in
     * place of a question and what followed it (`edit`), or into an answer the chat shows
     * already, still being written (`follow`). Whether it was answered (stopped counts).
     */
    async function answer(
      chatId: string,
      place: Placement,
      lines: (signal: AbortSignal) => AsyncGenerator<MessageLine>,
    ): Promise<boolean> {
      const controller = new AbortController();
      controllers.current.set(chatId, controller);
      setBusy(chatId, true);
      const now = new Date().toISOString();
      const key = place.kind === "follow" ? place.key : localKey();
      if (place.kind !== "follow") {
        const reply: ViewMessage = {
          id: key,
          key,
          role: "assistant",
          content: "",
          sources: [],
          citations: [],
          timestamp: now,
          state: "waiting",
        };
        const question = (prompt: string): ViewMessage => ({
          id: localKey(),
          key: localKey(),
          role: "user",
          content: prompt,
          sources: [],
          citations: [],
          timestamp: now,
        });
        update(chatId, (chat) => {
          if (place.kind === "regenerate") {
            // The answers after the last question give way to the new one.
            const last = chat.messages.findLastIndex((message) => message.role === "user");
            return { ...chat, messages: [...chat.messages.slice(0, last + 1), reply] };
          }
          if (place.kind === "edit") {
            // The question and what followed it leave the conversation (the chat keeps them).
            const at = chat.messages.findIndex((message) => message.key === place.questionKey);
            const before = at < 0 ? chat.messages : chat.messages.slice(0, at);
            return { ...chat, messages: [...before, question(place.prompt), reply] };
          }
          return { ...chat, messages: [...chat.messages, question(place.prompt), reply] };
        });
      }
      let stoppedThere = false;
      try {
        let first = true;
        for await (const line of lines(controller.signal)) {
          // A stream that another page stopped ends with a line that says so.
          if (line.status === "stopped") {
            stoppedThere = true;
            continue;
          }
          const isFirst = first;
          first = false;
          updateMessage(
            chatId,
            key,
            (message) =>
              isFirst
                ? { ...message, ...line, key, sources: line.sources ?? [], state: "streaming" }
                : {
                  ...message,
                  ...line,
                  content: message.content + line.content,
                  sources: message.sources,
                  state: "streaming",
                },
          );
        }
        updateMessage(
          chatId,
          key,
          (message) => ({ ...message, state: stoppedThere ? "stopped" : undefined }),
        );
        return true;
      } catch (error) {
        const stopped = controller.signal.aborted;
        const failure = failureOf(error);
        updateMessage(chatId, key, (message) => ({
          ...message,
          state: stopped ? "stopped" : "failed",
          error: stopped ? undefined : failure.message,
          errorStatus: stopped ? undefined : failure.status,
          errorDetails: stopped ? undefined : failure.details,
        }));
        return stopped;
      } finally {
        controllers.current.delete(chatId);
        setBusy(chatId, false);
        // A chat without a name took one from its first question: the list shows it. The
        // stored messages give the ids of the new question and the versions of its answer.
        void refresh(chatId);
      }
    }

    /**
     * Reads the chat again once its answer ended: the messages as stored (their ids, an
     * answer's versions), and the name its first question gave it. An answer that failed
     * before the API kept anything stays as the page shows it.
     */
    /** Follows the answers of a chat as read that are still being written (before a reload, elsewhere). */
    function followRunning(chatId: string, read: ViewChat) {
      for (const message of read.messages) {
        if (message.state !== "streaming" || controllers.current.has(chatId)) continue;
        void answer(
          chatId,
          { kind: "follow", key: message.key },
          (signal) => api.follow(chatId, message.id, signal),
        );
      }
    }

    async function refresh(chatId: string) {
      try {
        const stored = await api.chat(chatId);
        if (controllers.current.has(chatId)) return;
        followRunning(chatId, viewChat(stored));
        update(chatId, (chat) => {
          const last = chat.messages.at(-1);
          const kept = stored.messages.at(-1);
          // A failure the API did not keep (it never got the question) stays on the page.
          const lost = last?.state === "failed" && kept?.role !== "assistant";
          return lost
            ? { ...chat, metadata: stored.metadata }
            : { ...chat, ...viewChat(stored), opening: false };
        });
      } catch {
        // The next time the chat is read shows it.
      }
    }

    async function prepare(chatId: string) {
      update(chatId, (chat) => ({
        ...chat,
        preparing: true,
        prepareError: undefined,
        progress: {},
      }));
      try {
        const welcome = await api.prepare(chatId, {
          onProgress: (step) =>
            update(chatId, (chat) => ({ ...chat, progress: withStep(chat.progress ?? {}, step) })),
        });
        update(chatId, (chat) => ({
          ...chat,
          prepared: true,
          preparing: false,
          messages: [{ ...welcome, key: welcome.id }, ...chat.messages],
        }));
      } catch (error) {
        update(
          chatId,
          (chat) => ({ ...chat, preparing: false, prepareError: describeError(error) }),
        );
      }
    }

    return {
      chats,
      loadError,
      async reload() {
        try {
          const list = await api.chats();
          setChats(list.map(listedChat));
          setLoadError(undefined);
        } catch (error) {
          setLoadError(failureOf(error));
        }
      },
      async open(chatId) {
        const listed = chats?.find((chat) => chat.id === chatId);
        if (!listed || listed.loaded || opening.current.has(chatId)) return;
        opening.current.add(chatId);
        update(chatId, (chat) => ({ ...chat, opening: true, openError: undefined }));
        try {
          const read = viewChat(await api.chat(chatId));
          update(chatId, (chat) => ({ ...chat, ...read, opening: false }));
          followRunning(chatId, read);
        } catch (error) {
          update(chatId, (chat) => ({ ...chat, opening: false, openError: failureOf(error) }));
        } finally {
          opening.current.delete(chatId);
        }
      },
      prepare,
      async remove(chatId) {
        controllers.current.get(chatId)?.abort();
        await api.deleteChat(chatId);
        setChats((list) => list?.filter((chat) => chat.id !== chatId));
      },
      add(chat) {
        const view = viewChat(chat);
        setChats((list) => [...(list ?? []).filter((c) => c.id !== chat.id), view]);
        return view;
      },
      async ask(chatId, prompt) {
        return await answer(
          chatId,
          { kind: "ask", prompt },
          (signal) => api.answer(chatId, prompt, signal),
        );
      },
      async regenerate(chatId) {
        return await answer(
          chatId,
          { kind: "regenerate" },
          (signal) => api.regenerate(chatId, signal),
        );
      },
      async edit(chatId, question, prompt) {
        return await answer(
          chatId,
          { kind: "edit", questionKey: question.key, prompt },
          (signal) => api.editQuestion(chatId, question.id, prompt, signal),
        );
      },
      async retry(chatId, prompt) {
        // What the chat kept decides: its last question with no complete answer after it is
        // answered again; a question the API never got is asked anew.
        let kept = false;
        try {
          const stored = await api.chat(chatId);
          const last = stored.messages.at(-1);
          const question = last?.role === "user" ? last : stored.messages.at(-2);
          kept = question?.role === "user" && question.content === prompt &&
            (last?.role === "user" || last?.status !== undefined);
        } catch {
          // Unreachable: asked anew, which says why it fails.
        }
        if (!kept) {
          // The question the API never got, and its failure, give way to the question asked anew.
          update(chatId, (chat) => {
            const [question, failed] = chat.messages.slice(-2);
            const drop = question?.role === "user" && question.content === prompt &&
              failed?.state === "failed";
            return drop ? { ...chat, messages: chat.messages.slice(0, -2) } : chat;
          });
          return await answer(
            chatId,
            { kind: "ask", prompt },
            (signal) => api.answer(chatId, prompt, signal),
          );
        }
        return await answer(
          chatId,
          { kind: "regenerate" },
          (signal) => api.regenerate(chatId, signal),
        );
      },
      async rename(chatId, name) {
        const chat = await api.renameChat(chatId, name);
        update(chatId, (view) => ({ ...view, metadata: chat.metadata }));
      },
      replace(chat) {
        update(chat.id, (view) => ({ ...view, ...viewChat(chat) }));
      },
      async rate(chatId, answer, rating, note) {
        await api.feedback(chatId, answer.id, rating, note);
        // The rated version may be an earlier one: the chat as stored shows it in its place.
        await refresh(chatId);
      },
      stop(chatId) {
        // The answer runs on the server until told to stop; its stream then ends saying it
        // stopped. Only when the API cannot be told does the page stop listening instead.
        const controller = controllers.current.get(chatId);
        api.stopAnswers(chatId).catch(() => controller?.abort());
      },
      isAnswering: (chatId) => answering.has(chatId),
    };
  }, [api, chats, loadError, answering]);
}
