/**
 * Picking what an extractive answer quotes: the pieces of the sources
 * (`_sentences.ts`) that share the most telling words with the question,
 * scored as BM25 scores a passage, with a heading's words counted for the
 * pieces under it, and each further pick counted only for the question's
 * words it adds.
 * @module
 */
import { contentWords, stem } from "../text/words.ts";
import { type Piece, pieces } from "./_sentences.ts";

/** A piece of a source chosen for the answer. */
export interface Quote {
  /** The source's index in the answer's sources, from 0. */
  source: number;
  /** The piece's place in its source, from 0. */
  position: number;
  paragraph: number;
  kind: Piece["kind"];
  text: string;
}

/** A source's text as {@linkcode extract} reads it. */
export interface Passage {
  text: string;
  /** What names its document: passages with the same name come from one document. */
  document?: string;
  /** Whether each of its lines stands apart (`PiecesOptions.linesApart`). */
  linesApart?: boolean;
}

/** Options of {@linkcode extract}. */
export interface ExtractOptions {
  /**
   * The most words the quotes may have together; one piece is quoted even when longer.
   * @default {120}
   */
  maxWords?: number;
  /**
   * The most pieces quoted, the context pulled in before a piece included.
   * @default {6}
   */
  maxQuotes?: number;
}

// Words of a question that ask rather than say what it is about.
const ASKING = new Set(
  ("describe difference does explain give happen happens kind list mean meaning means name show " +
    "tell way ways").split(" "),
);

// A question is answered by a piece that holds this many of its telling words, or this share of
// their weight: words the sources never use weigh most, and a question put in other words than
// the documents' shares few with its answer.
const ANSWERED_WORDS = 2;
const ANSWERED_SHARE = 0.3;
// A further pick must score at least this share of the first, and hold as many of the question's
// words as an answer must: one shared word is as often chance as an answer.
const KEPT_SHARE = 0.5;
// A pick from another document than the first's must come close to it: an answer that reads on
// from one document is the clearer, and two documents sharing two words is common.
const ELSEWHERE_SHARE = 0.8;
// BM25's constants, as the storages' lexical search has them.
const K1 = 1.2;
const B = 0.75;
// A piece longer than this many words is quoted as a window around its matches.
const LONG_PIECE = 60;
const WINDOW = 40;
// Words that point back to the sentence before: quoting them alone loses what they mean.
const POINTING_BACK = /^(?:this|that|these|those|it|its|they|their|such|he|she|there|then)\b/i;

// The most lines quoted after a piece that introduces them with a colon.
const INTRODUCED = 3;
// A sentence that ends as sentences do; a piece without a stop is a fragment (a line of code, a
// paragraph cut by the page) and counts less.
const ENDED = /[.!?;:)"'”’]$/;
const FRAGMENT = 0.6;

interface Candidate extends Quote {
  terms: Map<string, number>;
  length: number;
  heading: Set<string>;
  score: number;
}

/**
 * The pieces of `passages` that answer `question`, in the sources' order and,
 * within one, in the order they stand; none when the best covers too little
 * of what the question asks (its telling words, weighted by how rare they are
 * among the pieces).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { extract } from "./_extract.ts";
 * const quotes = extract("When is cardamom harvested?", [
 *   { text: "Pepper grows on vines. Cardamom needs shade. It is harvested in December." },
 * ]);
 * assert.deepEqual(quotes.map((quote) => quote.text), [
 *   "Cardamom needs shade.",
 *   "It is harvested in December.",
 * ]);
 * assert.deepEqual(extract("Who won the cup final?", [{ text: "Pepper grows on vines." }]), []);
 * ```
 */
export function extract(
  question: string,
  passages: readonly Passage[],
  options: ExtractOptions = {},
): Quote[] {
  const { maxWords = 120, maxQuotes = 6 } = options;
  const asked = [...new Set(stems(question).filter((term) => !ASKING.has(term)))];
  if (asked.length === 0) return [];
  const all = candidates(passages);
  const idf = weights(all, asked);
  const total = asked.reduce((sum, term) => sum + idf.get(term)!, 0);
  const lengths = all.filter(quotable).map((candidate) => candidate.length);
  const average = lengths.reduce((sum, length) => sum + length, 0) / Math.max(lengths.length, 1);
  for (const candidate of all) candidate.score = score(candidate, asked, idf, average);

  const picked: Candidate[] = [];
  const covered = new Set<string>();
  const seen = new Set<string>();
  let words = 0;
  let best = 0;
  while (picked.length < maxQuotes) {
    let next: Candidate | undefined;
    let nextScore = 0;
    for (const candidate of all) {
      if (!quotable(candidate) || seen.has(key(candidate.text))) continue;
      const added = asked.filter((term) => candidate.terms.has(term) && !covered.has(term));
      if (added.length === 0) continue;
      const gain = candidate.score * (0.5 + 0.5 * share(added, idf) / share(asked, idf));
      if (gain > nextScore) [next, nextScore] = [candidate, gain];
    }
    if (!next) break;
    if (picked.length === 0) {
      const found = asked.filter((term) => next!.terms.has(term) || next!.heading.has(term));
      const enough = found.length >= Math.min(ANSWERED_WORDS, asked.length) ||
        share(found, idf) >= ANSWERED_SHARE * total;
      if (!enough) return [];
      best = nextScore;
    } else {
      const held = asked.filter((term) => next!.terms.has(term)).length;
      if (held < Math.min(ANSWERED_WORDS, asked.length)) break;
      const elsewhere = passages[next.source]?.document !== passages[picked[0]!.source]?.document;
      const kept = elsewhere ? ELSEWHERE_SHARE : KEPT_SHARE;
      if (nextScore < kept * best || words + next.length > maxWords) break;
    }
    for (const quote of [...context(next, all, seen), next, ...following(next, all, seen)]) {
      seen.add(key(quote.text));
      picked.push(quote);
      words += quote.length;
    }
    for (const term of asked) if (next.terms.has(term)) covered.add(term);
  }
  return picked
    .sort((a, b) => a.source - b.source || a.position - b.position)
    .map(({ source, position, paragraph, kind, text }) => ({
      source,
      position,
      paragraph,
      kind,
      text: window(text, asked),
    }));

  function share(terms: readonly string[], weights: Map<string, number>): number {
    return terms.reduce((sum, term) => sum + weights.get(term)!, 0);
  }
}

function stems(text: string): string[] {
  return contentWords(text).map(stem);
}

function quotable(candidate: Candidate): boolean {
  return candidate.kind !== "heading" && !ANCHOR_LINK.test(candidate.text);
}

// A line that starts with a link within its document: an entry of a Markdown file's contents.
const ANCHOR_LINK = /^\[[^\]]*\]\(#/;

/** The text a piece is known by when the same words stand in two passages (their overlap). */
function key(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ");
}

/** Every piece of every passage, with its words counted and the heading it stands under. */
function candidates(passages: readonly Passage[]): Candidate[] {
  const all: Candidate[] = [];
  passages.forEach((passage, source) => {
    let heading = new Set<string>();
    // A table's first row names its columns, and counts for each row as its heading.
    let header: Set<string> | undefined;
    let last: Piece | undefined;
    for (const piece of pieces(passage.text, passage)) {
      const words = stems(piece.text);
      const terms = new Map<string, number>();
      for (const word of words) terms.set(word, (terms.get(word) ?? 0) + 1);
      if (piece.kind === "heading") heading = new Set(words);
      if (piece.kind !== "row") header = undefined;
      else if (last?.kind !== "row") header = new Set(words);
      const above = header ? new Set([...heading, ...header]) : heading;
      all.push({ ...piece, source, terms, length: words.length, heading: above, score: 0 });
      last = piece;
    }
  });
  return all;
}

/** How telling each asked word is: rare among the pieces, or not in them at all, counts most. */
function weights(all: readonly Candidate[], asked: readonly string[]): Map<string, number> {
  const idf = new Map<string, number>();
  for (const term of asked) {
    const df = all.filter((candidate) => candidate.terms.has(term)).length;
    idf.set(term, Math.log(1 + (all.length - df + 0.5) / (df + 0.5)));
  }
  return idf;
}

/**
 * A piece's BM25 score for the asked words, plus a third of its heading's, plus half the smaller
 * weight of each two asked words that stand side by side in it as in the question; the first
 * sources, ranked higher by the storage, weigh a little more.
 */
function score(
  candidate: Candidate,
  asked: readonly string[],
  idf: Map<string, number>,
  average: number,
): number {
  let total = 0;
  const norm = K1 * (1 - B + B * candidate.length / Math.max(average, 1));
  for (const term of asked) {
    const tf = candidate.terms.get(term) ?? 0;
    if (tf) total += idf.get(term)! * tf * (K1 + 1) / (tf + norm);
    else if (candidate.heading.has(term)) total += idf.get(term)! / 3;
  }
  const words = stems(candidate.text);
  for (let i = 0; i + 1 < asked.length; i++) {
    const [a, b] = [asked[i]!, asked[i + 1]!];
    if (words.some((word, at) => word === a && words[at + 1] === b)) {
      total += Math.min(idf.get(a)!, idf.get(b)!) / 2;
    }
  }
  if (candidate.kind === "sentence" && !ENDED.test(candidate.text)) total *= FRAGMENT;
  return total * (1 + 0.2 / (1 + candidate.source));
}

/**
 * What a piece needs before it to be understood, when that is not quoted yet: the sentence before
 * one that points back to it, the first row of a table row's table.
 */
function context(piece: Candidate, all: readonly Candidate[], seen: Set<string>): Candidate[] {
  if (piece.kind === "row") {
    let first = all.indexOf(piece);
    while (all[first - 1]?.kind === "row" && all[first - 1]!.source === piece.source) first--;
    const header = all[first]!;
    return header !== piece && !seen.has(key(header.text)) ? [header] : [];
  }
  if (piece.kind !== "sentence" || !POINTING_BACK.test(piece.text)) return [];
  const before = all.find((candidate) =>
    candidate.source === piece.source && candidate.position === piece.position - 1 &&
    candidate.paragraph === piece.paragraph && candidate.kind === "sentence"
  );
  return before && !seen.has(key(before.text)) ? [before] : [];
}

/**
 * What a piece that ends with a colon introduces: the lines after it that are not sentences of
 * their own (code, list items, table rows), up to {@linkcode INTRODUCED}.
 */
function following(piece: Candidate, all: readonly Candidate[], seen: Set<string>): Candidate[] {
  if (!piece.text.endsWith(":")) return [];
  const after: Candidate[] = [];
  for (const candidate of all) {
    if (candidate.source !== piece.source || candidate.position <= piece.position) continue;
    const sentence = candidate.kind === "sentence" && ENDED.test(candidate.text);
    if (after.length === INTRODUCED || sentence || candidate.kind === "heading") break;
    if (candidate.length > LONG_PIECE || seen.has(key(candidate.text))) break;
    after.push(candidate);
  }
  return after;
}

/** A long piece cut to the words around its first match, marked with "…" where it was cut. */
function window(text: string, asked: readonly string[]): string {
  const words = text.split(" ");
  if (words.length <= LONG_PIECE) return text;
  const wanted = new Set(asked);
  const first = words.findIndex((word) => stems(word).some((term) => wanted.has(term)));
  const start = Math.max(0, Math.min(first - WINDOW / 4, words.length - WINDOW));
  const end = start + WINDOW;
  return `${start > 0 ? "… " : ""}${words.slice(start, end).join(" ")}${
    end < words.length ? " …" : ""
  }`;
}
