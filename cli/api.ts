/**
 * `svc api`: loads the configuration, warns of unknown `SVC_` variables and serves
 * the REST API until SIGINT or SIGTERM.
 * @module
 */
import { Command } from "commander";
import { logLine } from "../server/log.ts";
import { Config, findConfigPath } from "../server/config.ts";
import { unknownEnvWarnings } from "../server/config_env.ts";
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
    .action(async (options: {
      config?: string;
      ignoreUnavailableComponents?: boolean;
      allowInsecureDemoSignIn?: boolean;
    }) => {
      const log = (line: string) => context.io.err(`${line}\n`);
      for (const warning of unknownEnvWarnings(context.env)) log(logLine("warn", warning));
      // Loaded here, so that the other commands never load the server's native database client.
      const { serveApi } = await import("../server/serve.ts");
      const config = await Config.fromFile(
        findConfigPath({ config: options.config, env: context.env }),
        { env: context.env },
      );
      if (options.allowInsecureDemoSignIn) config.api.allowInsecureDemoSignIn = true;
      const api = await serveApi(config, {
        ignoreUnavailableComponents: options.ignoreUnavailableComponents,
        log,
        signal: context.signal,
      });
      await api.finished;
    });
}
