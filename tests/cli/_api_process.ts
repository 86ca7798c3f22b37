/** `svc api` as a separate process, for tests that need a real one, and a few requests to it. */
import { startProcess, type SvcProcess } from "../_process.ts";

/** A running `svc api`. */
export interface ApiProcess extends SvcProcess {
  /** The API's URL. */
  base: string;
}

/** Starts `svc api -c config` and waits until it answers on `port`. */
export async function startApi(
  config: string,
  port: number,
  env: Record<string, string> = {},
): Promise<ApiProcess> {
  const base = `http://127.0.0.1:${port}`;
  return Object.assign(await startProcess(["api", "-c", config], { health: base, env }), { base });
}

/** Logs in as `user` and returns the headers of its JSON requests. */
export async function loginHeaders(base: string, user = "ada"): Promise<Record<string, string>> {
  const token = await (await fetch(`${base}/token`, {
    method: "POST",
    body: new URLSearchParams({ username: user, password: user }),
  })).json();
  return { authorization: `Bearer ${token}`, "content-type": "application/json" };
}

/** A POST of `body` as JSON to `base` with `headers`, answering the response's JSON. */
export function poster(
  base: string,
  headers: Record<string, string>,
): (path: string, body?: unknown) => Promise<Record<string, string>> {
  return async (path, body) =>
    await (await fetch(`${base}${path}`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    })).json();
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
