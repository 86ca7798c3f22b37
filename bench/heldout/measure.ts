/**
 * Measures retrieval on the repository's labelled set and both held-out sets in one go, each next
 * to the page search of `svc eval`, and says by how much each setting leads it.
 *
 * ```sh
 * deno run -A --lock=deno.dev.lock --frozen bench/heldout/measure.ts \
 *   [--params '{"chunk_size": 300}']... [--out bench/results/DATE-finds-WHAT.json]
 * ```
 *
 * The held-out documents must have been fetched first (`bash bench/heldout/set1/make.sh`).
 * @module
 */
import { parseArgs } from "node:util";
import { type EvalReport, evaluate } from "../../cli/_eval_run.ts";
import { reportJson } from "../../cli/eval.ts";

const HERE = new URL(".", import.meta.url).pathname;
const LABELLED = new URL("../../tests/fixtures/labelled/", import.meta.url).pathname;

/** A set of questions and the documents they are about. */
interface LabelledSet {
  name: string;
  questions: string;
  documents: string[];
}

/** The three sets, the held-out ones from their fetched documents. */
async function sets(): Promise<LabelledSet[]> {
  const labelled: LabelledSet = {
    name: "labelled",
    questions: `${LABELLED}questions.json`,
    documents: [
      "usrguide.pdf",
      "grfguide.pdf",
      "clsguide.pdf",
      "commander.md",
      "smol-toml.docx",
      "semver.pptx",
    ].map((name) => `${LABELLED}${name}`),
  };
  const heldOut: LabelledSet[] = [];
  for (const name of ["set1", "set2"]) {
    const docs = `${HERE}${name}/docs/`;
    const documents: string[] = [];
    try {
      for await (const entry of Deno.readDir(docs)) documents.push(`${docs}${entry.name}`);
    } catch {
      throw new Error(`The documents of ${name} are not there: run bench/heldout/${name}/make.sh`);
    }
    heldOut.push({ name, questions: `${HERE}${name}/questions.json`, documents: documents.sort() });
  }
  return [labelled, ...heldOut];
}

/** One line per setting: its hit@3 and MRR, the baseline's, and the lead over it. */
function summary(name: string, report: EvalReport): string[] {
  const base = report.baseline.scores;
  const lines = [
    `${name} (${report.questions} questions): page BM25 hit@3 ${base.hitAt3.toFixed(3)} ` +
    `MRR ${base.mrr.toFixed(3)}`,
  ];
  for (const run of report.runs) {
    const { hitAt3, mrr } = run.scores;
    const lead = (n: number) => `${n >= 0 ? "+" : ""}${n.toFixed(3)}`;
    lines.push(
      `  ${run.name}: hit@3 ${hitAt3.toFixed(3)} (${lead(hitAt3 - base.hitAt3)}) ` +
        `MRR ${mrr.toFixed(3)} (${lead(mrr - base.mrr)})`,
    );
  }
  return lines;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      params: { type: "string", multiple: true },
      out: { type: "string" },
    },
  });
  const params = (values.params ?? ["{}"]).map((text) => JSON.parse(text));
  const results: Record<string, unknown> = {};
  for (const set of await sets()) {
    const report = await evaluate({
      questions: set.questions,
      documents: set.documents,
      params,
      progress: (line) => console.error(`${set.name}: ${line}`),
    });
    console.log(summary(set.name, report).join("\n"));
    results[set.name] = reportJson(report);
  }
  if (values.out) {
    const date = new Date().toISOString().slice(0, 10);
    const file = { bench: "bench/heldout/measure.ts", date, params, sets: results };
    await Deno.writeTextFile(values.out, `${JSON.stringify(file, null, 2)}\n`);
  }
}
