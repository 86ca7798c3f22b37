/**
 * The built-in source storages, registered as `svc.source_storages.<Name>`.
 * Your own source storage extends `SourceStorage`: it stores the documents of
 * a chat and retrieves the passages that best answer a prompt.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Document, Rag, type Source, SourceStorage } from "@svc/svc";
 * import { SvcDemoAssistant } from "@svc/svc/assistants";
 *
 * class Everything extends SourceStorage {
 *   override store() {}
 *   override async retrieve(documents: Document[]): Promise<Source[]> {
 *     return await Promise.all(documents.map(async (document) => {
 *       const [page] = await document.extractPages();
 *       return { id: document.id, document, location: "", content: page?.text ?? "", numTokens: 0 };
 *     }));
 *   }
 * }
 * const path = await Deno.makeTempFile({ suffix: ".md" });
 * await Deno.writeTextFile(path, "# Notes\n\nThe meeting is on Tuesday.\n");
 * const chat = new Rag().chat({ documents: [path], sourceStorage: Everything, assistant: SvcDemoAssistant });
 * await chat.prepare();
 * const answer = await chat.answer("When is the meeting?");
 * assert.match(answer.sources[0]!.content, /Tuesday/);
 * ```
 * @module
 */
export { SvcDemoSourceStorage } from "./demo.ts";
export { LibSQL } from "./libsql.ts";
export type { LibSQLOptions } from "./libsql.ts";
export { LanceDB } from "./lancedb.ts";
export type { LanceDBOptions } from "./lancedb.ts";
export { Chroma } from "./chroma.ts";
export type { ChromaOptions } from "./chroma.ts";
export { Postgres } from "./postgres.ts";
export type { PostgresOptions } from "./postgres.ts";
