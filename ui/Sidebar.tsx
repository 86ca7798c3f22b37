/**
 * The left column: the brand, "New chat", the chats by recent activity with
 * a search over their names and documents (at once, in the page) and their
 * messages (by the API, as the typing pauses), and the account, with its API keys.
 * @module
 */
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { ChatSearchHit } from "./api_types.ts";
import type { ViewChat } from "./chat_store.ts";
import { lastActivity } from "./chats.ts";
import { chatName, matchesSearch } from "./conversation.ts";
import { Icon, Logo } from "./Icons.tsx";
import { LOGOUT_PATH } from "./paths.ts";
import { timeAgo } from "./time.ts";

/** The chat list and account controls. */
export function Sidebar(props: {
  /** `undefined` while loading. */
  chats: ViewChat[] | undefined;
  /** Whether the chats could not be read: the list says nothing of them then. */
  failed: boolean;
  selectedId: string | undefined;
  isAnswering: (chatId: string) => boolean;
  user: string;
  version: string;
  /** Opens a chat; at the message that a search found, when one did. */
  onSelect: (chatId: string, messageId?: string) => void;
  /** Searches the chats' messages. */
  onSearch: (query: string) => Promise<ChatSearchHit[]>;
  onNew: () => void;
  onApiKeys: () => void;
  /** Opens the user's documents. */
  onDocuments: () => void;
}): JSX.Element {
  const [query, setQuery] = useState("");
  const [found, setFound] = useState<{ query: string; hits: Map<string, ChatSearchHit> }>();
  const chats = props.chats ?? [];
  const asked = query.trim();
  // The messages are searched once the typing pauses; a failed search leaves the names' matches.
  useEffect(() => {
    if (asked.length < 2) return void setFound(undefined);
    let gone = false;
    const timer = setTimeout(() => {
      props.onSearch(asked).then((hits) => {
        if (!gone) setFound({ query: asked, hits: new Map(hits.map((hit) => [hit.chat_id, hit])) });
      }, () => {
        if (!gone) setFound({ query: asked, hits: new Map() });
      });
    }, SEARCH_PAUSE);
    return () => {
      gone = true;
      clearTimeout(timer);
    };
  }, [asked]);
  const hits = found?.query === asked ? found.hits : undefined;
  const searching = asked.length >= 2 && hits === undefined;
  const shown = chats.filter((chat) => matchesSearch(chat, query) || hits?.has(chat.id));
  return (
    <aside class="sidebar" id="sidebar" aria-label="Chats and account">
      <div class="brand">
        <Logo />
        <span class="brand-name">svc</span>
      </div>
      <button type="button" class="button primary new-chat" onClick={props.onNew}>
        <Icon name="plus" /> New chat
      </button>
      <button type="button" class="button ghost documents-button" onClick={props.onDocuments}>
        <Icon name="file" /> Your documents
      </button>
      <nav class="chat-list" aria-labelledby="chat-list-heading">
        <h2 id="chat-list-heading" class="sidebar-heading">Chats</h2>
        {chats.length > 0 && (
          <div class="chat-search">
            <Icon name="search" />
            <label for="chat-search" class="visually-hidden">Search the chats</label>
            <input
              id="chat-search"
              type="search"
              placeholder="Search chats"
              autoComplete="off"
              value={query}
              onInput={(event) => setQuery(event.currentTarget.value)}
            />
          </div>
        )}
        {props.failed
          ? <p class="sidebar-empty">Not available until svc answers.</p>
          : props.chats === undefined
          ? null
          : chats.length === 0
          ? <p class="sidebar-empty">No chats yet.</p>
          : shown.length === 0
          ? (
            <p class="sidebar-empty" role="status">
              {searching ? "Searching the messages…" : `No chat matches "${asked}".`}
            </p>
          )
          : (
            <ul>
              {shown.map((chat) => {
                const time = lastActivity(chat);
                const current = chat.id === props.selectedId;
                const hit = hits?.get(chat.id);
                return (
                  <li key={chat.id}>
                    <button
                      type="button"
                      class="chat-link"
                      aria-current={current ? "page" : undefined}
                      onClick={() => props.onSelect(chat.id, hit?.message_id ?? undefined)}
                    >
                      <span class="chat-link-name" title={chatName(chat)}>
                        <span class="chat-link-text">{chatName(chat)}</span>
                        {props.isAnswering(chat.id) && (
                          <span class="live-dot" title="Answering">
                            <span class="visually-hidden">(answering)</span>
                          </span>
                        )}
                      </span>
                      <span class="chat-link-meta">
                        {chat.metadata.documents.length}{" "}
                        {chat.metadata.documents.length === 1 ? "document" : "documents"}
                        {time !== undefined && ` · ${timeAgo(time)}`}
                      </span>
                      {hit?.snippet && (
                        <span class="chat-link-snippet">{highlighted(hit.snippet, asked)}</span>
                      )}
                    </button>
                  </li>
                );
              })}
            </ul>
          )}
      </nav>
      <footer class="account">
        <div class="account-user">
          <span class="avatar user" aria-hidden="true">{initial(props.user)}</span>
          <span>
            <span class="visually-hidden">Logged in as</span>
            <span class="account-name">{props.user || "(no name)"}</span>
          </span>
        </div>
        <a class="button ghost small" href={LOGOUT_PATH}>
          <Icon name="logout" /> Log out
        </a>
        <button type="button" class="button ghost small account-keys" onClick={props.onApiKeys}>
          <Icon name="key" /> API keys
        </button>
        <p class="version">svc {props.version}</p>
      </footer>
    </aside>
  );
}

/** How long the typing pauses before the messages are searched, in milliseconds. */
const SEARCH_PAUSE = 250;

/** A snippet with the words searched for marked. */
function highlighted(snippet: string, query: string): (string | JSX.Element)[] {
  const words = query.split(/\s+/).filter(Boolean).map((word) =>
    word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  );
  const parts = snippet.split(new RegExp(`(${words.join("|")})`, "iu"));
  return parts.map((part, index) => index % 2 === 1 ? <mark key={index}>{part}</mark> : part);
}

/** The first letter of a name, for an avatar. */
export function initial(name: string): string {
  return (name.trim()[0] ?? "?").toUpperCase();
}
