/**
 * The user's chats in the page: listed from the API without their messages,
 * each one's messages read when it is opened, changed through the API, and
 * each answer streamed into its chat whichever chat is on screen.
 * @module
 */
import { useMemo, useRef, useState } from "preact/hooks";
import { type ApiClient, describeError } from "./api_client.ts";
import type { Chat, ChatMetadata, ChatSummary, Message } from "./api_types.ts";

/** Where an answer stands while and after it streams. */
export type AnswerState = "waiting" | "streaming" | "stopped" | "failed";

/** A message as the page shows it. */
export interface ViewMessage extends Message {
  /** Stable across the stream, unlike `id`, which the first line sets. */
  key: string;
  state?: AnswerState;
  error?: string;
}

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
}

/** What {@linkcode useChatStore} gives. */
export interface ChatStore {
  /** `undefined` while loading. */
  chats: ViewChat[] | undefined;
  loadError: string | undefined;
  reload(): Promise<void>;
  /** Reads the messages of a chat that the list gave without them; once, unless it failed. */
  open(chatId: string): Promise<void>;
  /** Creates a chat, then prepares it; the chat is listed even if preparing fails. */
  create(metadata: ChatMetadata): Promise<ViewChat>;
  prepare(chatId: string): Promise<void>;
  remove(chatId: string): Promise<void>;
  ask(chatId: string, prompt: string): Promise<void>;
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
    messages: chat.messages.map((message) => ({ ...message, key: message.id })),
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

    async function prepare(chatId: string) {
      update(chatId, (chat) => ({ ...chat, preparing: true, prepareError: undefined }));
      try {
        const welcome = await api.prepare(chatId);
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
      async create(metadata) {
        const chat = viewChat(await api.createChat(metadata));
        setChats((list) => [...(list ?? []), chat]);
        await prepare(chat.id);
        return chat;
      },
      prepare,
      async remove(chatId) {
        controllers.current.get(chatId)?.abort();
        await api.deleteChat(chatId);
        setChats((list) => list?.filter((chat) => chat.id !== chatId));
      },
      async ask(chatId, prompt) {
        const controller = new AbortController();
        controllers.current.set(chatId, controller);
        setBusy(chatId, true);
        const now = new Date().toISOString();
        const key = localKey();
        const question: ViewMessage = {
          id: localKey(),
          key: localKey(),
          role: "user",
          content: prompt,
          sources: [],
          timestamp: now,
          citations: [],
        };
        const answer: ViewMessage = {
          id: key,
          key,
          role: "assistant",
          content: "",
          sources: [],
          timestamp: now,
          citations: [],
          state: "waiting",
        };
        update(chatId, (chat) => ({ ...chat, messages: [...chat.messages, question, answer] }));
        try {
          let first = true;
          for await (const line of api.answer(chatId, prompt, controller.signal)) {
            const isFirst = first;
            first = false;
            updateMessage(
              chatId,
              key,
              (message) =>
                isFirst
                  ? { ...line, key, sources: line.sources ?? [], state: "streaming" }
                  : { ...message, content: message.content + line.content },
            );
          }
          updateMessage(chatId, key, (message) => ({ ...message, state: undefined }));
        } catch (error) {
          const stopped = controller.signal.aborted;
          updateMessage(chatId, key, (message) => ({
            ...message,
            state: stopped ? "stopped" : "failed",
            error: stopped ? undefined : describeError(error),
          }));
        } finally {
          controllers.current.delete(chatId);
          setBusy(chatId, false);
        }
      },
      stop(chatId) {
        controllers.current.get(chatId)?.abort();
      },
      isAnswering: (chatId) => answering.has(chatId),
    };
  }, [api, chats, loadError, answering]);
}
