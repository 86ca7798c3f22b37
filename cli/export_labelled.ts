/**
 * `svc export-labelled`: the answers users rated good, each question with the
 * documents and pages its answer cites, as a labelled questions file that
 * `svc eval` measures retrieval with. The feedback of daily use becomes the
 * test set, with no labelling by hand.
 * @module
 */
import { Command, Option } from "commander";
import { quote, SvcError } from "../components/core/errors.ts";
import { Config, findConfigPath } from "../server/config.ts";
import type { RatedAnswer } from "../server/database/mod.ts";
import type { LabelledQuestion } from "./_eval_questions.ts";
import { pagesOfLocation } from "./_eval_scores.ts";
import { type CommandContext, configOption } from "./context.ts";

/** The longest `text` of a question whose document has no pages, in characters. */
const MAX_TEXT = 120;

/**
 * The labelled questions of rated answers: one per question and document it
 * cites, with the pages of its sources, or for a document without pages, the
 * start of its first source's text. A question asked twice is listed once per
 * document, its pages joined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { labelledQuestions } from "./export_labelled.ts";
 * const document = { id: "d", name: "guide.pdf" };
 * const source = (location: string) => ({ id: location, document, location, content: "", num_tokens: 1 });
 * assert.deepEqual(
 *   labelledQuestions([
 *     { user: "ada", chat: "c", question: "Where?", sources: [source("5-6"), source("2")] },
 *   ]),
 *   [{ question: "Where?", document: "guide.pdf", pages: [2, 5, 6] }],
 * );
 * ```
 */
export function labelledQuestions(answers: readonly RatedAnswer[]): LabelledQuestion[] {
  const entries = new Map<string, LabelledQuestion>();
  for (const { question, sources } of answers) {
    const asked = question.trim();
    if (asked === "") continue;
    for (const source of sources) {
      const key = JSON.stringify([asked, source.document.name]);
      const pages = pagesOf(source.location);
      const entry = entries.get(key) ?? { question: asked, document: source.document.name };
      entries.set(key, entry);
      if (pages.length > 0) {
        delete entry.text;
        entry.pages = [...new Set([...entry.pages ?? [], ...pages])].sort((a, b) => a - b);
      } else if (entry.pages === undefined && entry.text === undefined) {
        const text = excerpt(source.content);
        if (text) entry.text = text;
      }
    }
  }
  return [...entries.values()].filter((entry) => entry.pages || entry.text);
}

/** The pages of a location: `"1-3, 5"`, or the demo storage's `"page 2"`. */
function pagesOf(location: string): number[] {
  return pagesOfLocation(location.trim().replace(/^page\s+/i, ""));
}

/** The start of a passage, whole words, spaces collapsed: what a passage answering it holds. */
function excerpt(content: string): string {
  const text = content.replace(/\s+/g, " ").trim();
  if (text.length <= MAX_TEXT) return text;
  const cut = text.slice(0, MAX_TEXT);
  const space = cut.lastIndexOf(" ");
  return space > MAX_TEXT / 2 ? cut.slice(0, space) : cut;
}

/** The questions as JSON, one per line, as tests/fixtures/labelled/questions.json has them. */
export function questionsJson(questions: readonly LabelledQuestion[]): string {
  if (questions.length === 0) return "[]\n";
  return `[\n${questions.map((entry) => `  ${JSON.stringify(entry)}`).join(",\n")}\n]\n`;
}

/** `svc export-labelled [-c CONFIG] [--user NAME] [-o FILE [-f]]`. */
export function exportLabelledCommand(context: CommandContext): Command {
  return new Command("export-labelled")
    .description(
      "write the questions whose answers users rated good, with the documents and pages the " +
        "answers cite, as a labelled questions file for svc eval",
    )
    .addOption(configOption())
    .addOption(new Option("--user <name>", "only this user's answers (default: every user's)"))
    .addOption(new Option("-o, --output <path>", "the file to write (default: standard output)"))
    .addOption(new Option("-f, --force", "overwrite the output file if it exists"))
    .action(async (flags: { config?: string; user?: string; output?: string; force?: boolean }) => {
      if (flags.output && !flags.force && await exists(flags.output)) {
        throw new SvcError(
          `The file ${quote(flags.output)} exists: choose another, or add --force to overwrite it`,
        );
      }
      const config = await Config.fromFile(
        findConfigPath({ config: flags.config, env: context.env }),
        { env: context.env },
      );
      // Loaded here, so that the other commands never load the database client.
      const { openDatabase } = await import("../server/database/mod.ts");
      const database = await openDatabase(config.api.databaseUrl, {
        localRoot: config.localRoot,
        base: config.base,
      });
      let answers: RatedAnswer[];
      try {
        answers = await database.ratedAnswers("good", flags.user);
      } finally {
        await database.close();
      }
      const questions = labelledQuestions(answers);
      if (questions.length === 0) {
        const whose = flags.user === undefined ? "" : ` of ${quote(flags.user)}`;
        throw new SvcError(
          `No answer${whose} is rated good with a source to label it by: rate answers in the ` +
            "web UI (or POST /chats/{id}/messages/{message_id}/feedback) first",
        );
      }
      const text = questionsJson(questions);
      if (flags.output) {
        await Deno.writeTextFile(flags.output, text);
        const documents = new Set(questions.map((entry) => entry.document));
        context.io.err(
          `Wrote ${questions.length} labelled questions over ${documents.size} documents to ` +
            `${quote(flags.output)}: measure them with svc eval ${flags.output} --documents ` +
            `${[...documents].join(" ")}\n`,
        );
      } else {
        context.io.out(text);
      }
    });
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}
