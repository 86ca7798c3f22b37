/**
 * What every command of `svc` shares: where it writes, how it sets the exit
 * code, and the options several commands take (`--config`,
 * `--ignore-unavailable-components`).
 * @module
 */
import { Option } from "commander";

/** Where a command writes. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

/** What every command gets: where to write, and how to set the exit code. */
export interface CommandContext {
  io: Io;
  /** Sets the exit code of the run; the last call wins. */
  exit(code: number): void;
  /** The environment, read once by `run()` (a test's own in tests): every setting comes from it. */
  env?: Record<string, string | undefined>;
  /** Ends long-running commands (`svc api`, `svc ui`); SIGINT and SIGTERM abort it. */
  signal?: AbortSignal;
}

/** The `-c/--config` option every subcommand takes. */
export function configOption(): Option {
  return new Option(
    "-c, --config <path>",
    "configuration file (default: env SVC_CONFIG, else ./svc.toml)",
  );
}

/**
 * The `--allow-insecure-demo-sign-in` option: serve the demo sign-in on an
 * address other than loopback, as `allow_insecure_demo_sign_in` in `[api]` does.
 */
export function allowInsecureDemoOption(): Option {
  return new Option(
    "--allow-insecure-demo-sign-in",
    "serve the demo sign-in on an address other than loopback, where anyone who reaches it " +
      "logs in as any user",
  );
}

/** The `--ignore-unavailable-components` option. */
export function ignoreUnavailableOption(): Option {
  return new Option(
    "--ignore-unavailable-components",
    "skip components whose requirements are not met, with a warning",
  );
}
