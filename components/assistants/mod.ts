/**
 * The built-in assistants, registered as `svc.assistants.<Name>`. Your own
 * assistant extends `Assistant` and yields its answer in chunks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Assistant, Rag, type Source } from "@svc/svc";
 * import { SvcDemoAssistant } from "@svc/svc/assistants";
 *
 * class Counting extends Assistant {
 *   override *answer(prompt: string, sources: Source[]) {
 *     yield `${sources.length} sources for "${prompt}"`;
 *   }
 * }
 * const rag = new Rag();
 * const counting = await rag.loadComponent(Counting, Assistant);
 * assert.equal(counting?.displayName, "Counting");
 * const demo = await rag.loadComponent("svc.assistants.SvcDemoAssistant", Assistant);
 * assert.ok(demo instanceof SvcDemoAssistant);
 * ```
 * @module
 */
export { Extractive } from "./extractive.ts";
export { SvcDemoAssistant } from "./demo.ts";
export { OpenAI, OpenAICompatible } from "./openai.ts";
export { Ollama } from "./ollama.ts";
export { Anthropic } from "./anthropic.ts";
export { Gemini } from "./gemini.ts";
export { Cohere } from "./cohere.ts";
export { AI21 } from "./ai21.ts";
