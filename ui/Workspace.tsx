/**
 * The logged-in page: the chat list, the open chat, its side panel, and the
 * dialogs to create and delete chats and to manage the API keys.
 * @module
 */
import type { JSX } from "preact";
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { type ApiClient, describeError, type FailureInfo, failureOf } from "./api_client.ts";
import type { Components, UiSettings } from "./api_types.ts";
import { useChatStore, type ViewChat } from "./chat_store.ts";
import { byActivity } from "./chats.ts";
import { ChatView } from "./ChatView.tsx";
import { chatName } from "./conversation.ts";
import { useConnection } from "./connection.ts";
import { Failure } from "./Failure.tsx";
import { Icon, Logo } from "./Icons.tsx";
import { lazy } from "./lazy.tsx";
import { Notice } from "./Notice.tsx";
import type { Session } from "./session.ts";
import { Sidebar } from "./Sidebar.tsx";
import { SourcesPanel } from "./SourcesPanel.tsx";
import { DocumentViewLoader } from "./DocumentViewLoader.tsx";
import type { Document, DocumentSummary, Source } from "./api_types.ts";
import { wholeDocument } from "./whole_document.ts";

// Dialogs and panels that few visits open: loaded when first opened.
const NewChatDialog = lazy(() => import("./NewChatDialog.tsx").then((m) => m.NewChatDialog));
const ApiKeysDialog = lazy(() => import("./ApiKeysDialog.tsx").then((m) => m.ApiKeysDialog));
const AddDocumentsDialog = lazy(() =>
  import("./AddDocumentsDialog.tsx").then((m) => m.AddDocumentsDialog)
);
const ChatInfoPanel = lazy(() => import("./ChatInfoPanel.tsx").then((m) => m.ChatInfoPanel));
const ConfirmDialog = lazy(() => import("./ConfirmDialog.tsx").then((m) => m.ConfirmDialog));
const DocumentsDialog = lazy(() => import("./DocumentsDialog.tsx").then((m) => m.DocumentsDialog));

/** What the side panel shows. */
type Panel = { kind: "sources"; messageKey: string; source?: number } | { kind: "info" };

function chatFromUrl(): string | undefined {
  return new URLSearchParams(location.search).get("chat") ?? undefined;
}

/** The page of a logged-in user. */
export function Workspace(
  props: { api: ApiClient; session: Session; settings: UiSettings },
): JSX.Element {
  const { api } = props;
  const store = useChatStore(api);
  const [components, setComponents] = useState<Components | undefined>(undefined);
  const [componentsError, setComponentsError] = useState<FailureInfo | undefined>(undefined);
  const [selectedId, setSelectedId] = useState<string | undefined>(chatFromUrl);
  const [panel, setPanel] = useState<Panel | undefined>(undefined);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<ViewChat | undefined>(undefined);
  const [adding, setAdding] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const [keysOpen, setKeysOpen] = useState(false);
  const [viewing, setViewing] = useState<{ source: Source; rank?: number } | undefined>();
  const [documentsOpen, setDocumentsOpen] = useState(false);
  /** The documents a new chat starts with ("new chat from these"). */
  const [startWith, setStartWith] = useState<DocumentSummary[] | undefined>(undefined);
  const open = (document: Document) => setViewing({ source: wholeDocument(document) });
  const [notice, setNotice] = useState<string | undefined>(undefined);
  /** The message a search found, to scroll to in the chat it opens. */
  const [found, setFound] = useState<string | undefined>(undefined);

  const loadComponents = useCallback(async () => {
    try {
      setComponents(await api.components());
      setComponentsError(undefined);
    } catch (error) {
      setComponentsError(failureOf(error));
    }
  }, [api]);

  const load = useCallback(
    () => Promise.all([loadComponents(), store.reload()]),
    [loadComponents, store.reload],
  );
  useEffect(() => {
    load();
  }, []);
  // Back after svc could not be reached: what could not be read is read again.
  const connection = useConnection(api, () => {
    void load();
    if (selected?.openError) void store.open(selected.id);
  });

  const chats = useMemo(() => store.chats && byActivity(store.chats), [store.chats]);
  const selected = chats?.find((chat) => chat.id === selectedId) ?? chats?.[0];

  // The list has no messages; the open chat's are read when it is opened.
  useEffect(() => {
    if (selected && !selected.loaded && !selected.openError) store.open(selected.id);
  }, [selected?.id, selected?.loaded, selected?.openError]);

  // The open chat is in the address, so a reload or a shared link opens it again.
  useEffect(() => {
    if (!chats) return;
    const url = new URL(location.href);
    if (selected) url.searchParams.set("chat", selected.id);
    else url.searchParams.delete("chat");
    if (url.href !== location.href) history.replaceState(null, "", url);
    document.title = selected ? `${chatName(selected)} · svc` : "svc";
  }, [chats && selected?.id, selected?.metadata.name]);

  // The drawer of a phone takes the focus when it opens; Escape closes it and gives the focus back.
  useEffect(() => {
    if (!menuOpen) return;
    const opener = document.activeElement as HTMLElement | null;
    document.querySelector<HTMLElement>("#sidebar .new-chat")?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") setMenuOpen(false);
    };
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("keydown", onKey);
      if (opener?.isConnected && document.activeElement?.closest("#sidebar")) opener.focus();
    };
  }, [menuOpen]);

  /**
   * Opens the new chat dialog, at once or, while the components are still
   * loading, once they are; the effect below says why it cannot without them.
   */
  function startChat() {
    setMenuOpen(false);
    setCreating(true);
    if (!components && componentsError) void loadComponents();
  }

  /** Opens the dialog adding documents to the open chat, as {@linkcode startChat} opens its own. */
  function addDocuments() {
    setAdding(true);
    if (!components && componentsError) void loadComponents();
  }

  // A dialog was asked for and the components cannot be read (the API is down).
  useEffect(() => {
    if ((!creating && !adding) || components || !componentsError) return;
    const asked = creating ? "A new chat" : "Adding documents";
    setNotice(
      `${asked} needs svc's components, which cannot be read now: ${componentsError.message}`,
    );
    setCreating(false);
    setAdding(false);
  }, [creating, adding, components, componentsError]);

  function select(chatId: string, messageId?: string) {
    setSelectedId(chatId);
    setFound(messageId);
    setPanel(undefined);
    setMenuOpen(false);
  }

  async function confirmDelete() {
    const chat = deleting;
    if (!chat) return;
    try {
      await store.remove(chat.id);
      setPanel(undefined);
      setNotice(undefined);
      if (selected?.id === chat.id) setSelectedId(undefined);
    } catch (error) {
      setNotice(`Cannot delete "${chatName(chat)}": ${describeError(error)}`);
    } finally {
      setDeleting(undefined);
    }
  }

  const failure = store.loadError ?? componentsError;
  const loading = !failure && (!chats || !components);
  const answerOf = panel?.kind === "sources"
    ? selected?.messages.find((message) => message.key === panel.messageKey)
    : undefined;

  let content: JSX.Element;
  if (failure) {
    content = (
      <div class="state-card" role="alert">
        <Icon name="alert" class="state-icon" />
        <h1>{store.loadError ? "The chats cannot be shown" : "svc cannot start a chat now"}</h1>
        <div class="state-text">
          <Failure {...failure} />
        </div>
        <button
          type="button"
          class="button primary"
          onClick={connection.offline ? connection.tryNow : load}
        >
          <Icon name="refresh" /> Try again
        </button>
      </div>
    );
  } else if (loading) {
    content = (
      <div class="state-card" aria-busy="true">
        <span class="spinner" aria-hidden="true" />
        <p>Loading your chats…</p>
      </div>
    );
  } else if (!selected) {
    content = (
      <div class="state-card welcome">
        <Logo />
        <h1>Ask your documents</h1>
        <p>
          Start a chat over your PDF, Word, PowerPoint, Markdown or text files. Every answer shows
          the passages it was written from.
        </p>
        <button type="button" class="button primary" onClick={startChat}>
          <Icon name="plus" /> New chat
        </button>
      </div>
    );
  } else if (!selected.loaded) {
    content = selected.openError
      ? (
        <div class="state-card" role="alert">
          <Icon name="alert" class="state-icon" />
          <h1>This chat cannot be shown</h1>
          <div class="state-text">
            <Failure {...selected.openError} />
          </div>
          <button type="button" class="button primary" onClick={() => store.open(selected.id)}>
            <Icon name="refresh" /> Try again
          </button>
        </div>
      )
      : (
        <div class="state-card" aria-busy="true">
          <span class="spinner" aria-hidden="true" />
          <p>Loading the chat…</p>
        </div>
      );
  } else {
    content = (
      <ChatView
        key={selected.id}
        chat={selected}
        user={props.session.user}
        answering={store.isAnswering(selected.id)}
        onAsk={(prompt) => store.ask(selected.id, prompt)}
        onStop={() => store.stop(selected.id)}
        onPrepare={() => store.prepare(selected.id)}
        onRegenerate={() => store.regenerate(selected.id)}
        onRetry={(prompt) => store.retry(selected.id, prompt)}
        onRename={(name) => store.rename(selected.id, name)}
        onAddDocuments={addDocuments}
        onShowSources={(messageKey, source) => setPanel({ kind: "sources", messageKey, source })}
        onShowInfo={() => setPanel(panel?.kind === "info" ? undefined : { kind: "info" })}
        onDelete={() => setDeleting(selected)}
        infoOpen={panel?.kind === "info"}
        found={found}
        onEdit={(question, prompt) => void store.edit(selected.id, question, prompt)}
        onRate={(answer, rating, note) => store.rate(selected.id, answer, rating, note)}
        onBranch={(questionId) => api.branch(selected.id, questionId)}
        onOpenDocument={open}
      />
    );
  }

  return (
    <div
      class={`workspace${panel && selected ? " with-panel" : ""}${menuOpen ? " menu-open" : ""}`}
    >
      <a class="skip-link" href="#prompt">Skip to the question box</a>
      <header class="topbar">
        <button
          type="button"
          class="button icon-only ghost"
          aria-label="Show the chats"
          aria-expanded={menuOpen}
          aria-controls="sidebar"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          <Icon name="menu" />
        </button>
        <span class="topbar-title">{selected ? chatName(selected) : "svc"}</span>
        <button
          type="button"
          class="button icon-only primary"
          aria-label="New chat"
          onClick={startChat}
        >
          <Icon name="plus" />
        </button>
      </header>
      <Sidebar
        chats={chats}
        failed={store.loadError !== undefined}
        selectedId={selected?.id}
        isAnswering={store.isAnswering}
        user={props.session.user}
        version={props.settings.version}
        onSelect={select}
        onSearch={(query) => api.searchChats(query)}
        onNew={startChat}
        onDocuments={() => {
          setMenuOpen(false);
          setDocumentsOpen(true);
        }}
        onApiKeys={() => {
          setMenuOpen(false);
          setKeysOpen(true);
        }}
      />
      <div class="backdrop" onClick={() => setMenuOpen(false)} aria-hidden="true" />
      <main class="main" id="main">
        {connection.offline && (
          <div class="connection" role="status">
            <span class="spinner" aria-hidden="true" />
            <p>
              {connection.retryIn > 0
                ? `svc cannot be reached. Trying again in ${connection.retryIn} s…`
                : "svc cannot be reached. Trying again…"}
            </p>
            <button type="button" class="button ghost small" onClick={connection.tryNow}>
              Try now
            </button>
          </div>
        )}
        {notice && <Notice message={notice} onDismiss={() => setNotice(undefined)} />}
        {content}
      </main>
      {selected && panel?.kind === "info" && (
        <ChatInfoPanel
          chat={selected}
          onClose={() => setPanel(undefined)}
          onDelete={() => setDeleting(selected)}
          onOpen={open}
          onRemove={async (document) =>
            store.replace(await api.removeDocument(selected.id, document.id))}
        />
      )}
      {selected && panel?.kind === "sources" && answerOf && (
        <SourcesPanel
          sources={answerOf.sources ?? []}
          focus={panel.source}
          onOpenDocument={(source, rank) => setViewing({ source, rank })}
          onClose={() => setPanel(undefined)}
        />
      )}
      {creating && components && (
        <NewChatDialog
          api={api}
          components={components}
          onCreated={(chat) => {
            store.add(chat);
            select(chat.id);
            // After the dialog has given the focus back to its opener: the next thing is a question.
            requestAnimationFrame(() => document.getElementById("prompt")?.focus());
          }}
          documents={startWith}
          onClose={() => {
            setCreating(false);
            setStartWith(undefined);
          }}
        />
      )}
      {documentsOpen && (
        <DocumentsDialog
          api={api}
          chats={chats ?? []}
          onOpen={open}
          onNewChat={(documents) => {
            setDocumentsOpen(false);
            setStartWith(documents);
            startChat();
          }}
          onClose={() => setDocumentsOpen(false)}
        />
      )}
      {adding && selected && components && (
        <AddDocumentsDialog
          api={api}
          chatId={selected.id}
          chatName={chatName(selected)}
          suffixes={components.documents}
          onAdded={store.replace}
          onClose={() => setAdding(false)}
        />
      )}
      {keysOpen && <ApiKeysDialog api={api} onClose={() => setKeysOpen(false)} />}
      {viewing && (
        <DocumentViewLoader
          api={api}
          source={viewing.source}
          rank={viewing.rank}
          onClose={() => setViewing(undefined)}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete "${chatName(deleting)}"?`}
          confirm="Delete chat"
          working="Deleting…"
          onConfirm={confirmDelete}
          onClose={() => setDeleting(undefined)}
        >
          <p>
            Its messages, and what its source storage kept of its documents, are removed for good.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
