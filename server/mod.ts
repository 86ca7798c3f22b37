/**
 * The deploy side of svc: configuration, authentication, the REST API.
 * @module
 */
export { Authentication, SvcDemoAuthentication } from "./auth.ts";
export type { DemoAuthenticationOptions } from "./auth.ts";
export { Config, findConfigPath, withLocalhostTwins } from "./config.ts";
export type {
  ApiConfig,
  ConfigOptions,
  Env,
  FindConfigPathOptions,
  FromFileOptions,
  ToFileOptions,
  UiConfig,
} from "./config.ts";
export { createApi } from "./api/app.ts";
export type { ApiDeps, ApiOptions } from "./api/app.ts";
export { openDatabase } from "./database/mod.ts";
export type { Database } from "./database/mod.ts";
export { UploadTokens } from "./upload_token.ts";
export { serveApi } from "./serve.ts";
export type { RunningApi, ServeApiOptions } from "./serve.ts";
export { createUiApp, serveUi } from "./ui_server.ts";
export type { RunningUi, ServeUiOptions, UiAppOptions } from "./ui_server.ts";
