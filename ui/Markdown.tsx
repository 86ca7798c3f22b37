/**
 * Markdown text on the page, through {@linkcode renderMarkdown}, which only
 * ever returns sanitized nodes.
 * @module
 */
import type { JSX } from "preact";
import { useLayoutEffect, useRef } from "preact/hooks";
import { renderMarkdown } from "./markdown.ts";

/** Renders Markdown, again whenever the text grows. */
export function Markdown(props: { text: string }): JSX.Element {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    ref.current?.replaceChildren(renderMarkdown(props.text));
  }, [props.text]);
  return <div class="markdown" ref={ref} />;
}
