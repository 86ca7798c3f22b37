/**
 * svc as a library: chats over documents, with the components, chunking and
 * the registry of class paths.
 *
 * @example
 * ```ts
 * import { Rag } from "@svc/svc";
 * import { SvcDemoSourceStorage } from "@svc/svc/source_storages";
 * import { SvcDemoAssistant } from "@svc/svc/assistants";
 *
 * const chat = new Rag().chat({
 *   documents: ["report.pdf"],
 *   sourceStorage: SvcDemoSourceStorage,
 *   assistant: SvcDemoAssistant,
 * });
 * ```
 * @module
 */
export * from "./core/mod.ts";
export { chunkPages, countTokens, pageNumbersToLocation } from "./chunking.ts";
export type { Chunk, ChunkOptions } from "./chunking.ts";
export { Rag, UnavailableComponentError } from "./rag.ts";
export type { LoadComponentOptions } from "./rag.ts";
export { BUILTINS, ClassPaths, loadClass, register, REGISTRY } from "./registry.ts";
export type { ClassLoader, ClassResolver, LoadClassOptions } from "./registry.ts";
export type { DocumentHandler } from "./documents/mod.ts";
export { shorten } from "./shorten.ts";
export { redactUrl, redactUrls } from "./core/redact_url.ts";
export type { RedactUrlsOptions } from "./core/redact_url.ts";
export * from "./embeddings/mod.ts";
