/**
 * `svc ui`: serves the web UI, starts the REST API in the same process when
 * `api.url` does not answer (unless told not to), and opens a browser.
 * @module
 */
import { Command, Option } from "commander";
import { quote, SvcError } from "../components/core/errors.ts";
import { jsonLog, logLine } from "../server/log.ts";
import { Config, CONFIGURATION_HEADER, findConfigPath } from "../server/config.ts";
import { unknownEnvWarnings } from "../server/config_env.ts";
import {
  allowInsecureDemoOption,
  type CommandContext,
  configOption,
  ignoreUnavailableOption,
} from "./context.ts";

/** The flags; `undefined` is the default of each pair, which is on. */
interface UiOptions {
  config?: string;
  openBrowser?: boolean;
  browser?: boolean;
  startApi?: boolean;
  ignoreUnavailableComponents?: boolean;
  allowInsecureDemoSignIn?: boolean;
}

/**
 * `svc ui`: serves the web UI until SIGINT or SIGTERM, with the API in the
 * same process when `api.url` does not answer.
 */
export function uiCommand(context: CommandContext): Command {
  return new Command("ui")
    .description("start the web UI (and the REST API, when it is not running)")
    .addOption(configOption())
    .option("--open-browser", "open the UI in a browser (default)")
    .option("--no-open-browser", "do not open a browser")
    .addOption(new Option("--no-browser", "same as --no-open-browser"))
    .option("--start-api", "start the REST API when api.url does not answer (default)")
    .option("--no-start-api", "never start the REST API; use the one at api.url")
    .addOption(ignoreUnavailableOption())
    .addOption(allowInsecureDemoOption())
    .action(async (options: UiOptions) => {
      // Loaded here, so that the other commands never load the server's native database client.
      const { serveApi } = await import("../server/serve.ts");
      const { serveUi } = await import("../server/ui_server.ts");
      const log = jsonLog((line: string) => context.io.err(`${line}\n`));
      for (const warning of unknownEnvWarnings(context.env)) log(logLine("warn", warning));
      const path = findConfigPath({ config: options.config, env: context.env });
      const config = await Config.fromFile(path, { env: context.env });
      if (options.allowInsecureDemoSignIn) config.api.allowInsecureDemoSignIn = true;
      // Both servers stop together: on SIGINT/SIGTERM, or when one of them fails to start.
      const stop = new AbortController();
      const onAbort = () => stop.abort();
      if (context.signal?.aborted) stop.abort();
      context.signal?.addEventListener("abort", onAbort, { once: true });
      const running: Promise<void>[] = [];
      try {
        const found = await findApi(config.api.url, await config.fingerprint());
        if (found === "svc" || (found && options.startApi === false)) {
          log(`Using the API that answers at ${config.api.url}`);
        } else if (found) {
          throw new SvcError(
            found === "another svc"
              ? `An svc API at ${config.api.url} serves another configuration than ` +
                `${quote(path)}: stop it, or give this configuration ` +
                `another api.port ("svc ui --no-start-api" uses the running one as it is)`
              : `Something that is not svc answers at ${config.api.url}: stop it, or give svc ` +
                `another api.port`,
          );
        } else if (options.startApi !== false) {
          const api = await serveApi(config, {
            ignoreUnavailableComponents: options.ignoreUnavailableComponents,
            log,
            signal: stop.signal,
            env: context.env,
          });
          running.push(api.finished);
        } else {
          log(
            `The API at ${config.api.url} does not answer; the UI will say so until it does ` +
              `(start it with "svc api", or run "svc ui" without --no-start-api)`,
          );
        }
        const ui = serveUi(config, { log, signal: stop.signal, env: context.env });
        running.push(ui.finished);
        context.io.out(`svc UI: ${ui.url}\n`);
        if (options.openBrowser !== false && options.browser !== false) openBrowser(ui.url, log);
        await Promise.all(running);
      } catch (error) {
        stop.abort();
        await Promise.allSettled(running);
        throw error;
      } finally {
        context.signal?.removeEventListener("abort", onAbort);
      }
    });
}

/**
 * What answers the health check at the URL within a second: svc serving this configuration, svc
 * serving another (its fingerprint differs), something else, or nothing.
 */
async function findApi(
  apiUrl: string,
  fingerprint: string,
): Promise<"svc" | "another svc" | "not svc" | undefined> {
  let response: Response;
  try {
    response = await fetch(`${apiUrl}/health`, { signal: AbortSignal.timeout(1000) });
  } catch {
    return undefined;
  }
  await response.body?.cancel();
  const served = response.headers.get(CONFIGURATION_HEADER);
  // A proxy in front of an API that is not running yet answers with an error of its own.
  if (served === null) return response.ok ? "not svc" : undefined;
  return served === fingerprint ? "svc" : "another svc";
}

/**
 * Opens the URL in the default browser without waiting for it; when that
 * fails, says so, and the UI goes on.
 */
function openBrowser(url: string, log: (line: string) => void): void {
  const [command, ...args] = Deno.build.os === "windows"
    ? ["cmd", "/c", "start", '""', url]
    : Deno.build.os === "darwin"
    ? ["open", url]
    : ["xdg-open", url];
  const failed = () => log(`Cannot open a browser here: open ${url} yourself`);
  try {
    const child = new Deno.Command(command!, {
      args,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    child.unref();
    child.status.then((status) => status.success || failed(), failed);
  } catch {
    failed();
  }
}
