/**
 * Components for the reliability tests, loaded by a spawned `svc api` through
 * a class path: an assistant that streams numbered chunks slowly, and a source
 * storage whose `store` can be made to wait.
 * @module
 */
import { join } from "node:path";
import { z } from "zod";
import { Assistant } from "../../components/core/component.ts";
import type { Document } from "../../components/core/document.ts";
import { localRoot } from "../../components/core/local_root.ts";
import type { ChatParams, ParamSchema } from "../../components/core/params.ts";
import type { Source } from "../../components/core/source.ts";
import { SvcDemoSourceStorage } from "../../components/source_storages/demo.ts";

/** Streams `chunks` chunks `"<i> "`, `delay_ms` apart, so that order and completeness can be checked. */
export class Numbered extends Assistant {
  static override displayName = "Test/Numbered";
  static override params: ParamSchema = {
    chunks: z.int().positive().default(20),
    delay_ms: z.int().nonnegative().default(20),
  };

  override async *answer(
    _prompt: string,
    _sources: Source[],
    params: ChatParams,
  ): AsyncGenerator<string> {
    const chunks = params.chunks as number;
    for (let i = 0; i < chunks; i++) {
      await pause(params.delay_ms as number, params.signal);
      yield `${i} `;
    }
  }
}

/**
 * The demo source storage, whose `store` first writes the marker file
 * `<localRoot>/storing-<chat id>`, so that a test knows when a `prepare` is
 * under way, and then waits for as long as the file `<localRoot>/hold` exists.
 */
export class SlowStorage extends SvcDemoSourceStorage {
  static override displayName = "Test/SlowStorage";

  override async store(documents: Document[], params: ChatParams): Promise<void> {
    await Deno.writeTextFile(join(localRoot(), `storing-${params.chat_id}`), "");
    while (await exists(join(localRoot(), "hold"))) await pause(20, params.signal);
    await super.store(documents, params);
  }
}

/** The chunks {@linkcode Numbered} streams for `chunks`, joined. */
export function numbered(chunks: number): string {
  return Array.from({ length: chunks }, (_, i) => `${i} `).join("");
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    function stop() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener("abort", stop, { once: true });
  });
}
