/**
 * How much text `JSON.stringify()` writes while some work runs: the work of writing values out,
 * counted rather than timed.
 * @module
 */

/** The characters `JSON.stringify()` writes while `work` runs. */
export function writtenAsJson(work: () => void): number {
  const original = JSON.stringify;
  let written = 0;
  JSON.stringify = ((...args: Parameters<typeof original>) => {
    const text = original(...args);
    written += text?.length ?? 0;
    return text;
  }) as typeof original;
  try {
    work();
  } finally {
    JSON.stringify = original;
  }
  return written;
}
