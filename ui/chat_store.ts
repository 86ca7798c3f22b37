/**
 * The user's chats in the page: listed from the API without their messages,
 * each one's messages read when it is opened, changed through the API, and
 * each answer streamed into its chat whichever chat is on screen.
 * @module
 */
import { useMemo, useRef, useState } from "preact/hooks";
import { type ApiClient, describeError } from "./api_client.ts";
import type { Chat, ChatSummary, MessageLine } from "./api_types.ts";
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
  openError?: string;
  preparing?: boolean;
  prepareError?: string;
  /** Where each document stands while the chat is prepared. */
  progress?: ProgressByDocument;
}

/** What {@linkcode useChatStore} gives. */
export interface ChatStore {
  /** `undefined` while loading. */
  chats: ViewChat[] | undefined;
  loadError: string | undefined;
  reload(): Promise<void>;
  /** Reads the messages of a chat that the list gave without them; once, unless it failed. */
  open(chatId: string): Promise<void>;
  /** Lists a chat made and prepared elsewhere (the new chat dialog), with its messages. */
  add(chat: Chat): ViewChat;
  prepare(chatId: string): Promise<void>;
  remove(chatId: string): Promise<void>;
  /** Asks a question; whether it was answered (stopped counts): false when it failed. */
  ask(chatId: string, prompt: string): Promise<boolean>;
  /** Answers the last question again, in place of its answer. */
  regenerate(chatId: string): Promise<boolean>;
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
      // A stored answer that did not end complete says how it ended.
      ...(message.status ? { state: message.status } : {}),
      ...(message.status === "failed" ? { error: "The answer broke off" } : {}),
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
  const [loadError, setLoadError] = useState<string | undefined>(undefined);
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
     * Streams an answer into the chat: after a new question (`prompt`), or in place of the
     * answer after the last question (`prompt` undefined). Whether it was answered.
     */
    async function answer(
      chatId: string,
      prompt: string | undefined,
      lines: (signal: AbortSignal) => AsyncGenerator<MessageLine>,
    ): Promise<boolean> {
      const controller = new AbortController();
      controllers.current.set(chatId, controller);
      setBusy(chatId, true);
      const now = new Date().toISOString();
      const key = localKey();
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
      update(chatId, (chat) => {
        if (prompt === undefined) {
          // The answers after the last question give way to the new one.
          const last = chat.messages.findLastIndex((message) => message.role === "user");
          return { ...chat, messages: [...chat.messages.slice(0, last + 1), reply] };
        }
        const question: ViewMessage = {
          id: localKey(),
          key: localKey(),
          role: "user",
          content: prompt,
          sources: [],
          citations: [],
          timestamp: now,
        };
        return { ...chat, messages: [...chat.messages, question, reply] };
      });
      try {
        let first = true;
        for await (const line of lines(controller.signal)) {
          const isFirst = first;
          first = false;
          updateMessage(
            chatId,
            key,
            (message) =>
              isFirst ? { ...line, key, sources: line.sources ?? [], state: "streaming" } : {
                ...message,
                ...line,
                content: message.content + line.content,
                sources: message.sources,
              },
          );
        }
        updateMessage(chatId, key, (message) => ({ ...message, state: undefined }));
        return true;
      } catch (error) {
        const stopped = controller.signal.aborted;
        updateMessage(chatId, key, (message) => ({
          ...message,
          state: stopped ? "stopped" : "failed",
          error: stopped ? undefined : describeError(error),
        }));
        return stopped;
      } finally {
        controllers.current.delete(chatId);
        setBusy(chatId, false);
        // A chat without a name took one from its first question: the list shows it.
        if (prompt !== undefined) void retitle(chatId);
      }
    }

    async function retitle(chatId: string) {
      let unnamed = false;
      setChats((list) => {
        unnamed = list?.find((chat) => chat.id === chatId)?.metadata.name === "";
        return list;
      });
      if (!unnamed) return;
      try {
        const stored = await api.chat(chatId);
        update(chatId, (chat) => ({ ...chat, metadata: stored.metadata }));
      } catch {
        // The name shows on the next reload.
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
          setLoadError(describeError(error));
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
        } catch (error) {
          update(chatId, (chat) => ({ ...chat, opening: false, openError: describeError(error) }));
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
        return await answer(chatId, prompt, (signal) => api.answer(chatId, prompt, signal));
      },
      async regenerate(chatId) {
        return await answer(chatId, undefined, (signal) => api.regenerate(chatId, signal));
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
          return await answer(chatId, prompt, (signal) => api.answer(chatId, prompt, signal));
        }
        return await answer(chatId, undefined, (signal) => api.regenerate(chatId, signal));
      },
      async rename(chatId, name) {
        const chat = await api.renameChat(chatId, name);
        update(chatId, (view) => ({ ...view, metadata: chat.metadata }));
      },
      replace(chat) {
        update(chat.id, (view) => ({ ...view, ...viewChat(chat) }));
      },
      stop(chatId) {
        controllers.current.get(chatId)?.abort();
        // The answer runs on the server until told to stop; a failure leaves it to its end.
        void api.stopAnswers(chatId).catch(() => {});
      },
      isAnswering: (chatId) => answering.has(chatId),
    };
  }, [api, chats, loadError, answering]);
}
