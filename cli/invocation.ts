/**
 * How svc is run here, so that a hint shows a command that works where it is
 * printed: `svc` for the compiled binary, `deno task svc` from a checkout,
 * `npx -y deno@<version> task svc` from a checkout through npx.
 * @module
 */
import { type Env, envReader } from "../server/config_load.ts";

/** Options of {@linkcode svcCommand}. */
export interface SvcCommandOptions {
  /**
   * Whether this is the compiled binary.
   * @default {Deno.build.standalone}
   */
  standalone?: boolean;
  /**
   * The environment, where npx leaves `npm_lifecycle_event=npx`.
   * @default {readEnv(), the environment read once (settings.ts)}
   */
  env?: Env;
  /**
   * The version of Deno, for the npx command.
   * @default {Deno.version.deno}
   */
  denoVersion?: string;
}

/**
 * The command that runs svc here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { svcCommand } from "./invocation.ts";
 * assert(svcCommand({ standalone: true }) === "svc");
 * assert(svcCommand({ standalone: false, env: {} }) === "deno task svc");
 * ```
 */
export function svcCommand(options: SvcCommandOptions = {}): string {
  if (options.standalone ?? Deno.build.standalone) return "svc";
  if (envReader(options.env)("npm_lifecycle_event") === "npx") {
    return `npx -y deno@${options.denoVersion ?? Deno.version.deno} task svc`;
  }
  return "deno task svc";
}
