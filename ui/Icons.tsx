/**
 * Line icons drawn inline, so that the UI fetches nothing but its bundle.
 * Each is decorative: the control that holds it carries the label.
 * @module
 */
import type { JSX } from "preact";

const PATHS = {
  plus: "M12 5v14M5 12h14",
  chat: "M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12z",
  send: "M5 12h13M13 6l6 6-6 6",
  stop: "M7 7h10v10H7z",
  copy: "M9 9h10v11H9zM5 15V4h10",
  check: "M5 12.5l4.5 4.5L19 7.5",
  info: "M12 11v6M12 7.5v.5M12 21a9 9 0 1 1 0-18 9 9 0 0 1 0 18z",
  trash: "M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3",
  close: "M6 6l12 12M18 6L6 18",
  menu: "M4 7h16M4 12h16M4 17h16",
  file: "M6 3h8l4 4v14H6zM14 3v4h4",
  upload: "M12 16V4M7 9l5-5 5 5M5 20h14",
  logout: "M15 12H4M8 8l-4 4 4 4M13 4h7v16h-7",
  book: "M4 5a2 2 0 0 1 2-2h14v16H6a2 2 0 0 0-2 2zM4 21V5M8 7h8",
  back: "M15 6l-6 6 6 6",
  forward: "M9 6l6 6-6 6",
  alert:
    "M12 9v4M12 16.5v.5M10.3 3.9L2.5 18a2 2 0 0 0 1.7 3h15.6a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z",
  refresh: "M20 11a8 8 0 1 0-2.3 5.7M20 5v6h-6",
  key: "M15 14a5 5 0 1 0 0-10 5 5 0 0 0 0 10zM11.5 12.5L3 21M6 18l2.5 2.5M8.5 15.5L11 18",
  edit: "M4 20h4L19 9l-4-4L4 16zM13 7l4 4",
  search: "M11 18a7 7 0 1 0 0-14 7 7 0 0 0 0 14zM16 16l4 4",
  down: "M12 5v14M6 13l6 6 6-6",
  download: "M12 4v12M7 11l5 5 5-5M5 20h14",
  zoomIn: "M11 18a7 7 0 1 0 0-14 7 7 0 0 0 0 14zM16 16l4 4M8 11h6M11 8v6",
  zoomOut: "M11 18a7 7 0 1 0 0-14 7 7 0 0 0 0 14zM16 16l4 4M8 11h6",
  fit: "M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5",
  thumbUp: "M7 11v9H4v-9zM7 11l4-8a2 2 0 0 1 2 2v4h5.5a2 2 0 0 1 2 2.3l-1.2 7A2 2 0 0 1 17.3 20H7",
  thumbDown: "M7 13V4H4v9zM7 13l4 8a2 2 0 0 0 2-2v-4h5.5a2 2 0 0 0 2-2.3l-1.2-7A2 2 0 0 0 17.3 4H7",
} as const;

/** The name of an icon. */
export type IconName = keyof typeof PATHS;

/** An icon, 1em square, in the current text color. */
export function Icon(props: { name: IconName; class?: string }): JSX.Element {
  return (
    <svg
      class={`icon${props.class ? ` ${props.class}` : ""}`}
      viewBox="0 0 24 24"
      aria-hidden="true"
      focusable="false"
    >
      <path d={PATHS[props.name]} />
    </svg>
  );
}

/** The svc mark: a page with a speech bubble. */
export function Logo(): JSX.Element {
  return (
    <svg class="logo" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect x="3" y="3" width="26" height="26" rx="8" class="logo-back" />
      <path d="M10 11h12M10 16h8M10 21l3-2h9" class="logo-lines" />
    </svg>
  );
}
