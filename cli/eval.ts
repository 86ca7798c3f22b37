/**
 * `svc eval`: how well retrieval finds the passages that answer a file of labelled questions,
 * next to a plain page search over the same documents.
 * @module
 */
import { Command, Option } from "commander";
import { quote, SvcError } from "../components/core/errors.ts";
import { type DocumentScores, pagesText } from "./_eval_scores.ts";
import type { EvalReport, EvalRun } from "./_eval_run.ts";
import type { CommandContext } from "./context.ts";

export type { EvalOptions, EvalReport, EvalRun } from "./_eval_run.ts";

/**
 * The report as a table, one row per setting and the baseline; then MRR and hit@3 over each
 * document's questions, a column per setting; then each setting's misses.
 */
export function formatReport(report: EvalReport): string {
  const rows = [...report.runs, report.baseline];
  const header = ["", "hit@1", "hit@3", "hit@5", "MRR", "pages/source", "sources"];
  const cells = rows.map(({ name, scores }) => [
    name,
    ...[scores.hitAt1, scores.hitAt3, scores.hitAt5, scores.mrr].map((n) => n.toFixed(2)),
    scores.pagesPerSource.toFixed(2),
    scores.sourcesPerQuestion.toFixed(1),
  ]);
  const out = [
    `${report.questions} questions over ${report.documents.length} documents ` +
    `(${report.documents.join(", ")}); embedder ${report.embedder}`,
    "",
    ...table(header, cells),
  ];
  for (const { sourceStorage, reason } of report.skipped) {
    out.push(`Not measured: ${sourceStorage}. ${reason}`);
  }
  const byDocument = rows[0]!.scores.byDocument;
  if (byDocument.length > 1) {
    out.push("", "By document, MRR / hit@3:", "");
    out.push(...table(
      ["", "questions", ...rows.map(({ name }) => name)],
      byDocument.map(({ document, questions }, i) => [
        document,
        String(questions),
        ...rows.map(({ scores }) => {
          const { mrr, hitAt3 } = scores.byDocument[i]!;
          return `${mrr.toFixed(2)} / ${hitAt3.toFixed(2)}`;
        }),
      ]),
    ));
  }
  for (const { name, scores } of rows) {
    if (scores.misses.length === 0) continue;
    out.push("", `Misses of ${name} (no right passage among the first 5):`);
    for (const miss of scores.misses) {
      const { question, document, pages, text } = miss.question;
      const expected = pages ? `${document} p. ${pagesText(pages)}` : `${document}: "${text}"`;
      const found = miss.found.length > 0 ? miss.found.join("; ") : "nothing";
      out.push(`  [${miss.index}] ${question} (expected ${expected}) found ${found}`);
    }
  }
  return out.join("\n") + "\n";
}

/** Rows under a header, the first column to the left and the others to the right. */
function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row.map((cell, i) => i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)).join("  ")
      .trimEnd();
  return [header, ...rows].map(line);
}

/** The report for machines: the same numbers, snake_case keys. */
export function reportJson(report: EvalReport): unknown {
  const metrics = (scores: Omit<DocumentScores, "document" | "questions">) => ({
    hit_at_1: scores.hitAt1,
    hit_at_3: scores.hitAt3,
    hit_at_5: scores.hitAt5,
    mrr: scores.mrr,
  });
  const run = ({ name, sourceStorage, params, scores }: EvalRun) => ({
    name,
    ...(sourceStorage === undefined ? {} : { source_storage: sourceStorage, params }),
    ...metrics(scores),
    pages_per_source: scores.pagesPerSource,
    sources_per_question: scores.sourcesPerQuestion,
    misses: scores.misses.map((miss) => ({
      index: miss.index,
      ...miss.question,
      found: miss.found,
    })),
    ranks: scores.ranks,
    by_document: scores.byDocument.map((each) => ({
      document: each.document,
      questions: each.questions,
      ...metrics(each),
    })),
  });
  return {
    questions: report.questions,
    documents: report.documents,
    embedder: report.embedder,
    runs: report.runs.map(run),
    baseline: run(report.baseline),
    skipped: report.skipped.map(({ sourceStorage, reason }) => ({
      source_storage: sourceStorage,
      reason,
    })),
  };
}

function paramsOption(value: string, previous: Record<string, unknown>[] = []) {
  let params: unknown;
  try {
    params = JSON.parse(value);
  } catch {
    throw new SvcError(`Option "--params" needs a JSON object, not ${quote(value)}`);
  }
  if (typeof params !== "object" || params === null || Array.isArray(params)) {
    throw new SvcError(`Option "--params" needs a JSON object, not ${quote(value)}`);
  }
  return [...previous, params as Record<string, unknown>];
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `svc eval QUESTIONS.json --documents a.pdf b.docx [--source-storage X] [--params JSON]...`. */
export function evalCommand(context: CommandContext): Command {
  return new Command("eval")
    .description(
      "measure how well retrieval finds the passages that answer labelled questions, " +
        "next to a plain BM25 search over pages",
    )
    .argument("<questions>", "a JSON file: [{question, document, pages | text}, ...]")
    .addOption(
      new Option("--documents <paths...>", "the documents the questions are about")
        .makeOptionMandatory(),
    )
    .addOption(
      new Option(
        "--source-storage <name>",
        `a source storage to measure, as a class path or a built-in's name; repeat to compare ` +
          `(default: LibSQL)`,
      ).argParser(collect),
    )
    .addOption(
      new Option(
        "--params <json>",
        "chat parameters as a JSON object; repeat to compare settings side by side (default: {})",
      ).argParser(paramsOption),
    )
    .addOption(new Option("--json", "print the report as JSON"))
    .action(async (
      questions: string,
      options: {
        documents: string[];
        sourceStorage?: string[];
        params?: Record<string, unknown>[];
        json?: boolean;
      },
    ) => {
      const { evaluate } = await import("./_eval_run.ts");
      const report = await evaluate({
        questions,
        documents: options.documents,
        sourceStorages: options.sourceStorage,
        params: options.params,
        progress: (line) => context.io.err(`${line}\n`),
      });
      context.io.out(
        options.json ? `${JSON.stringify(reportJson(report), null, 2)}\n` : formatReport(report),
      );
    });
}
