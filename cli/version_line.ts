/**
 * What `svc --version` prints, apart from the commands: `main.ts` answers
 * `svc --version` with it before it loads them, `cli/mod.ts` in every other
 * case.
 * @module
 */
import { VERSION } from "../components/version.ts";

/** The line `svc --version` prints. */
export const VERSION_LINE = `svc ${VERSION}`;

/**
 * The version line when the arguments ask for the version alone
 * (`--version` or `-V`), else `undefined`.
 *
 * @example
 * ```ts
 * import { versionAsked, VERSION_LINE } from "./version_line.ts";
 * console.assert(versionAsked(["-V"]) === VERSION_LINE);
 * console.assert(versionAsked(["api", "--version"]) === undefined);
 * ```
 */
export function versionAsked(args: readonly string[]): string | undefined {
  return args.length === 1 && (args[0] === "--version" || args[0] === "-V")
    ? VERSION_LINE
    : undefined;
}
