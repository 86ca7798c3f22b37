/**
 * svc's version, read from `deno.json`.
 * @module
 */
import config from "../deno.json" with { type: "json" };

/** The version of svc. */
export const VERSION: string = config.version;
