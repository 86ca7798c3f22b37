/**
 * A modal dialog on the native `<dialog>`, which keeps the focus inside,
 * closes on Escape, and gives the focus back when it closes.
 * @module
 */
import type { ComponentChildren, JSX } from "preact";
import { useEffect, useRef } from "preact/hooks";

/** A modal with a title; `onClose` runs on Escape too. */
export function Modal(props: {
  id: string;
  title: string;
  class?: string;
  onClose: () => void;
  children: ComponentChildren;
}): JSX.Element {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
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
