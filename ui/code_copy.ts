/**
 * A copy button on each code block of rendered Markdown. The buttons are
 * the page's own, added to the sanitized fragment (an answer may not hold
 * buttons itself); one click handler on the Markdown serves them all.
 * @module
 */
import { copyText } from "./clipboard.ts";

/** The class of the code blocks' copy buttons. */
const BUTTON = "code-copy";

/** Puts a "Copy" button over each code block of the fragment. */
export function addCodeCopy(fragment: DocumentFragment): void {
  for (const pre of fragment.querySelectorAll("pre")) {
    const block = pre.ownerDocument.createElement("div");
    block.className = "code-block";
    pre.replaceWith(block);
    const button = pre.ownerDocument.createElement("button");
    button.type = "button";
    button.className = `button ghost small ${BUTTON}`;
    button.setAttribute("aria-label", "Copy code");
    button.textContent = "Copy";
    block.append(button, pre);
  }
}

/**
 * Copies the code block whose button was clicked, and says on the button
 * whether it worked; whether the click was on such a button.
 */
export function copyCodeOnClick(event: MouseEvent): boolean {
  const button = (event.target as Element | null)?.closest?.(`button.${BUTTON}`);
  if (!(button instanceof HTMLButtonElement)) return false;
  const code = button.parentElement?.querySelector("pre")?.textContent ?? "";
  const say = (text: string, label: string) => {
    button.textContent = text;
    button.setAttribute("aria-label", label);
    setTimeout(() => {
      button.textContent = "Copy";
      button.setAttribute("aria-label", "Copy code");
    }, 2500);
  };
  copyText(code).then(
    () => say("Copied", "Copied the code"),
    () => say("Copy failed", "Copy failed: the browser did not allow it"),
  );
  return true;
}
