/**
 * The deploy side of svc: what the REST API and the web UI are made of.
 * @module
 */
export { Authentication, SvcDemoAuthentication } from "./auth.ts";
export type { DemoAuthenticationOptions } from "./auth.ts";
