/**
 * The web UI's server: the page (which knows where the API is), the login
 * and logout addresses, and the built assets, embedded in the program.
 * @module
 */
import { Hono } from "hono";
import { SvcError } from "../components/core/errors.ts";
import { type Env, readEnv } from "./settings.ts";
import { VERSION } from "../components/version.ts";
import type { Log } from "./log.ts";
import type { Config } from "./config.ts";
import { UI_ASSETS, UI_ENTRY, type UiAsset } from "./ui_assets.ts";

/** The demo authentication's class path: its login rule is explained on the login page. */
const DEMO_AUTHENTICATION = "svc.deploy.SvcDemoAuthentication";
/** OpenID Connect's class path: the login page is a link to the provider. */
const OIDC_AUTHENTICATION = "svc.deploy.OpenIDConnectAuthentication";
/** The trusted proxy's class path: the login page asks nothing, the proxy has signed in. */
const PROXY_AUTHENTICATION = "svc.deploy.TrustedProxyAuthentication";

/** Where the page's scripts and styles are served from. */
export const ASSETS_PATH = "/assets/";

/** Options of {@linkcode createUiApp}. */
export interface UiAppOptions {
  /** Where the browser reaches the REST API: `api.url`. */
  apiUrl: string;
  /**
   * The configured authentication is the demo one; `sharedPassword` when its
   * password is set by env rather than being each username.
   * @default {null}
   */
  demoAuthentication?: { sharedPassword: boolean } | null;
  /**
   * The configured authentication signs in at an OpenID provider, named on
   * the login page's link ("Sign in with …").
   * @default {null}
   */
  openIdConnect?: { name: string } | null;
  /**
   * The configured authentication is a trusted proxy's.
   * @default {false}
   */
  trustedProxy?: boolean;
  /**
   * The built UI.
   * @default {the embedded build}
   */
  assets?: { entry: { script: string; style: string }; files: readonly UiAsset[] };
}

/** The web UI as a Hono app. */
export function createUiApp(options: UiAppOptions): Hono {
  const assets = options.assets ?? { entry: UI_ENTRY, files: UI_ASSETS };
  const files = new Map(assets.files.map((asset) => [asset.name, asset]));
  const gzipped = new Map<string, Promise<ArrayBuffer>>();
  const shell = page({
    apiUrl: options.apiUrl,
    version: VERSION,
    demoAuthentication: options.demoAuthentication ?? null,
    openIdConnect: options.openIdConnect ?? null,
    trustedProxy: options.trustedProxy ?? false,
  }, assets.entry);

  const app = new Hono();
  app.use(async (c, next) => {
    await next();
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
  });

  // The page is the same for the app, the login and the logout; the script picks what to show.
  const servePage = () =>
    new Response(shell, {
      headers: {
        "Content-Type": "text/html; charset=utf-8",
        "Cache-Control": "no-cache",
        "Content-Security-Policy": contentSecurityPolicy(options.apiUrl),
        "X-Frame-Options": "DENY",
      },
    });
  app.get("/", servePage);
  app.get("/auth/", servePage);
  app.get("/logout/", servePage);
  for (const path of ["/auth", "/logout"]) {
    app.get(path, (c) => {
      const query = new URL(c.req.url).search;
      return c.redirect(`${path}/${query}`, 308);
    });
  }
  app.get("/health", (c) => c.json({ status: "ok" }));

  app.get(`${ASSETS_PATH}:name`, async (c) => {
    const asset = files.get(c.req.param("name"));
    if (!asset) return c.text(`There is no asset ${c.req.param("name")}`, 404);
    // The names change with the content, so a browser may keep each one for good.
    const headers: Record<string, string> = {
      "Content-Type": asset.contentType,
      "Cache-Control": "public, max-age=31536000, immutable",
      Vary: "Accept-Encoding",
    };
    if (!/\bgzip\b/.test(c.req.header("Accept-Encoding") ?? "")) {
      return new Response(asset.body, { headers });
    }
    let body = gzipped.get(asset.name);
    if (!body) {
      body = gzip(asset.body);
      gzipped.set(asset.name, body);
    }
    return new Response(await body, { headers: { ...headers, "Content-Encoding": "gzip" } });
  });

  app.notFound((c) =>
    c.html(
      `<!doctype html><meta charset="utf-8"><title>Not found · svc</title>` +
        `<p>There is no page ${escapeHtml(c.req.path)} here. <a href="/">Go to svc</a></p>`,
      404,
    )
  );
  return app;
}

/** Options of {@linkcode serveUi}. */
export interface ServeUiOptions {
  /** Where log lines go; standard error by default. */
  log?: Log;
  /** Stops the server. */
  signal?: AbortSignal;
  /**
   * The environment svc read at start, for the sign-in's own settings.
   * @default {readEnv()}
   */
  env?: Env;
}

/** A running web UI. */
export interface RunningUi {
  /** Where it listens. */
  url: string;
  /** Settles when the server has stopped. */
  finished: Promise<void>;
}

/**
 * Serves the web UI of a configuration on `[ui]` hostname and port.
 *
 * @throws {SvcError} when the port cannot be bound
 */
export function serveUi(config: Config, options: ServeUiOptions = {}): RunningUi {
  const log = options.log ?? ((line: string) => console.error(line));
  const env = options.env ?? readEnv();
  const demo = config.authentication === DEMO_AUTHENTICATION;
  const app = createUiApp({
    apiUrl: config.api.url,
    demoAuthentication: demo
      ? { sharedPassword: env.SVC_DEMO_AUTHENTICATION_PASSWORD !== undefined }
      : null,
    openIdConnect: config.authentication === OIDC_AUTHENTICATION
      ? { name: providerName(env) }
      : null,
    trustedProxy: config.authentication === PROXY_AUTHENTICATION,
  });
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: config.ui.hostname,
      port: config.ui.port,
      signal: options.signal,
      onListen() {},
    }, app.fetch);
  } catch (error) {
    throw new SvcError(
      `Cannot serve the UI on ${config.ui.hostname}:${config.ui.port}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const url = `http://${hostForUrl(server.addr.hostname)}:${server.addr.port}`;
  log(`svc UI at ${url}, using the API at ${config.api.url}`);
  return { url, finished: server.finished };
}

/**
 * The OpenID provider as the login page names it: `SVC_OIDC_NAME`, else
 * the issuer's host, as the API's sign-in names it.
 */
function providerName(env: Env): string {
  const issuer = env.SVC_OIDC_ISSUER ?? "";
  return env.SVC_OIDC_NAME ||
    (URL.canParse(issuer) ? new URL(issuer).host : "your organisation");
}

/**
 * A host as a browser on this machine can use it: an address that binds
 * every interface becomes the loopback one.
 */
function hostForUrl(hostname: string): string {
  if (hostname === "0.0.0.0") return "127.0.0.1";
  if (hostname === "::") return "[::1]";
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}

/** The page: the settings for the script as JSON, and a text until the script runs. */
function page(settings: Record<string, unknown>, entry: { script: string; style: string }): string {
  // "<" escaped so that no value can close the script element.
  const json = JSON.stringify(settings).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>svc</title>
<link rel="icon" href="data:image/svg+xml,${encodeURIComponent(FAVICON)}">
<link rel="stylesheet" href="${ASSETS_PATH}${entry.style}">
<script type="module" src="${ASSETS_PATH}${entry.script}"></script>
</head>
<body>
<script id="svc-settings" type="application/json">${json}</script>
<div id="app"><p class="boot">Loading svc…</p><noscript><p>svc's web UI needs JavaScript. The REST API works without it.</p></noscript></div>
</body>
</html>
`;
}

const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="3" y="3" width="26" ' +
  'height="26" rx="8" fill="#c2410c"/><path d="M10 11h12M10 16h8M10 21l3-2h9" fill="none" ' +
  'stroke="#fff" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/></svg>';

/**
 * Only the page's own files run; it talks to itself and the API. An API on
 * every interface is reached on the page's host, which the policy cannot
 * name in advance, so then any host is allowed to be talked to.
 */
function contentSecurityPolicy(apiUrl: string): string {
  let api = "*";
  try {
    const url = new URL(apiUrl);
    if (url.hostname !== "0.0.0.0" && url.hostname !== "[::]") api = url.origin;
  } catch {
    // An unusable api.url fails in the page, with the address in the message.
  }
  return [
    "default-src 'self'",
    `connect-src 'self' ${api}`,
    "img-src 'self' data:",
    "style-src 'self'",
    "script-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

async function gzip(text: string): Promise<ArrayBuffer> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return await new Response(stream).arrayBuffer();
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
