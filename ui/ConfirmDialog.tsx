/**
 * Asks before something that cannot be undone.
 * @module
 */
import type { ComponentChildren, JSX } from "preact";
import { useState } from "preact/hooks";
import { Modal } from "./Modal.tsx";

/** A question with Cancel (focused first, the safe choice) and a red confirm button. */
export function ConfirmDialog(props: {
  title: string;
  confirm: string;
  /** The confirm button's text while it works: `Deleting…`. */
  working: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
  children: ComponentChildren;
}): JSX.Element {
  const [busy, setBusy] = useState(false);
  return (
    <Modal id="confirm" title={props.title} class="small" onClose={props.onClose}>
      <div class="modal-body">{props.children}</div>
      <div class="modal-actions">
        <button type="button" class="button ghost" onClick={props.onClose} autofocus>
          Cancel
        </button>
        <button
          type="button"
          class="button danger-solid"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            await props.onConfirm();
          }}
        >
          {busy ? props.working : props.confirm}
        </button>
      </div>
    </Modal>
  );
}
