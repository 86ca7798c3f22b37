import assert from "node:assert/strict";
import { redact, Secrets, secrets } from "../../components/core/secrets.ts";

Deno.test("Secrets.hide() hides a key in each form it travels in, the longest first", () => {
  const known = new Secrets();
  known.add("sk-abc/+=é");
  known.add("sk-abc/+=é-longer");
  const forms = [
    "sk-abc/+=é-longer",
    "sk-abc/+=é",
    encodeURIComponent("sk-abc/+=é"),
    JSON.stringify("sk-abc/+=é").slice(1, -1),
    btoa(String.fromCharCode(...new TextEncoder().encode("sk-abc/+=é"))),
  ];
  assert.equal(known.hide(forms.join(" | ")), "*** | *** | *** | *** | ***");
  // Its URL-encoded form, the longest form of the longest secret.
  assert.equal(known.longest, encodeURIComponent("sk-abc/+=é-longer").length);
});

Deno.test("Secrets.addUrl() hides a URL's password, its tokens and Basic credentials", () => {
  const known = new Secrets();
  known.addUrl("http://ada%40x:hunter2%21@db.internal:8080/v1?authToken=tok-secret&mode=plain");
  const basic = btoa("ada@x:hunter2!");
  assert.equal(
    known.hide(`Basic ${basic}; hunter2! ada@x:hunter2! tok-secret db.internal:8080/v1`),
    "Basic ***; *** *** *** db.internal:8080/v1",
  );
});

Deno.test("Secrets.addUrl() leaves a URL's user name and other parameters in every message", () => {
  const known = new Secrets();
  known.addUrl("postgresql://postgres:pg-pass@127.0.0.1:5432/svc?sslmode=require");
  assert.equal(
    known.hide('Cannot read "postgresql://127.0.0.1:5432/svc": postgres requires pg-pass'),
    'Cannot read "postgresql://127.0.0.1:5432/svc": postgres requires ***',
  );
});

Deno.test("Secrets.addVariable() takes keys by their name and URLs by their value", () => {
  const known = new Secrets();
  const env: Record<string, string> = {
    OPENAI_API_KEY: "sk-openai-1",
    SVC_API_SESSION_SECRET: "s".repeat(32),
    SVC_LIBSQL_AUTH_TOKEN: "libsql-token",
    SVC_DEMO_AUTHENTICATION_PASSWORD: "demo-pass",
    OLLAMA_HOST: "ollama-user:ollama-pass@gpu-box:11434",
    SVC_POSTGRES_URL: "postgresql://svc:pg-pass@db/svc",
    SVC_OPENAI_MODEL: "gpt-model-name",
    HOME: "/home/ada-lovelace",
    CONTACT: "grace@example.com",
  };
  for (const [name, value] of Object.entries(env)) known.addVariable(name, value);
  const text = Object.values(env).join(" ");
  assert.equal(
    known.hide(text),
    "*** *** *** *** ***@gpu-box:11434 postgresql://***@db/svc gpt-model-name " +
      "/home/ada-lovelace grace@example.com",
  );
});

Deno.test("redact() hides the process's secrets, URLs' secret parts and credentials", () => {
  secrets.add("sk-process-key-77");
  assert.equal(
    redact(
      'echo {"x-api-key":"k-1","key":"sk-process-key-77"} from https://u:p@h/v1?key=q and ' +
        "Basic dTpw",
    ),
    'echo {"x-api-key":"***","key":"***"} from https://h/v1 and Basic dTpw',
  );
});

Deno.test("redact() is linear on 1 MB of text that each of its rules loops on", () => {
  // Counted by the rules' own tests; this one runs them together on the worst of each.
  const size = 1024 * 1024;
  for (const unit of ["a", "a:", "://", "authorization: ", "Bearer ", "sk-process-key-7"]) {
    const text = unit.repeat(Math.ceil(size / unit.length));
    assert.ok(redact(text).length <= text.length);
  }
});
