/**
 * `svc mcp`: svc as an MCP server over standard input and output, for a
 * desktop client that starts it. It serves the user whose API key is in
 * `SVC_API_KEY`, checked against the database as the REST API checks a
 * bearer key; standard output carries only MCP messages, so notices go to
 * standard error.
 * @module
 */
import { Command } from "commander";
import process from "node:process";
import type * as Stdio from "npm:@modelcontextprotocol/sdk@1.32.2/server/stdio.js";
import { SvcError } from "../components/core/errors.ts";
import { importPackage } from "../components/packages.ts";
import { Config, findConfigPath } from "../server/config.ts";
import { unknownEnvWarnings } from "../server/config_env.ts";
import { readEnv } from "../server/settings.ts";
import { logLine } from "../server/log.ts";
import { type CommandContext, configOption, ignoreUnavailableOption } from "./context.ts";

/** `svc mcp`: serves MCP over standard input and output until the client closes it. */
export function mcpCommand(context: CommandContext): Command {
  return new Command("mcp")
    .description("serve MCP over standard input and output as the user of SVC_API_KEY")
    .addOption(configOption())
    .addOption(ignoreUnavailableOption())
    .action(async (options: { config?: string; ignoreUnavailableComponents?: boolean }) => {
      const log = (line: string) => context.io.err(`${line}\n`);
      const env = context.env ?? readEnv();
      for (const warning of unknownEnvWarnings(context.env)) log(logLine("warn", warning));
      const key = env.SVC_API_KEY;
      if (!key) {
        throw new SvcError(
          "svc mcp serves the user of an API key, and SVC_API_KEY is not set: create a key in " +
            "the web UI or at POST /api-keys and set SVC_API_KEY to it",
        );
      }
      const config = await Config.fromFile(
        findConfigPath({ config: options.config, env: context.env }),
        { env: context.env },
      );
      // Loaded here, so that the other commands never load the server's native database client.
      const { loadComponents } = await import("../server/components.ts");
      const { openDatabase } = await import("../server/database/mod.ts");
      const { ApiKeys } = await import("../server/auth/api_keys.ts");
      const { createMcpServer } = await import("../server/mcp.ts");
      const components = await loadComponents(config, {
        ignoreUnavailable: options.ignoreUnavailableComponents,
        warn: (message) => log(logLine("warn", message)),
        env,
      });
      const database = await openDatabase(config.api.databaseUrl, {
        localRoot: config.localRoot,
        base: config.base,
        authToken: env.SVC_API_DATABASE_AUTH_TOKEN,
      });
      try {
        const user = await new ApiKeys({ database }).verify(key);
        const server = await createMcpServer({ ...components, database, log }, user);
        const { StdioServerTransport } = await importPackage<typeof Stdio>(
          "@modelcontextprotocol/sdk",
          "server/stdio.js",
        );
        const ended = new Promise<void>((resolve) => {
          process.stdin.once("end", () => resolve());
          context.signal?.addEventListener("abort", () => resolve(), { once: true });
        });
        await server.connect(new StdioServerTransport());
        log(logLine("info", "svc MCP server ready on standard input and output"));
        await ended;
        await server.close();
      } finally {
        await database.close();
      }
    });
}
