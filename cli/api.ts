/**
 * `svc api`: loads the configuration, warns of unknown `SVC_` variables and serves
 * the REST API until SIGINT or SIGTERM (see `api_run.ts`).
 * @module
 */
import { Command } from "commander";
import { type ApiArgs, runApi } from "./api_run.ts";
import {
  allowInsecureDemoOption,
  type CommandContext,
  configOption,
  ignoreUnavailableOption,
} from "./context.ts";

/** `svc api`: serves the REST API until SIGINT or SIGTERM. */
export function apiCommand(context: CommandContext): Command {
  return new Command("api")
    .description("start the REST API")
    .addOption(configOption())
    .addOption(ignoreUnavailableOption())
    .addOption(allowInsecureDemoOption())
    .action((options: ApiArgs) => runApi(options, context));
}
