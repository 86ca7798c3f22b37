/**
 * The left column: the brand, "New chat", the chats by recent activity with
 * a search over their names and documents, and the account, with its API keys.
 * @module
 */
import type { JSX } from "preact";
import { useState } from "preact/hooks";
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
  onSelect: (chatId: string) => void;
  onNew: () => void;
  onApiKeys: () => void;
}): JSX.Element {
  const [query, setQuery] = useState("");
  const chats = props.chats ?? [];
  const shown = chats.filter((chat) => matchesSearch(chat, query));
  return (
    <aside class="sidebar" id="sidebar" aria-label="Chats and account">
      <div class="brand">
        <Logo />
        <span class="brand-name">svc</span>
      </div>
      <button type="button" class="button primary new-chat" onClick={props.onNew}>
        <Icon name="plus" /> New chat
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
          ? <p class="sidebar-empty" role="status">No chat matches "{query.trim()}".</p>
          : (
            <ul>
              {shown.map((chat) => {
                const time = lastActivity(chat);
                const current = chat.id === props.selectedId;
                return (
                  <li key={chat.id}>
                    <button
                      type="button"
                      class="chat-link"
                      aria-current={current ? "page" : undefined}
                      onClick={() => props.onSelect(chat.id)}
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

/** The first letter of a name, for an avatar. */
export function initial(name: string): string {
  return (name.trim()[0] ?? "?").toUpperCase();
}
