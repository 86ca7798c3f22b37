/**
 * Copying text. The Clipboard API exists only in secure contexts (HTTPS,
 * localhost), and svc is often reached over plain HTTP on a LAN, so a
 * selected hidden text area is the fallback.
 * @module
 */

/** Copies the text, or throws when the browser refuses. */
export async function copyText(text: string): Promise<void> {
  if (globalThis.isSecureContext && navigator.clipboard) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "copy-buffer";
  document.body.append(area);
  area.select();
  const copied = document.execCommand("copy");
  area.remove();
  if (!copied) throw new Error("The browser did not allow copying");
}
