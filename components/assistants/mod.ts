/**
 * The built-in assistants, registered as `svc.assistants.<Name>`.
 * @module
 */
export { SvcDemoAssistant } from "./demo.ts";
