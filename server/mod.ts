/**
 * The deploy side of svc: configuration, authentication, the REST API and the
 * web UI, served from a script with your own components.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Config, serveApi, serveUi } from "@svc/svc/deploy";
 *
 * // Like svc.toml; relative paths and "./module.ts#Export" class paths are relative to `base`.
 * const config = Config.from({
 *   local_root: await Deno.makeTempDir(),
 *   assistants: ["svc.assistants.SvcDemoAssistant"],
 *   api: { port: 31576 },
 *   ui: { port: 31577 },
 * }, { base: Deno.cwd(), env: {} });
 * const stop = new AbortController();
 * const log = () => {}; // log lines go to standard error when left out
 * const api = await serveApi(config, { signal: stop.signal, log });
 * const ui = serveUi(config, { signal: stop.signal, log });
 * assert.equal((await fetch(`${api.url}/health`).then((r) => r.json())).status, "ok");
 * assert.equal((await fetch(`${ui.url}/`)).status, 200);
 * stop.abort();
 * await Promise.all([api.finished, ui.finished]);
 * await Deno.remove(config.localRoot, { recursive: true });
 * ```
 * @module
 */
export { Authentication, bearerToken, readLoginForm } from "./auth/authentication.ts";
export type { AuthenticationContext, ClientInfo } from "./auth/authentication.ts";
export { SvcDemoAuthentication } from "./auth/demo.ts";
export type { DemoAuthenticationOptions } from "./auth/demo.ts";
export { PasswordAuthentication } from "./auth/password.ts";
export type { PasswordAuthenticationOptions } from "./auth/password.ts";
export { TrustedProxyAuthentication } from "./auth/trusted_proxy.ts";
export { OpenIDConnectAuthentication, openIdConnectSettings } from "./auth/oidc.ts";
export type { OpenIDConnectOptions, OpenIDConnectSettings } from "./auth/oidc.ts";
export type { TrustedProxyAuthenticationOptions } from "./auth/trusted_proxy.ts";
export { Sessions } from "./auth/sessions.ts";
export type { SessionsOptions, StartSessionOptions } from "./auth/sessions.ts";
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
