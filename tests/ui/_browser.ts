/**
 * Helpers of the browser tests: Debian's Chromium driven by playwright-core,
 * and a real `svc ui` (with its API) started as a process on free ports. The
 * unit tier leaves the browser tests out (see tests/_tier.ts).
 * @module
 */
import type { Browser, Page } from "npm:playwright-core@1.65.1";
import { hashPassword } from "../../server/auth/password_hash.ts";
import { openDatabase } from "../../server/database/mod.ts";
import { freePort, startProcess } from "../_process.ts";
import { integration, unitTier } from "../_tier.ts";
import { tmpDir } from "../test_utils.ts";

const SLOW_ASSISTANT = new URL("./slow_assistant.ts", import.meta.url).href;
const SLOW_STORAGE = new URL("./slow_storage.ts", import.meta.url).href;

/** Where each step's screenshot goes (git-ignored; CI keeps it as an artifact). */
export const SCREENSHOTS: string = new URL("./screenshots/", import.meta.url).pathname;

/** Chromium's path: env `SVC_CHROMIUM`, else Debian's. */
export function findChromium(): string | undefined {
  const candidates = [
    Deno.env.get("SVC_CHROMIUM"),
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
  ];
  return candidates.find((path) => {
    if (!path) return false;
    try {
      return Deno.statSync(path).isFile;
    } catch {
      return false;
    }
  });
}

/**
 * A test that needs a browser: skipped when there is none, unless env
 * `SVC_REQUIRE_BROWSER=1` (CI) makes that a failure; left out of the unit tier.
 */
export function browserTest(name: string, fn: (browser: Browser) => Promise<void>): void {
  const executablePath = findChromium();
  const required = Deno.env.get("SVC_REQUIRE_BROWSER") === "1";
  if (!executablePath && !required && !unitTier()) {
    console.warn(
      `Skipping "${name}": no Chromium at /usr/bin/chromium (apt-get install chromium, or set ` +
        `SVC_CHROMIUM); set SVC_REQUIRE_BROWSER=1 to make this a failure`,
    );
  }
  integration.test({
    name,
    ignore: !executablePath && !required,
    // playwright-core keeps its connection's timers and streams to itself.
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      if (!executablePath) {
        throw new Error(
          "SVC_REQUIRE_BROWSER=1 but no Chromium was found at /usr/bin/chromium: " +
            "apt-get install -y --no-install-recommends chromium fonts-dejavu-core",
        );
      }
      // Loaded by the first browser test that runs, so that a run without one never loads it.
      const { chromium } = await import("npm:playwright-core@1.65.1");
      const browser = await chromium.launch({
        executablePath,
        headless: true,
        args: [
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
        ],
      });
      try {
        await fn(browser);
      } finally {
        await browser.close();
      }
    },
  });
}

/** A running `svc ui`. */
export interface RunningSvc extends AsyncDisposable {
  /** The UI's address. */
  url: string;
  /** The API's address. */
  apiUrl: string;
  /** Stops it with SIGTERM and returns its exit code and what it wrote to stderr. */
  stop(): Promise<{ code: number; stderr: string }>;
}

/** Options of {@linkcode startSvcUi}. */
export interface StartSvcUiOptions {
  /**
   * Pass `--no-start-api`, so that the UI talks to an API that is not there.
   * @default {false}
   */
  noApi?: boolean;
  /**
   * Sign in with the accounts of `svc user` instead of the demo: each user
   * with its password, stored before svc starts.
   */
  accounts?: Record<string, string>;
  /** The class path of the authentication, instead of the demo's. */
  authentication?: string;
  /** Environment variables of the process (the authentication's settings). */
  env?: Record<string, string>;
  /**
   * The API's port.
   * @default {a free port}
   */
  apiPort?: number;
  /**
   * The lines of the configuration that name the components, instead of the
   * test assistant's and the demo's.
   */
  components?: string[];
}

/**
 * Starts `svc ui --no-open-browser` on free ports, with a temporary local
 * root and a configuration that offers the slow test assistant first, and
 * the slow test source storage after the demo one.
 */
export async function startSvcUi(options: StartSvcUiOptions = {}): Promise<RunningSvc> {
  const dir = await tmpDir();
  const apiPort = options.apiPort ?? freePort();
  const uiPort = freePort();
  const config = `${dir.path}/svc.toml`;
  await Deno.writeTextFile(
    config,
    [
      `local_root = "root"`,
      ...(options.components ?? [
        `source_storages = ["svc.source_storages.SvcDemoSourceStorage", "${SLOW_STORAGE}#SlowStorage"]`,
        `assistants = ["${SLOW_ASSISTANT}#SlowAssistant", "svc.assistants.SvcDemoAssistant"]`,
      ]),
      ...(options.accounts ? [`authentication = "svc.deploy.PasswordAuthentication"`] : []),
      ...(options.authentication ? [`authentication = "${options.authentication}"`] : []),
      `[api]`,
      `port = ${apiPort}`,
      `[ui]`,
      `port = ${uiPort}`,
      "",
    ].join("\n"),
  );
  if (options.accounts) {
    const database = await openDatabase(`sqlite:///${dir.path}/root/svc.db`, {
      localRoot: `${dir.path}/root`,
    });
    for (const [user, password] of Object.entries(options.accounts)) {
      await database.addAccount(user, await hashPassword(password), 0);
    }
    await database.close();
  }
  const url = `http://127.0.0.1:${uiPort}`;
  const args = [
    "ui",
    "--no-open-browser",
    "-c",
    config,
    ...(options.noApi ? ["--no-start-api"] : []),
  ];
  const svc = await startProcess(args, { health: url, env: options.env }).catch(async (error) => {
    await dir[Symbol.asyncDispose]();
    throw error;
  });
  let stopped: Promise<{ code: number; stderr: string }> | undefined;
  const stop = () =>
    stopped ??= (async () => {
      const { code, stderr } = await svc.stop();
      await dir[Symbol.asyncDispose]();
      return { code, stderr };
    })();
  return {
    url,
    apiUrl: `http://127.0.0.1:${apiPort}`,
    stop,
    [Symbol.asyncDispose]: async () => void await stop(),
  };
}

/** Saves a screenshot of the page as `screenshots/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(SCREENSHOTS, { recursive: true });
  // Transitions are finished first, so that a picture never catches a half-moved drawer.
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, animations: "disabled" });
}

/**
 * Waits until the condition holds, polling; fails with the message after the
 * timeout, which only guards against a hang, however busy the machine.
 */
export async function until(
  condition: () => Promise<boolean>,
  message: string,
  timeoutMs = 60_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Timed out: ${message}`);
}

/** Opens the UI at `url` logged in as the API user, with their session in the page's storage. */
export async function openAs(page: Page, url: string, user: ApiUser, name = "ada"): Promise<void> {
  await page.goto(`${new URL(url).origin}/auth/`);
  await page.evaluate(
    `localStorage.setItem("svc.session", ${
      JSON.stringify(JSON.stringify({ user: name, token: user.token }))
    })`,
  );
  await page.goto(url);
}

/** A logged-in user of the API, as a plain HTTP client. */
export interface ApiUser {
  token: string;
  post<T>(path: string, body?: unknown): Promise<T>;
  /** Registers and uploads a text document. */
  upload(name: string, text: string): Promise<{ id: string; name: string }>;
}

/** Logs in to the API of a running svc, with the demo rule (the name is the password). */
export async function apiUser(apiUrl: string, user: string): Promise<ApiUser> {
  const response = await fetch(`${apiUrl}/token`, {
    method: "POST",
    body: new URLSearchParams({ username: user, password: user }),
  });
  const token: string = await response.json();
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  async function post<T>(path: string, body?: unknown): Promise<T> {
    const answer = await fetch(`${apiUrl}${path}`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    });
    if (!answer.ok) throw new Error(`POST ${path}: ${answer.status} ${await answer.text()}`);
    return await answer.json();
  }
  async function upload(name: string, text: string): Promise<{ id: string; name: string }> {
    const { document, parameters } = await post<{
      document: { id: string; name: string };
      parameters: { url: string; method: string; data: Record<string, string> };
    }>("/document", { name });
    const form = new FormData();
    for (const [key, value] of Object.entries(parameters.data)) form.set(key, value);
    form.set("file", new Blob([text]), name);
    const sent = await fetch(parameters.url, { method: parameters.method, body: form });
    if (!sent.ok) throw new Error(`Uploading ${name}: ${sent.status} ${await sent.text()}`);
    await sent.body?.cancel();
    return document;
  }
  return { token, post, upload };
}
