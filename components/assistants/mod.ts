/**
 * The built-in assistants, registered as `svc.assistants.<Name>`.
 * @module
 */
export { SvcDemoAssistant } from "./demo.ts";
export { OpenAI, OpenAICompatible } from "./openai.ts";
export { Ollama } from "./ollama.ts";
