/**
 * Running heads and feet: the lines that a document repeats at the top or
 * the bottom of its pages (its title, "Page 3 of 12"). They are no part of a
 * passage, so the view never marks them, even where a passage's text (from a
 * storage that kept them) has their words.
 * @module
 */

/** A line of text on a page, where it stands: 0 at the page's top, 1 at its bottom. */
export interface PlacedText {
  text: string;
  y: number;
}

/** How far from the top or the bottom, as a part of the page's height, a running line stands. */
const EDGE = 0.12;

/** How far apart two lines may stand and still be one line, as a part of the page's height. */
const SAME_LINE = 0.01;

/** A line of the page: the indexes of its texts, where it stands, and what they say. */
interface Line {
  y: number;
  indexes: number[];
  patterns: Set<string>;
}

/** A text as it repeats from page to page: its numbers any, its case and spaces alike. */
function pattern(text: string): string {
  return text.toLowerCase().replace(/\d+/g, "#").replace(/\s+/g, " ").trim();
}

/** The page's lines from its top down; texts without letters or digits are left out. */
function lines(page: readonly PlacedText[]): Line[] {
  const found: Line[] = [];
  const order = page.map((_, index) => index).sort((a, b) => page[a]!.y - page[b]!.y);
  for (const index of order) {
    const { text, y } = page[index]!;
    const said = pattern(text);
    if (!/[\p{L}\p{N}]/u.test(text)) continue;
    const last = found.at(-1);
    if (last && y - last.y <= SAME_LINE) {
      last.indexes.push(index);
      last.patterns.add(said);
    } else found.push({ y, indexes: [index], patterns: new Set([said]) });
  }
  return found;
}

/**
 * The indexes of the texts of `page` that are running heads or feet: the
 * lines from its top (and from its bottom) down to the first that is not
 * found on a neighbouring page in the same place, saying the same (with
 * other numbers, perhaps), and only near the page's edges.
 *
 * @example
 * ```ts
 * import { runningHeads } from "./running_heads.ts";
 * const page = [
 *   { text: "Bakery report", y: 0.05 }, { text: "Page 2 of 3", y: 0.05 },
 *   { text: "The", y: 0.1 }, { text: "loaf is sweet.", y: 0.1 },
 * ];
 * const next = [
 *   { text: "Bakery report", y: 0.05 }, { text: "Page 3 of 3", y: 0.05 },
 *   { text: "The", y: 0.1 }, { text: "shop opens at six.", y: 0.1 },
 * ];
 * console.assert([...runningHeads(page, next)].join() === "0,1");
 * ```
 */
export function runningHeads(
  page: readonly PlacedText[],
  neighbour: readonly PlacedText[],
): Set<number> {
  const mine = lines(page);
  const theirs = lines(neighbour);
  const found = new Set<number>();
  const walk = (from: "top" | "bottom") => {
    for (let k = 0; k < Math.min(mine.length, theirs.length); k++) {
      const line = from === "top" ? mine[k]! : mine[mine.length - 1 - k]!;
      const other = from === "top" ? theirs[k]! : theirs[theirs.length - 1 - k]!;
      const nearEdge = from === "top" ? line.y < EDGE : line.y > 1 - EDGE;
      if (!nearEdge || Math.abs(line.y - other.y) > SAME_LINE) return;
      if (![...line.patterns].every((text) => other.patterns.has(text))) return;
      for (const index of line.indexes) found.add(index);
    }
  };
  walk("top");
  walk("bottom");
  return found;
}
