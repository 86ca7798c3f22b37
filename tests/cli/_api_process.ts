/** `svc api` as a separate process, for tests that need a real one. */

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** A port nothing listens on right now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

/** A running `svc api`. */
export interface ApiProcess {
  child: Deno.ChildProcess;
  base: string;
}

/** Starts `svc api -c config` and waits until it answers on `port`. */
export async function startApi(
  config: string,
  port: number,
  env: Record<string, string> = {},
): Promise<ApiProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "api", "-c", config],
    env: {
      SVC_API_DOCUMENT_UPLOAD_SECRET: "s".repeat(32),
      SVC_DEMO_AUTHENTICATION_SECRET: "d".repeat(32),
      ...env,
    },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 150; i++) {
    try {
      const response = await fetch(`${base}/health`);
      await response.body?.cancel();
      if (response.ok) return { child, base };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  child.kill();
  const { stderr } = await child.output();
  throw new Error(`svc api did not answer: ${new TextDecoder().decode(stderr)}`);
}

/** Stops it with SIGTERM; its exit code and what it logged. */
export async function stopApi(child: Deno.ChildProcess): Promise<{ code: number; stderr: string }> {
  child.kill("SIGTERM");
  const { code, stderr } = await child.output();
  return { code, stderr: new TextDecoder().decode(stderr) };
}

/** Logs in as `user` and returns the headers of its JSON requests. */
export async function loginHeaders(base: string, user = "ada"): Promise<Record<string, string>> {
  const token = await (await fetch(`${base}/token`, {
    method: "POST",
    body: new URLSearchParams({ username: user, password: user }),
  })).json();
  return { authorization: `Bearer ${token}`, "content-type": "application/json" };
}

/** Registers and uploads a document through the returned parameters. */
export async function uploadDocument(
  base: string,
  headers: Record<string, string>,
  name: string,
  bytes: Uint8Array<ArrayBuffer>,
): Promise<{ id: string; name: string }> {
  const registered = await (await fetch(`${base}/document`, {
    method: "POST",
    headers,
    body: JSON.stringify({ name }),
  })).json();
  const form = new FormData();
  for (const [key, value] of Object.entries(registered.parameters.data)) {
    form.set(key, value as string);
  }
  form.set("file", new Blob([bytes]), name);
  const response = await fetch(registered.parameters.url, {
    method: registered.parameters.method,
    body: form,
  });
  return await response.json();
}
