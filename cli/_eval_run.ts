/**
 * What `svc eval` measures: the labelled questions asked of a chat per source storage and
 * setting, and of the page BM25 baseline. Loaded by the command when it runs, so that the other
 * commands never load the document readers and the components it needs.
 * @module
 */
import { basename } from "node:path";
import { SvcDemoAssistant } from "../components/assistants/demo.ts";
import { SourceStorage } from "../components/core/component.ts";
import { LocalDocument } from "../components/core/document.ts";
import { quote, SvcError } from "../components/core/errors.ts";
import { localRoot } from "../components/core/local_root.ts";
import type { Page } from "../components/core/page.ts";
import { Rag, UnavailableComponentError } from "../components/rag.ts";
import { extractPages } from "../components/documents/pages.ts";
import { embedderFromEnv } from "../components/embeddings/mod.ts";
import { pageBm25 } from "./_eval_baseline.ts";
import { checkAgainstDocuments, type LabelledQuestion, parseQuestions } from "./_eval_questions.ts";
import { type Found, pagesOfLocation, score, type Scores } from "./_eval_scores.ts";

/** The source storage `svc eval` measures unless told otherwise. */
export const DEFAULT_EVAL_STORAGE = "svc.source_storages.LibSQL";

/** One measured setting: a source storage with chat parameters, or the baseline. */
export interface EvalRun {
  /** `LibSQL {"chunk_size":200}`, or `page BM25 (baseline)`. */
  name: string;
  /** The source storage's class path; absent for the baseline. */
  sourceStorage?: string;
  params?: Record<string, unknown>;
  scores: Scores;
}

/** A source storage `svc eval` could not measure, and why. */
export interface SkippedStorage {
  /** As it was asked for: a class path or a built-in's name. */
  sourceStorage: string;
  reason: string;
}

/** What `svc eval` measured. */
export interface EvalReport {
  questions: number;
  documents: string[];
  /** The embedder of the source storages, as its id. */
  embedder: string;
  runs: EvalRun[];
  baseline: EvalRun;
  /** The source storages that could not run here; the others were measured all the same. */
  skipped: SkippedStorage[];
}

/** What {@linkcode evaluate} measures. */
export interface EvalOptions {
  /** The file of labelled questions. */
  questions: string;
  /** The documents' paths; the questions name them by file name. */
  documents: readonly string[];
  /**
   * The source storages, as class paths or the names of built-in ones (`LibSQL`).
   * @default {[DEFAULT_EVAL_STORAGE]}
   */
  sourceStorages?: readonly string[];
  /**
   * The chat parameters of each setting to measure, each with every storage.
   * @default {[{}]}
   */
  params?: readonly Record<string, unknown>[];
  /** Told what is being done, for a person waiting. */
  progress?: (line: string) => void;
}

/**
 * Answers labelled questions through the library, retrieval only: a chat over the documents per
 * source storage and setting, prepared, then `Chat.retrieve()` for each question, scored against
 * where the answer is; and the same questions searched by the page BM25 baseline over the pages
 * svc reads. Components keep what they store in a temporary local root, removed at the end, and
 * each chat is deleted (a Chroma server keeps nothing of it).
 *
 * @throws {SvcError} for a file that is not a valid set of questions (naming the line or JSON
 * path), a question that does not match its document, an unreadable document, an unknown or
 * unavailable source storage, or invalid parameters
 */
export async function evaluate(options: EvalOptions): Promise<EvalReport> {
  const progress = options.progress ?? (() => {});
  const text = await readText(options.questions);
  const questions = parseQuestions(text, options.questions);
  const documents = options.documents.map((path) => LocalDocument.fromPath(path));
  const names = documents.map((document) => basename(document.path));
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw new SvcError(`Two documents are named ${quote(twice)}: rename one`);
  const pagesOf = new Map<string, Page[]>();
  for (const [i, document] of documents.entries()) {
    pagesOf.set(names[i]!, await extractPages(document));
  }
  checkAgainstDocuments(questions, pagesOf, options.questions);

  const runs: EvalRun[] = [];
  const skipped: SkippedStorage[] = [];
  const saved = localRoot();
  const root = await Deno.makeTempDir({ prefix: "svc-eval-" });
  localRoot(root);
  try {
    const rag = new Rag();
    for (const storageName of options.sourceStorages ?? [DEFAULT_EVAL_STORAGE]) {
      const classPath = storageClassPath(storageName);
      // A storage that cannot run here (a server that does not answer, a package that does not
      // load) is named and passed over, so that the others' scores are still measured.
      let storage: SourceStorage;
      try {
        storage = (await rag.loadComponent(classPath, SourceStorage))!;
      } catch (error) {
        if (!(error instanceof UnavailableComponentError)) throw error;
        progress(`Skipping ${storageName}: ${error.message}`);
        skipped.push({ sourceStorage: storageName, reason: error.message });
        continue;
      }
      for (const params of options.params ?? [{}]) {
        const name = `${storage.displayName} ${JSON.stringify(params)}`;
        progress(`Storing ${documents.length} documents with ${name}`);
        const rankings = await retrieve(rag, {
          storage,
          documents,
          names,
          params,
          questions,
        });
        progress(`Asked ${questions.length} questions of ${name}`);
        runs.push({ name, sourceStorage: classPath, params, scores: score(questions, rankings) });
      }
    }
  } finally {
    localRoot(saved);
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
  const baseline = pageBm25(pagesOf, questions.map((entry) => entry.question));
  return {
    questions: questions.length,
    documents: names,
    embedder: embedderFromEnv().id,
    runs,
    baseline: { name: "page BM25 (baseline)", scores: score(questions, baseline) },
    skipped,
  };
}

async function readText(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    const why = error instanceof Deno.errors.NotFound ? "the file does not exist" : String(error);
    throw new SvcError(`Cannot read the questions ${quote(path)}: ${why}`);
  }
}

/** A built-in source storage's class path from its bare name: `LibSQL`. */
function storageClassPath(name: string): string {
  return /[.#/]/.test(name) ? name : `svc.source_storages.${name}`;
}

async function retrieve(rag: Rag, run: {
  storage: SourceStorage;
  documents: LocalDocument[];
  names: string[];
  params: Record<string, unknown>;
  questions: readonly LabelledQuestion[];
}): Promise<Found[][]> {
  const nameOf = new Map(run.documents.map((document, i) => [document, run.names[i]!]));
  const chat = rag.chat({
    documents: run.documents,
    sourceStorage: run.storage,
    assistant: SvcDemoAssistant,
    params: { ...run.params, user: "svc-eval", chat_name: "svc eval" },
  });
  await chat.prepare();
  try {
    const rankings: Found[][] = [];
    for (const { question } of run.questions) {
      const sources = await chat.retrieve(question);
      rankings.push(sources.map((source) => ({
        document: nameOf.get(source.document as LocalDocument) ?? source.document.name,
        pages: pagesOfLocation(source.location),
        content: source.content,
      })));
    }
    return rankings;
  } finally {
    await chat.delete();
  }
}
