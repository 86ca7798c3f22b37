/**
 * The right-hand panel (a sheet over the chat on narrow screens): it takes
 * the focus when it opens and gives it back when it closes; Escape closes it.
 * @module
 */
import type { ComponentChildren, JSX } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { Icon } from "./Icons.tsx";

/** A titled panel with a close button. */
export function SidePanel(props: {
  id: string;
  title: string;
  onClose: () => void;
  children: ComponentChildren;
}): JSX.Element {
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    close.current?.focus();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, [props.id]);
  return (
    <aside
      class="panel"
      aria-labelledby={`${props.id}-title`}
      onKeyDown={(event) => {
        if (event.key === "Escape") props.onClose();
      }}
    >
      <header class="panel-head">
        <h2 id={`${props.id}-title`}>{props.title}</h2>
        <button
          type="button"
          class="button icon-only ghost"
          ref={close}
          aria-label={`Close ${props.title.toLowerCase()}`}
          onClick={props.onClose}
        >
          <Icon name="close" />
        </button>
      </header>
      <div class="panel-body">{props.children}</div>
    </aside>
  );
}
