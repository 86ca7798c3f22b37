/**
 * The user's API keys, for programs: create one with a name (its key is shown
 * this once, with a copy button), see each by name, its first characters,
 * when it was made and last used, and revoke it.
 * @module
 */
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { type ApiClient, describeError } from "./api_client.ts";
import type { ApiKey, NewApiKey } from "./api_types.ts";
import { ConfirmDialog } from "./ConfirmDialog.tsx";
import { CopyButton } from "./CopyButton.tsx";
import { Icon } from "./Icons.tsx";
import { Modal } from "./Modal.tsx";
import { Notice } from "./Notice.tsx";
import { formatMessageTime, timeAgo } from "./time.ts";

/** The dialog of the user's API keys. */
export function ApiKeysDialog(props: { api: ApiClient; onClose: () => void }): JSX.Element {
  const { api } = props;
  const [keys, setKeys] = useState<ApiKey[] | undefined>(undefined);
  const [name, setName] = useState("");
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<NewApiKey | undefined>(undefined);
  const [revoking, setRevoking] = useState<ApiKey | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);

  async function load() {
    try {
      setKeys(await api.apiKeys());
    } catch (error) {
      setProblem(`The API keys cannot be shown: ${describeError(error)}`);
    }
  }
  useEffect(() => {
    load();
  }, []);

  async function create(event: Event) {
    event.preventDefault();
    if (name.trim() === "") {
      setProblem("Give the key a name: what it is for, such as the program that uses it");
      return;
    }
    setCreating(true);
    setProblem(undefined);
    try {
      setCreated(await api.createApiKey(name.trim()));
      setName("");
      await load();
    } catch (error) {
      setProblem(`The key was not created: ${describeError(error)}`);
    } finally {
      setCreating(false);
    }
  }

  async function revoke() {
    const key = revoking;
    if (!key) return;
    try {
      await api.revokeApiKey(key.id);
      if (created?.id === key.id) setCreated(undefined);
      setProblem(undefined);
      await load();
    } catch (error) {
      setProblem(`Cannot revoke "${key.name}": ${describeError(error)}`);
    } finally {
      setRevoking(undefined);
    }
  }

  return (
    <>
      <Modal id="api-keys" title="API keys" class="wide" onClose={props.onClose}>
        <div class="modal-body">
          <p class="modal-intro">
            A program signs in with a key instead of a password: it sends{" "}
            <code>Authorization: Bearer svc_…</code>{" "}
            with every request, and can do all that you can. Revoke a key that you no longer use.
          </p>
          <form class="key-create" onSubmit={create} noValidate>
            <div class="field">
              <label for="api-key-name">Name</label>
              <input
                id="api-key-name"
                value={name}
                maxLength={255}
                autoComplete="off"
                placeholder="What the key is for, e.g. nightly import"
                onInput={(event) => setName(event.currentTarget.value)}
              />
            </div>
            <button type="submit" class="button primary" disabled={creating}>
              <Icon name="plus" /> {creating ? "Creating…" : "Create key"}
            </button>
          </form>
          {created && (
            <section class="new-key" aria-labelledby="new-key-title">
              <h3 id="new-key-title">Copy the key of "{created.name}" now</h3>
              <p>It is shown this once: svc keeps only a hash of it.</p>
              <div class="new-key-row">
                <label class="visually-hidden" for="new-api-key">New API key</label>
                <input
                  id="new-api-key"
                  class="key-secret"
                  readOnly
                  value={created.key}
                  onFocus={(event) => event.currentTarget.select()}
                />
                <CopyButton text={created.key} label="Copy key" />
              </div>
            </section>
          )}
          {problem && <Notice message={problem} onDismiss={() => setProblem(undefined)} />}
          <h3 class="panel-subhead" id="api-key-list-heading">Your keys</h3>
          {keys === undefined
            ? <p class="muted" aria-busy="true">Loading the keys…</p>
            : keys.length === 0
            ? <p class="muted">No API keys yet.</p>
            : (
              <ul class="key-list" aria-labelledby="api-key-list-heading">
                {keys.map((key) => (
                  <li key={key.id} class="key-item">
                    <div class="key-text">
                      <span class="key-name">{key.name}</span>
                      <span class="key-meta">
                        <code>{key.prefix}…</code>
                        {" · created "}
                        <time dateTime={key.created}>{formatMessageTime(key.created)}</time>
                        {" · "}
                        {key.last_used === null ? "never used" : (
                          <>
                            {"last used "}
                            <time dateTime={key.last_used}>
                              {timeAgo(Date.parse(key.last_used))}
                            </time>
                          </>
                        )}
                      </span>
                    </div>
                    <button
                      type="button"
                      class="button ghost small danger"
                      aria-label={`Revoke "${key.name}"`}
                      onClick={() => setRevoking(key)}
                    >
                      <Icon name="trash" /> Revoke
                    </button>
                  </li>
                ))}
              </ul>
            )}
        </div>
        <div class="modal-actions">
          <button type="button" class="button ghost" onClick={props.onClose}>Done</button>
        </div>
      </Modal>
      {revoking && (
        <ConfirmDialog
          title={`Revoke "${revoking.name}"?`}
          confirm="Revoke key"
          working="Revoking…"
          onConfirm={revoke}
          onClose={() => setRevoking(undefined)}
        >
          <p>
            Programs that use <code>{revoking.prefix}…</code>{" "}
            are refused from now on. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
