/**
 * Markdown text on the page, through {@linkcode renderMarkdown}, which only
 * ever returns sanitized nodes.
 * @module
 */
import type { JSX } from "preact";
import { useLayoutEffect, useRef } from "preact/hooks";
import { addCodeCopy, copyCodeOnClick } from "./code_copy.ts";
import { renderMarkdown } from "./markdown.ts";

/**
 * Renders Markdown, again whenever the text grows; `decorate` changes the
 * sanitized nodes before they are shown (it adds the citation links). Each
 * code block gets a copy button.
 */
export function Markdown(props: {
  text: string;
  decorate?: (fragment: DocumentFragment) => void;
  onClick?: (event: MouseEvent) => void;
}): JSX.Element {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const fragment = renderMarkdown(props.text);
    props.decorate?.(fragment);
    addCodeCopy(fragment);
    ref.current?.replaceChildren(fragment);
  }, [props.text, props.decorate]);
  return (
    <div
      class="markdown"
      ref={ref}
      onClick={(event) => {
        if (!copyCodeOnClick(event)) props.onClick?.(event);
      }}
    />
  );
}
