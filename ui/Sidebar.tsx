/**
 * The left column: the brand, "New chat", the chats by recent activity and
 * the account, with its API keys.
 * @module
 */
import type { JSX } from "preact";
import type { ViewChat } from "./chat_store.ts";
import { lastActivity } from "./chats.ts";
import { Icon, Logo } from "./Icons.tsx";
import { LOGOUT_PATH } from "./paths.ts";
import { timeAgo } from "./time.ts";

/** The chat list and account controls. */
export function Sidebar(props: {
  chats: ViewChat[];
  selectedId: string | undefined;
  isAnswering: (chatId: string) => boolean;
  user: string;
  version: string;
  onSelect: (chatId: string) => void;
  onNew: () => void;
  onApiKeys: () => void;
}): JSX.Element {
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
        {props.chats.length === 0 ? <p class="sidebar-empty">No chats yet.</p> : (
          <ul>
            {props.chats.map((chat) => {
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
                    <span class="chat-link-name">
                      {chat.metadata.name}
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
