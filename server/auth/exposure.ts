/**
 * The demo sign-in lets anyone who reaches the API read any user's chats by
 * typing that user's name: it is for a svc that only this machine reaches.
 * `serveApi` refuses it on any other address, and `svc check` reports it,
 * unless the operator opts in by a setting whose name says the risk.
 * @module
 */
import { quote } from "../../components/core/errors.ts";
import type { Config } from "../config.ts";
import { SvcDemoAuthentication } from "./demo.ts";
import { isLoopback } from "./loopback.ts";

export { isLoopback };

/**
 * Why the configuration must not be served: the demo sign-in (or a class
 * that extends it) on an address other than loopback, without
 * `allow_insecure_demo_sign_in`. `undefined` when it may be served.
 */
export function exposedDemo(config: Config, authenticationClass: unknown): string | undefined {
  const demo = authenticationClass === SvcDemoAuthentication ||
    (typeof authenticationClass === "function" &&
      authenticationClass.prototype instanceof SvcDemoAuthentication);
  if (!demo || isLoopback(config.api.hostname) || config.api.allowInsecureDemoSignIn) {
    return undefined;
  }
  return `The demo sign-in (${quote(config.authentication)}) lets anyone who reaches ` +
    `${config.api.hostname}:${config.api.port} log in as any user, so it is refused on an ` +
    'address other than loopback: choose "svc.deploy.PasswordAuthentication" in ' +
    '"authentication" and add users with "svc user add", serve the API on 127.0.0.1, or, ' +
    "to serve the demo anyway, set allow_insecure_demo_sign_in = true in [api] " +
    "(env SVC_API_ALLOW_INSECURE_DEMO_SIGN_IN=true)";
}
