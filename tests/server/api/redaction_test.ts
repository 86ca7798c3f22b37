/**
 * No configured secret reaches a user or the log: every URL svc can be
 * configured with gets a user name, a password and a key in its query and
 * fragment, points at a port nobody listens on, and the API's answers (whole
 * and streamed) and log lines are searched for them.
 * @module
 */
import assert from "node:assert/strict";
import * as assistants from "../../../components/assistants/mod.ts";
import { Assistant } from "../../../components/core/component.ts";
import { SvcError } from "../../../components/core/errors.ts";
import type { Requirement } from "../../../components/core/requirements.ts";
import { OpenAIEmbedder } from "../../../components/embeddings/openai.ts";
import { Chroma } from "../../../components/source_storages/chroma.ts";
import { LibSQL } from "../../../components/source_storages/libsql.ts";
import { Postgres } from "../../../components/source_storages/postgres.ts";
import { closedUrl } from "../../assistants/_fake_server.ts";
import {
  configured,
  FAKES,
  type ModelAssistantClass,
  SECRETS,
  withSecrets,
} from "../../assistants/_providers.ts";
import { tmpDir } from "../../test_utils.ts";
import { type TestApi, testApi } from "./_api.ts";

/** What a user and the log saw of one chat: each response's body, and the log. */
interface Seen {
  statuses: number[];
  bodies: string[];
  logs: string[];
}

/** Creates a chat over one document, prepares it and asks twice: whole and streamed. */
async function askThrough(
  api: TestApi,
  components: { sourceStorage?: string; assistant?: string },
): Promise<Seen> {
  const statuses: number[] = [];
  const bodies: string[] = [];
  const record = async (response: Response) => {
    statuses.push(response.status);
    const body = await response.text();
    bodies.push(body);
    return body;
  };
  const { document } = await api.upload("a.md", "# Ada\n\nThe analytical engine weaves.\n");
  const chat = JSON.parse(
    await record(
      await api.call("POST", "/chats", {
        name: "c",
        source_storage: components.sourceStorage ?? "Svc/DemoSourceStorage",
        assistant: components.assistant ?? "Svc/DemoAssistant",
        params: {},
        documents: [document],
      }),
    ),
  );
  await record(await api.call("POST", `/chats/${chat.id}/prepare`));
  await record(await api.call("POST", `/chats/${chat.id}/answer`, { prompt: "What weaves?" }));
  await record(
    await api.call("POST", `/chats/${chat.id}/answer`, { prompt: "What weaves?", stream: true }),
  );
  return { statuses, bodies, logs: [...api.logs] };
}

/** Asserts that nothing seen holds a secret of {@linkcode withSecrets}, and that the host shows. */
function assertNoSecrets(seen: Seen, host: string): void {
  const everything = [...seen.bodies, ...seen.logs].join("\n");
  for (const secret of [SECRETS.password, SECRETS.key, "ada:"]) {
    assert.ok(!everything.includes(secret), `"${secret}" shows in:\n${everything}`);
  }
  assert.ok(everything.includes(host), `the host ${host} is named in:\n${everything}`);
}

for (const [name, fake] of Object.entries(FAKES)) {
  Deno.test(`the REST API names an unreachable ${name} without the password and key of its URL`, async () => {
    const url = await closedUrl();
    const Configured = configured(
      (assistants as unknown as Record<string, ModelAssistantClass>)[name]!,
      { ...withSecrets(fake.env(url), url), SVC_ASSISTANT_TIMEOUT: "2" },
    );
    const assistant = new Configured() as unknown as Assistant;
    await using api = await testApi({ assistants: [assistant] });
    const seen = await askThrough(api, { assistant: assistant.displayName });
    // A server the assistant needs is checked first (503: it does not answer); else the answer
    // fails (502).
    assert.ok(
      seen.statuses.includes(503) || seen.statuses.includes(502),
      `a failure: ${seen.statuses}`,
    );
    assert.ok(seen.logs.length > 0, "the failure is logged");
    assertNoSecrets(seen, new URL(url).host);
  });
}

Deno.test("the REST API names an unreachable LibSQL server without its password and key", async () => {
  const url = await closedUrl();
  const storage = new LibSQL({ url: withSecrets({ url }, url).url!, authToken: "token" });
  await using api = await testApi({ sourceStorages: [storage] });
  const seen = await askThrough(api, { sourceStorage: "LibSQL" });
  assert.ok(seen.statuses.includes(503), `a 503: ${seen.statuses}`);
  assertNoSecrets(seen, new URL(url).host);
});

Deno.test("the REST API names an unreachable Chroma server without its password and key", async () => {
  const url = await closedUrl();
  // Its requirement checks the server of SVC_CHROMA_URL, which this test leaves alone.
  class AnyChroma extends Chroma {
    static override get requirements(): readonly Requirement[] {
      return [];
    }
  }
  const storage = new AnyChroma({ url: withSecrets({ url }, url).url! });
  await using api = await testApi({ sourceStorages: [storage] });
  const seen = await askThrough(api, { sourceStorage: "Chroma" });
  assert.ok(seen.statuses.includes(503), `a 503: ${seen.statuses}`);
  assertNoSecrets(seen, new URL(url).host);
});

Deno.test("the REST API names an unreachable PostgreSQL database without its password and key", async () => {
  const url = (await closedUrl()).replace(/^http:/, "postgresql:") + "/svc";
  // Its requirement checks the database of SVC_POSTGRES_URL, which this test leaves alone.
  class AnyPostgres extends Postgres {
    static override get requirements(): readonly Requirement[] {
      return [];
    }
  }
  const storage = new AnyPostgres({ url: withSecrets({ url }, url).url! });
  await using api = await testApi({ sourceStorages: [storage] });
  const seen = await askThrough(api, { sourceStorage: "Postgres" });
  assert.ok(seen.statuses.includes(503), `a 503: ${seen.statuses}`);
  assertNoSecrets(seen, new URL(url).host);
});

Deno.test("the REST API names an unreachable embedding endpoint without its password and key", async () => {
  const url = await closedUrl();
  await using folder = await tmpDir();
  const storage = new LibSQL({
    url: `file:${folder.path}/sources.db`,
    embedder: new OpenAIEmbedder({
      model: "text-embedding-3-small",
      apiKey: "sk-test",
      baseURL: withSecrets({ url: `${url}/v1` }, url).url!,
      retries: 0,
    }),
  });
  await using api = await testApi({ sourceStorages: [storage] });
  const seen = await askThrough(api, { sourceStorage: "LibSQL" });
  assert.ok(seen.statuses.includes(502), `a 502: ${seen.statuses}`);
  assertNoSecrets(seen, new URL(url).host);
});

Deno.test("the REST API takes secrets out of URLs in any component's errors, and in its log", async () => {
  const leaky = `http://ada:${SECRETS.password}@models.internal/v1?key=${SECRETS.key}`;
  class Leaking extends Assistant {
    // deno-lint-ignore require-yield
    override async *answer(): AsyncGenerator<string> {
      throw new SvcError(`Cannot reach ${leaky}`, { status: 502 });
    }
  }
  class Buggy extends Assistant {
    override answer(): never {
      throw new TypeError(`Invalid URL: '${leaky}'`);
    }
  }
  for (const assistant of [new Leaking(), new Buggy()]) {
    await using api = await testApi({ assistants: [assistant] });
    const seen = await askThrough(api, { assistant: assistant.displayName });
    assert.ok(seen.statuses.includes(502) || seen.statuses.includes(500), `${seen.statuses}`);
    assert.ok(seen.logs.length > 0, "the failure is logged");
    assertNoSecrets(seen, "models.internal/v1");
  }
});

/** The key each provider is configured with in the echo tests. */
const ECHOED_KEY = "sk-echoed-key-4242";

/** What an echo server sends back of a request: its method, URL, headers and body. */
type Echo = (request: { method: string; url: string; headers: string; body: string }) => Response;

const ECHOES: Record<string, Echo> = {
  "a JSON echo": (request) => Response.json({ echo: request }, { status: 400 }),
  "an echo as text": (request) =>
    new Response(
      `${request.method} ${request.url}\r\n${request.headers}\r\n\r\n${request.body}`,
      { status: 400 },
    ),
  "an echo in its error message": (request) =>
    Response.json({ error: { message: `Bad request: ${JSON.stringify(request)}` } }, {
      status: 400,
    }),
};

/** A server that answers every request with `echo` of it. */
function echoServer(echo: Echo): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    if (request.method === "GET") return new Response("ok");
    const headers = [...request.headers].map(([name, value]) => `${name}: ${value}`).join("\r\n");
    return echo({ method: request.method, url: request.url, headers, body: await request.text() });
  });
}

for (const [name, fake] of Object.entries(FAKES)) {
  for (const [kind, echo] of Object.entries(ECHOES)) {
    Deno.test(`the REST API shows neither the key nor the request of a ${name} that sends ${kind}`, async () => {
      await using server = echoServer(echo);
      const url = `http://127.0.0.1:${server.addr.port}`;
      const vars = withSecrets(fake.env(url), url);
      for (const key of Object.keys(vars)) if (key.endsWith("_API_KEY")) vars[key] = ECHOED_KEY;
      if (name === "OpenAICompatible") vars.SVC_OPENAI_COMPATIBLE_API_KEY = ECHOED_KEY;
      const Configured = configured(
        (assistants as unknown as Record<string, ModelAssistantClass>)[name]!,
        { ...vars, SVC_ASSISTANT_TIMEOUT: "5" },
      );
      const assistant = new Configured() as unknown as Assistant;
      await using api = await testApi({ assistants: [assistant] });
      const seen = await askThrough(api, { assistant: assistant.displayName });
      assert.ok(seen.statuses.includes(502), `a 502: ${seen.statuses}`);
      assert.ok(seen.logs.some((line) => line.includes("answered 400")), seen.logs.join("\n"));
      const everything = [...seen.bodies, ...seen.logs].join("\n");
      // The user information as fetch sends it: `Authorization: Basic base64(user:password)`.
      const basic = btoa(`ada:${SECRETS.password}`);
      for (const secret of [ECHOED_KEY, SECRETS.password, SECRETS.key, basic, "Bearer sk-"]) {
        assert.ok(!everything.includes(secret), `"${secret}" shows in:\n${everything}`);
      }
      // The request's body is never shown raw: the sources it sent are not in any answer.
      if (kind !== "an echo in its error message") {
        assert.ok(!everything.includes("analytical engine"), everything);
      }
      for (const body of seen.bodies) assert.ok(body.length < 2000, body);
    });
  }
}

Deno.test("the REST API shows neither the key nor the request of an embedding endpoint that echoes it", async () => {
  for (const echo of Object.values(ECHOES)) {
    await using server = echoServer(echo);
    const url = `http://127.0.0.1:${server.addr.port}`;
    await using folder = await tmpDir();
    const storage = new LibSQL({
      url: `file:${folder.path}/sources.db`,
      embedder: new OpenAIEmbedder({
        model: "text-embedding-3-small",
        apiKey: ECHOED_KEY,
        baseURL: withSecrets({ url: `${url}/v1` }, url).url!,
        retries: 0,
      }),
    });
    await using api = await testApi({ sourceStorages: [storage] });
    const seen = await askThrough(api, { sourceStorage: "LibSQL" });
    assert.ok(seen.statuses.includes(502), `a 502: ${seen.statuses}`);
    const everything = [...seen.bodies, ...seen.logs].join("\n");
    for (
      const secret of [ECHOED_KEY, SECRETS.password, SECRETS.key, btoa(`ada:${SECRETS.password}`)]
    ) {
      assert.ok(!everything.includes(secret), `"${secret}" shows in:\n${everything}`);
    }
    assert.ok(!everything.includes("analytical engine"), everything);
  }
});
