/**
 * The document view, loaded with its first use: it is a chunk of its own
 * (and pdf.js another), so that the page's first load stays small.
 * @module
 */
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { describeError } from "./api_client.ts";
import type { DocumentView } from "./DocumentView.tsx";
import { Icon } from "./Icons.tsx";
import { Modal } from "./Modal.tsx";

type Props = Parameters<typeof DocumentView>[0];

/** {@linkcode DocumentView}, once its chunk is loaded; a note in its place until then. */
export function DocumentViewLoader(props: Props): JSX.Element {
  const [view, setView] = useState<{ DocumentView: typeof DocumentView } | undefined>();
  const [error, setError] = useState<string | undefined>(undefined);
  // Read as it renders: the dialog takes the focus before this component's effects run.
  const [opener] = useState(() => document.activeElement as HTMLElement | null);
  useEffect(() => {
    import("./DocumentView.tsx").then(setView, (failure) => setError(describeError(failure)));
    // The dialog is gone by the time the focus can go back to what opened it.
    return () => {
      setTimeout(() => opener?.isConnected && opener.focus());
    };
  }, []);
  if (view) return <view.DocumentView {...props} />;
  return (
    <Modal id="document-view" title={props.source.document.name} onClose={props.onClose}>
      <div class="modal-body">
        {error
          ? (
            <p class="notice" role="alert">
              <Icon name="alert" /> The document view cannot be loaded: {error}
            </p>
          )
          : (
            <p aria-busy="true">
              <span class="spinner" aria-hidden="true" /> Opening the document…
            </p>
          )}
      </div>
      <div class="modal-actions">
        <button type="button" class="button" onClick={props.onClose}>Close</button>
      </div>
    </Modal>
  );
}
