/**
 * A modal dialog on the native `<dialog>`, which keeps the focus inside,
 * closes on Escape, and gives the focus back to what opened it when it closes.
 * @module
 */
import type { ComponentChildren, JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

/** A modal with a title; `onClose` runs on Escape too. */
export function Modal(props: {
  id: string;
  title: string;
  class?: string;
  onClose: () => void;
  children: ComponentChildren;
}): JSX.Element {
  const ref = useRef<HTMLDialogElement>(null);
  // Read as it renders, before the dialog takes the focus.
  const [opener] = useState(() => document.activeElement as HTMLElement | null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      dialog?.close();
      returnFocus(opener);
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class={`modal${props.class ? ` ${props.class}` : ""}`}
      aria-labelledby={`${props.id}-title`}
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
    >
      <h2 id={`${props.id}-title`} class="modal-title">{props.title}</h2>
      {props.children}
    </dialog>
  );
}

/**
 * Gives the focus back to what opened a dialog, once the dialog has left the
 * page (the browser's own return needs it still there): unless something took
 * the focus meanwhile (the question box after a new chat), or the opener went
 * with what the dialog did (a deleted chat's button), when the question box
 * takes it, if there is one.
 */
function returnFocus(opener: HTMLElement | null): void {
  setTimeout(() => {
    const now = document.activeElement;
    if (now && now !== document.body && now.isConnected) return;
    if (opener?.isConnected && opener !== document.body) opener.focus();
    if (document.activeElement === opener && opener !== document.body) return;
    document.getElementById("prompt")?.focus();
  });
}
