/**
 * `svc api`: loads the configuration, warns of unknown `SVC_` variables and serves
 * the REST API until SIGINT or SIGTERM.
 * @module
 */
import { Command } from "commander";
import { logLine } from "../server/log.ts";
import { Config, findConfigPath } from "../server/config.ts";
import { unknownEnvWarnings } from "../server/config_env.ts";
import { endSpareThread, startSpareThread } from "../server/database/thread.ts";
import { parseDatabaseUrl } from "../server/database/url.ts";
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
      const config = await Config.fromFile(
        findConfigPath({ config: options.config, env: context.env }),
        { env: context.env },
      );
      if (options.allowInsecureDemoSignIn) config.api.allowInsecureDemoSignIn = true;
      // A database file's thread starts first, so that it loads its modules while the server's
      // load here: on two cores that is most of the thread's start-up off the wait for /health.
      const database = { localRoot: config.localRoot, base: config.base };
      if (parseDatabaseUrl(config.api.databaseUrl, database).kind === "file") startSpareThread();
      let api;
      try {
        // Loaded here, so that the other commands never load the server.
        const { serveApi } = await import("../server/serve.ts");
        api = await serveApi(config, {
          ignoreUnavailableComponents: options.ignoreUnavailableComponents,
          log,
          signal: context.signal,
        });
      } finally {
        endSpareThread();
      }
      await api.finished;
    });
}
