/**
 * A seeded mutation fuzzer for the document handlers. Each case mutates a real fixture of one
 * format and runs it through `Document.extractPages` in a worker; it must end in pages or in a
 * 422 `SvcError` saying `Cannot read "<name>": ...`, within a time bound, without an unhandled
 * rejection, and without the process's peak memory passing a bound.
 *
 * Every case is made again from the run's seed, its format and its index, so that a failure is
 * reproduced with `--format <f> --case <i>`.
 *
 * ```sh
 * deno task fuzz                                       # 5000 cases per format
 * deno run -A tests/rely/fuzz.ts --cases 200 --seed 7 --format pdf,docx
 * deno run -A tests/rely/fuzz.ts --seed 7 --format pdf --case 37 --save /tmp/failures
 * ```
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  BYTE_MUTATORS,
  flipBits,
  type Mutant,
  type Mutator,
  overwriteRun,
  truncate,
} from "./_mutate_bytes.ts";
import {
  brokenXref,
  cyclicReference,
  deepArrays,
  garbageStream,
  hugeCount,
} from "./_mutate_pdf.ts";
import {
  absurdCount,
  absurdOffset,
  absurdSize,
  deepXml,
  DOCX_PARTS,
  entityBomb,
  PPTX_PARTS,
  repeatedSlides,
} from "./_mutate_zip.ts";
import { caseSeed, Rng } from "./_rng.ts";
import type { WorkerReply, WorkerSettled } from "./_fuzz_worker.ts";

/** A format under test: the fixture its cases start from, and its structural mutations. */
interface FormatSpec {
  fixture: string;
  structural: readonly Mutator[];
}

/** The formats, each with a real fixture from tests/fixtures/. */
export const FORMATS = {
  pdf: {
    fixture: "report.pdf",
    structural: [brokenXref, cyclicReference, hugeCount, garbageStream, deepArrays],
  },
  docx: {
    fixture: "notes.docx",
    structural: [
      absurdSize,
      absurdCount,
      absurdOffset,
      deepXml(DOCX_PARTS),
      entityBomb(DOCX_PARTS),
    ],
  },
  pptx: {
    fixture: "slides.pptx",
    structural: [
      absurdSize,
      absurdCount,
      absurdOffset,
      deepXml(PPTX_PARTS),
      entityBomb(PPTX_PARTS),
      repeatedSlides,
    ],
  },
  md: { fixture: "guide.md", structural: [] },
  txt: { fixture: "latin1.txt", structural: [] },
} satisfies Record<string, FormatSpec>;

/** A format's key: `"pdf"`. */
export type Format = keyof typeof FORMATS;

/** One mutated document. */
export interface FuzzCase extends Mutant {
  format: Format;
  index: number;
  name: string;
}

/** How a case ended. */
export type Outcome =
  | "pages"
  | "refused"
  | "wrong error"
  | "timeout"
  | "crash"
  | "memory";

/** The result of one case. */
export interface CaseResult {
  format: Format;
  index: number;
  mutation: string;
  outcome: Outcome;
  /** The refusal's message, the error, or the number of pages. */
  detail: string;
  ms: number;
}

/** The counts of one format. */
export interface FormatCounts {
  cases: number;
  pages: number;
  refused: number;
  failed: number;
  slowestMs: number;
}

/** What a run found. */
export interface FuzzReport {
  seed: number;
  formats: Partial<Record<Format, FormatCounts>>;
  failures: CaseResult[];
  /** The process's peak resident memory, where the system says (Linux). */
  peakRssBytes?: number;
}

/** Options of {@linkcode runFuzz}. */
export interface FuzzOptions {
  seed: number;
  /** Cases per format. */
  cases: number;
  /** @default {all of FORMATS} */
  formats?: Format[];
  /** Run only this case index of each format. */
  only?: number;
  /**
   * The time one case may take, in milliseconds.
   * @default {10000}
   */
  timeoutMs?: number;
  /**
   * The process's peak resident memory may not pass this, in bytes.
   * @default {1.5 GiB}
   */
  maxRssBytes?: number;
  /** Called after each case. */
  onCase?: (result: CaseResult) => void;
}

const FIXTURES = new URL("../fixtures/", import.meta.url);

/** The fixture a format's cases start from. */
export function fixtureBytes(format: Format): Promise<Uint8Array> {
  return Deno.readFile(new URL(FORMATS[format].fixture, FIXTURES));
}

/**
 * The case `index` of a format: a structural mutation half the time (when the format has any),
 * else a byte mutation; sometimes a byte mutation on top.
 */
export async function makeCase(
  format: Format,
  original: Uint8Array,
  options: { seed: number; index: number },
): Promise<FuzzCase> {
  const rng = new Rng(caseSeed(options.seed, format, options.index));
  const { structural } = FORMATS[format] as FormatSpec;
  let mutant: Mutant | undefined;
  for (let tries = 0; !mutant && tries < 5; tries++) {
    const pool = structural.length && rng.next() < 0.5 ? structural : BYTE_MUTATORS;
    mutant = await rng.pick(pool)(original, rng);
  }
  mutant ??= truncate(original, rng);
  if (rng.next() < 0.15 && mutant.bytes.length > 1) {
    const again = rng.pick([flipBits, overwriteRun, truncate])(mutant.bytes, rng);
    mutant = { bytes: again.bytes, mutation: `${mutant.mutation}; then ${again.mutation}` };
  }
  const name = `fuzz-${options.index}.${format}`;
  return { ...mutant, format, index: options.index, name };
}

/** Runs cases in a worker, one at a time, and replaces the worker when a case hangs or kills it. */
class CaseRunner {
  #worker: Worker | undefined;
  #waiting: ((reply: WorkerReply | { kind: "crash"; error: string }) => void) | undefined;
  /** The last case the worker had a turn after, and who waits to hear of it. */
  #settled = 0;
  #onSettled: (() => void) | undefined;
  /** Errors that ended the worker after its case had answered: a late unhandled rejection. */
  readonly late: string[] = [];

  #spawn(): Worker {
    const worker = new Worker(new URL("./_fuzz_worker.ts", import.meta.url), { type: "module" });
    worker.onmessage = (event: MessageEvent<WorkerReply | WorkerSettled>) => {
      if (event.data.kind !== "settled") return this.#waiting?.(event.data);
      this.#settled = event.data.id;
      this.#onSettled?.();
    };
    worker.onerror = (event) => {
      event.preventDefault();
      if (this.#waiting) this.#waiting({ kind: "crash", error: event.message });
      else this.late.push(event.message);
      this.#stop();
    };
    return worker;
  }

  #stop(): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#onSettled?.();
  }

  /**
   * Settles once the worker had a turn after case `id`, in which a rejection
   * the case left unhandled would have ended it (see {@linkcode late}), or
   * once the worker is gone.
   */
  settled(id: number): Promise<void> {
    return new Promise((resolve) => {
      this.#onSettled = () => {
        if (this.#worker && this.#settled < id) return;
        this.#onSettled = undefined;
        resolve();
      };
      this.#onSettled();
    });
  }

  /** How the case ended, or "timeout" after `timeoutMs`. */
  async run(
    id: number,
    document: { name: string; bytes: Uint8Array },
    timeoutMs: number,
  ): Promise<WorkerReply | { kind: "crash" | "timeout"; error: string }> {
    this.#worker ??= this.#spawn();
    const bytes = document.bytes.slice();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await new Promise((resolve) => {
        this.#waiting = resolve;
        timer = setTimeout(() => {
          // A case that hangs may hang forever; only terminating the worker ends it.
          this.#stop();
          resolve({ kind: "timeout", error: `no end after ${timeoutMs} ms` });
        }, timeoutMs);
        this.#worker!.postMessage({ id, name: document.name, bytes }, [bytes.buffer]);
      });
    } finally {
      clearTimeout(timer);
      this.#waiting = undefined;
    }
  }

  close(): void {
    this.#stop();
  }
}

/**
 * Reads one document in a worker, as a fuzz case is read: how it ended, and in how many
 * milliseconds. For regression tests of the cases the fuzzer found.
 */
export async function extractIsolated(
  name: string,
  bytes: Uint8Array,
  options: { timeoutMs?: number } = {},
): Promise<Pick<CaseResult, "outcome" | "detail" | "ms">> {
  const runner = new CaseRunner();
  const start = performance.now();
  try {
    const reply = await runner.run(1, { name, bytes }, options.timeoutMs ?? 10_000);
    const ms = Math.round(performance.now() - start);
    await runner.settled(1);
    if (runner.late.length) return { outcome: "crash", detail: runner.late.join("\n"), ms };
    return { ...judge(reply, name), ms };
  } finally {
    runner.close();
  }
}

/** The peak resident memory of this process, on Linux; otherwise undefined. */
export function peakRss(): number | undefined {
  try {
    const status = Deno.readTextFileSync("/proc/self/status");
    const kilobytes = status.match(/^VmHWM:\s+(\d+) kB/m)?.[1];
    return kilobytes ? Number(kilobytes) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Runs the cases of each format and counts how they ended. */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRss = options.maxRssBytes ?? 1.5 * 1024 ** 3;
  const report: FuzzReport = { seed: options.seed, formats: {}, failures: [] };
  const runner = new CaseRunner();
  const results: CaseResult[] = [];
  let id = 0;
  try {
    for (const format of options.formats ?? (Object.keys(FORMATS) as Format[])) {
      const original = await fixtureBytes(format);
      const first = options.only ?? 0;
      const last = options.only !== undefined ? options.only + 1 : options.cases;
      for (let index = first; index < last; index++) {
        const fuzzCase = await makeCase(format, original, { seed: options.seed, index });
        const start = performance.now();
        const reply = await runner.run(++id, fuzzCase, timeoutMs);
        const result: CaseResult = {
          format,
          index,
          mutation: fuzzCase.mutation,
          ms: Math.round(performance.now() - start),
          ...judge(reply, fuzzCase.name),
        };
        // An error that ended the worker after its case answered came from that case.
        await runner.settled(id);
        if (runner.late.length) {
          Object.assign(result, { outcome: "crash", detail: runner.late.splice(0).join("\n") });
        }
        const rss = peakRss();
        if (rss !== undefined && rss > maxRss && result.outcome !== "timeout") {
          Object.assign(result, { outcome: "memory", detail: `peak memory ${rss} bytes` });
        }
        results.push(result);
        options.onCase?.(result);
      }
    }
  } finally {
    runner.close();
  }
  for (const result of results) {
    const counts = report.formats[result.format] ??= {
      cases: 0,
      pages: 0,
      refused: 0,
      failed: 0,
      slowestMs: 0,
    };
    counts.cases++;
    counts.slowestMs = Math.max(counts.slowestMs, result.ms);
    if (result.outcome === "pages") counts.pages++;
    else if (result.outcome === "refused") counts.refused++;
    else {
      counts.failed++;
      report.failures.push(result);
    }
  }
  report.peakRssBytes = peakRss();
  return report;
}

/** Whether a worker's reply is an acceptable end: pages, or a 422 in svc's voice. */
function judge(
  reply: WorkerReply | { kind: "crash" | "timeout"; error: string },
  name: string,
): Pick<CaseResult, "outcome" | "detail"> {
  switch (reply.kind) {
    case "pages":
      return { outcome: "pages", detail: `${reply.pages} pages, ${reply.chars} characters` };
    case "refused": {
      const voice = reply.message.startsWith(`Cannot read ${JSON.stringify(name)}: `);
      const ok = reply.status === 422 && voice;
      return {
        outcome: ok ? "refused" : "wrong error",
        detail: `${reply.status} ${reply.message}`,
      };
    }
    case "error":
      return { outcome: "wrong error", detail: reply.error };
    case "timeout":
    case "crash":
      return { outcome: reply.kind, detail: reply.error };
    default:
      return { outcome: "crash", detail: `unexpected reply ${JSON.stringify(reply)}` };
  }
}

/** Writes a case's bytes and a note of how it was made, for a regression fixture. */
export async function saveCase(folder: string, fuzzCase: FuzzCase, seed: number): Promise<string> {
  await Deno.mkdir(folder, { recursive: true });
  const path = join(
    folder,
    `${fuzzCase.format}-seed${seed}-case${fuzzCase.index}.${fuzzCase.format}`,
  );
  await Deno.writeFile(path, fuzzCase.bytes);
  return path;
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      cases: { type: "string", default: "150" },
      seed: { type: "string", default: String(Date.now() % 1e9) },
      format: { type: "string" },
      case: { type: "string" },
      timeout: { type: "string", default: "10000" },
      "max-rss": { type: "string", default: String(1.5 * 1024 ** 3) },
      save: { type: "string" },
      json: { type: "boolean", default: false },
      verbose: { type: "boolean", default: false },
    },
  });
  const formats = (values.format?.split(",") ?? Object.keys(FORMATS)) as Format[];
  const unknown = formats.filter((format) => !(format in FORMATS));
  if (unknown.length) {
    console.error(
      `Unknown format ${unknown.join(", ")}; known are ${Object.keys(FORMATS).join(", ")}`,
    );
    return 2;
  }
  const seed = Number(values.seed);
  const report = await runFuzz({
    seed,
    cases: Number(values.cases),
    formats,
    only: values.case === undefined ? undefined : Number(values.case),
    timeoutMs: Number(values.timeout),
    maxRssBytes: Number(values["max-rss"]),
    onCase(result) {
      const failed = result.outcome !== "pages" && result.outcome !== "refused";
      if (values.verbose || failed) {
        const line = `${result.format}#${result.index} ${result.outcome} ${result.ms} ms: ` +
          `${result.mutation} -> ${result.detail.split("\n")[0]}`;
        console.error(line);
      }
    },
  });
  if (values.save) {
    for (const failure of report.failures) {
      const fuzzCase = await makeCase(failure.format, await fixtureBytes(failure.format), {
        seed,
        index: failure.index,
      });
      console.error(`saved ${await saveCase(values.save, fuzzCase, seed)}`);
    }
  }
  if (values.json) console.log(JSON.stringify(report));
  else {
    console.log(
      `seed ${seed}; peak memory ${Math.round((report.peakRssBytes ?? 0) / 2 ** 20)} MiB`,
    );
    for (const [format, counts] of Object.entries(report.formats)) {
      console.log(
        `${format}: ${counts.cases} cases, ${counts.pages} pages, ${counts.refused} refused, ` +
          `${counts.failed} failed, slowest ${counts.slowestMs} ms`,
      );
    }
  }
  return report.failures.length ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
