/**
 * A source storage for the browser tests: the demo's, but each document takes
 * a while to prepare, step by step, so that a test can watch the bars move
 * and cancel midway.
 * @module
 */
import type { Document } from "../../components/core/document.ts";
import type { ChatParams } from "../../components/core/params.ts";
import { SvcDemoSourceStorage } from "../../components/source_storages/demo.ts";

/** How long each step of each document takes, in milliseconds. */
export const STEP_MS = 700;

/** The demo storage, slowed down: reading, then parsed, then indexed, `STEP_MS` apart. */
export class SlowStorage extends SvcDemoSourceStorage {
  static override displayName = "Test/SlowStorage";

  override async store(documents: Document[], params: ChatParams): Promise<void> {
    for (const document of documents) {
      params.progress?.({ document, stage: "reading" });
      await pause(params.signal);
      params.progress?.({ document, stage: "parsed", pages: 1 });
      await pause(params.signal);
      params.progress?.({ document, stage: "indexed", chunks: 1 });
    }
  }
}

function pause(signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, STEP_MS);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}
