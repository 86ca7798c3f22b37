import config from "../deno.json" with { type: "json" };

/** The version of svc. */
export const VERSION: string = config.version;
