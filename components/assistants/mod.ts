/**
 * The built-in assistants, registered as `svc.assistants.<Name>`.
 * @module
 */
export { SvcDemoAssistant } from "./demo.ts";
export { OpenAI, OpenAICompatible } from "./openai.ts";
export { Ollama } from "./ollama.ts";
export { Anthropic } from "./anthropic.ts";
export { Gemini } from "./gemini.ts";
export { Cohere } from "./cohere.ts";
export { AI21 } from "./ai21.ts";
