/**
 * Helpers of the hostile request tests: error assertions, a chat to attack, and an assistant with
 * a string parameter that echoes what it was given.
 * @module
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { Assistant } from "../../components/core/component.ts";
import type { ChatParams } from "../../components/core/params.ts";
import type { TestApi } from "../server/api/_api.ts";

/**
 * Asserts the one error shape, its status and its message (exact when a string). The
 * OpenAI-compatible routes (`path` under `/v1/`) answer in OpenAI's shape, whose `error` has
 * `type`, `param` and `code` besides its message.
 */
export async function expectError(
  response: Response,
  status: number,
  message: string | RegExp,
  path = "",
): Promise<string> {
  const body = await response.json();
  assert.equal(response.status, status, JSON.stringify(body));
  assert.deepEqual(Object.keys(body), ["error"]);
  assert.deepEqual(
    Object.keys(body.error),
    path.startsWith("/v1/") ? ["message", "type", "param", "code"] : ["message"],
  );
  if (typeof message === "string") assert.equal(body.error.message, message);
  else assert.match(body.error.message, message);
  return body.error.message;
}

/** Answers with its `style` parameter and the prompt, as they came: `style|prompt`. */
export class Echo extends Assistant {
  static override params = { style: z.string().default("plain") };

  override *answer(prompt: string, _sources: unknown, params: ChatParams): Generator<string> {
    yield `${params.style}|${prompt}`;
  }
}

/** The body of `POST /chats` for one uploaded document, with the demo storage. */
export function chatBody(
  document: { id: string; name: string },
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name: "c",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Svc/DemoAssistant",
    params: {},
    documents: [document],
    ...overrides,
  };
}

/** A prepared chat of the logged-in user over one uploaded Markdown document. */
export async function preparedChat(
  api: TestApi,
  overrides: Record<string, unknown> = {},
  // deno-lint-ignore no-explicit-any
): Promise<{ chat: any; document: { id: string; name: string } }> {
  const { document } = await api.upload("notes.md", "# Notes\n\nThe oven is wood-fired.\n");
  const response = await api.call("POST", "/chats", chatBody(document, overrides));
  assert.equal(response.status, 200);
  const chat = await response.json();
  assert.equal((await api.call("POST", `/chats/${chat.id}/prepare`)).status, 200);
  return { chat, document };
}

/** Every file under `folder`, relative to it, sorted. */
export async function filesUnder(folder: string, prefix = ""): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(`${folder}/${prefix}`)) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory) files.push(...await filesUnder(folder, path));
    else files.push(path);
  }
  return files.sort();
}

/** A bearer token's header for `user` (the demo authentication: the password is the name). */
export async function bearer(api: TestApi, user = "ada"): Promise<Record<string, string>> {
  const response = await api.app.request("http://svc.test/token", {
    method: "POST",
    body: new URLSearchParams({ username: user, password: user }),
  });
  return { authorization: `Bearer ${await response.json()}` };
}

/** Calls the API as `ada` with a body sent as it is, whatever its type. */
export async function rawCall(
  api: TestApi,
  method: string,
  path: string,
  body: BodyInit,
  headers: Record<string, string> = {},
): Promise<Response> {
  return await api.app.request(`http://svc.test${path}`, {
    method,
    body,
    headers: { ...await bearer(api), ...headers },
  });
}
