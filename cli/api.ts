import { Command } from "commander";
import { Config, findConfigPath } from "../server/config.ts";
import { type CommandContext, configOption, ignoreUnavailableOption } from "./context.ts";

/** `svc api`: serves the REST API until SIGINT or SIGTERM. */
export function apiCommand(context: CommandContext): Command {
  return new Command("api")
    .description("start the REST API")
    .addOption(configOption())
    .addOption(ignoreUnavailableOption())
    .action(async (options: { config?: string; ignoreUnavailableComponents?: boolean }) => {
      // Loaded here, so that the other commands never load the server's native database client.
      const { serveApi } = await import("../server/serve.ts");
      const config = await Config.fromFile(
        findConfigPath({ config: options.config, env: context.env }),
        { env: context.env },
      );
      const api = await serveApi(config, {
        ignoreUnavailableComponents: options.ignoreUnavailableComponents,
        log: (line) => context.io.err(`${line}\n`),
        signal: context.signal,
      });
      await api.finished;
    });
}
