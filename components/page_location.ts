/**
 * A source's location from the page numbers of its passage. Apart from the
 * chunking, so that reading a location never loads the tokenizer.
 * @module
 */

/**
 * Page numbers as a location: sorted, without repeats, runs of three or more
 * joined: `[1, 2, 3, 5, 7, 8]` -> `"1-3, 5, 7, 8"`; no numbers -> `""`.
 */
export function pageNumbersToLocation(numbers: Iterable<number>): string {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    if (j - i >= 2) parts.push(`${sorted[i]}-${sorted[j]}`);
    else parts.push(...sorted.slice(i, j + 1).map(String));
    i = j + 1;
  }
  return parts.join(", ");
}
