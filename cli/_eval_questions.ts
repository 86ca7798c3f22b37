/**
 * The labelled questions of `svc eval`: read from a JSON file, checked, and checked again against
 * the documents they name, each mistake named by its line or its JSON path.
 * @module
 */
import { z } from "zod";
import { quote, SvcError } from "../components/core/errors.ts";
import type { Page } from "../components/core/page.ts";

/** A question and where its answer is: pages of a document, or a text a passage must hold. */
export interface LabelledQuestion {
  question: string;
  /** The document's file name, as given to `--documents` (without its folder). */
  document: string;
  /** The pages (or slides) that answer it, from 1. */
  pages?: number[];
  /** A text that a passage answering it holds (compared without case, spaces collapsed). */
  text?: string;
}

const QUESTION = z.strictObject({
  question: z.string().trim().min(1),
  document: z.string().min(1),
  pages: z.array(z.int().positive()).min(1).optional(),
  text: z.string().trim().min(1).optional(),
}).refine((entry) => (entry.pages === undefined) !== (entry.text === undefined), {
  message: 'give either "pages" or "text"',
});

const QUESTIONS = z.array(QUESTION).min(1, "expected at least one question");

/**
 * The questions of a file's text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseQuestions } from "./_eval_questions.ts";
 * const text = '[{"question": "Who?", "document": "a.pdf", "pages": [2]}]';
 * assert.equal(parseQuestions(text, "q.json")[0]!.pages![0], 2);
 * assert.throws(() => parseQuestions('[\n  {"question": "Who?",}\n]', "q.json"), /line 2, column 23/);
 * ```
 *
 * @throws {SvcError} naming the line and column of a JSON syntax error, or the JSON path of each
 * entry that is not a labelled question
 */
export function parseQuestions(text: string, name: string): LabelledQuestion[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SvcError(`Cannot read the questions ${quote(name)}: ${syntaxError(text)}`);
  }
  const parsed = QUESTIONS.safeParse(json);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) =>
    `- ${jsonPath(issue.path)}: ${issue.message}`
  );
  throw new SvcError(
    `Cannot read the questions ${quote(name)}: each must be ` +
      `{"question", "document", and "pages" or "text"}\n${problems.join("\n")}`,
  );
}

/**
 * Checks that each question names one of the documents and that its answer is there: its pages
 * exist, or its text is in the document.
 *
 * @throws {SvcError} listing every question that does not, by its JSON path
 */
export function checkAgainstDocuments(
  questions: readonly LabelledQuestion[],
  pagesOf: ReadonlyMap<string, readonly Page[]>,
  name: string,
): void {
  const problems: string[] = [];
  questions.forEach((entry, i) => {
    const pages = pagesOf.get(entry.document);
    if (!pages) {
      const known = [...pagesOf.keys()].map(quote).join(", ");
      problems.push(`- [${i}].document: ${quote(entry.document)} is not one of ${known}`);
      return;
    }
    const numbers = pages.map((page) => page.number).filter((n) => n !== null);
    if (entry.pages && numbers.length === 0) {
      problems.push(`- [${i}].pages: ${quote(entry.document)} has no pages: give "text" instead`);
    }
    for (const page of entry.pages ?? []) {
      if (numbers.length > 0 && !numbers.includes(page)) {
        problems.push(
          `- [${i}].pages: ${quote(entry.document)} has no page ${page} (it has ${numbers.length})`,
        );
      }
    }
    if (entry.text && !pages.some((page) => holds(page.text, entry.text!))) {
      problems.push(`- [${i}].text: ${quote(entry.text)} is not in ${quote(entry.document)}`);
    }
  });
  if (problems.length > 0) {
    throw new SvcError(
      `The questions ${quote(name)} do not match the documents:\n${problems.join("\n")}`,
    );
  }
}

/** Whether `text` holds `part`, without case and with runs of spaces as one. */
export function holds(text: string, part: string): boolean {
  return normalized(text).includes(normalized(part));
}

function normalized(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

function jsonPath(path: readonly PropertyKey[]): string {
  return path.map((key) => typeof key === "number" ? `[${key}]` : `.${String(key)}`).join("")
    .replace(/^\./, "") || "(the whole file)";
}

/** Where the JSON first goes wrong, in words: `invalid JSON at line 3, column 5: ...`. */
function syntaxError(text: string): string {
  const offset = jsonErrorOffset(text);
  const before = text.slice(0, offset).split("\n");
  const where = `line ${before.length}, column ${before.at(-1)!.length + 1}`;
  const what = offset >= text.length
    ? "the text ends too early"
    : `unexpected ${quote(text[offset]!)}`;
  return `invalid JSON at ${where}: ${what}`;
}

/**
 * The offset of the first character where `text` stops being JSON. `JSON.parse` says where only
 * for some mistakes, so the text is scanned again to name the line of every one.
 */
function jsonErrorOffset(text: string): number {
  let i = 0;
  const literal = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
  const fail = (): never => {
    throw i;
  };
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text.charCodeAt(i) < 0x20) fail();
      i += text[i] === "\\" ? 2 : 1;
    }
    if (i >= text.length) fail();
    i++;
  };
  const items = (close: string, item: () => void) => {
    i++;
    space();
    if (text[i] === close) return void i++;
    for (;;) {
      item();
      space();
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text[i] === close) return void i++;
      fail();
    }
  };
  const value = (): void => {
    space();
    if (text[i] === "{") {
      return items("}", () => {
        space();
        if (text[i] !== '"') fail();
        string();
        space();
        if (text[i] !== ":") fail();
        i++;
        value();
      });
    }
    if (text[i] === "[") return items("]", value);
    if (text[i] === '"') return string();
    literal.lastIndex = i;
    if (!literal.test(text)) fail();
    i = literal.lastIndex;
  };
  try {
    value();
    space();
    if (i < text.length) fail();
  } catch (at) {
    if (typeof at === "number") return Math.min(at, text.length);
    throw at;
  }
  return text.length;
}
