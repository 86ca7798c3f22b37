import assert from "node:assert/strict";
import { SvcError } from "../../components/core/errors.ts";
import { UPLOAD_TOKEN_TTL, UploadTokens } from "../../server/upload_token.ts";

const refused = (pattern: RegExp) => (e: unknown) =>
  e instanceof SvcError && e.status === 401 && pattern.test(e.message);

Deno.test("UploadTokens carry the user and the document for 5 minutes", async () => {
  let now = new Date("2026-01-01T00:00:00Z");
  const tokens = new UploadTokens({ secret: "u".repeat(32), now: () => now });
  const token = await tokens.sign("ada", "doc-1");
  assert.deepEqual(await tokens.verify(token), { user: "ada", id: "doc-1" });
  assert.equal(UPLOAD_TOKEN_TTL, 300);
  now = new Date(now.getTime() + 299_000);
  assert.deepEqual(await tokens.verify(token), { user: "ada", id: "doc-1" });
  now = new Date(now.getTime() + 2_000);
  await assert.rejects(tokens.verify(token), refused(/has expired: register the document again/));
});

Deno.test("UploadTokens refuse missing, malformed and forged tokens", async () => {
  const tokens = new UploadTokens({ secret: "u".repeat(32) });
  const forged = await new UploadTokens({ secret: "f".repeat(32) }).sign("ada", "doc-1");
  await assert.rejects(tokens.verify(undefined), refused(/no "token" field/));
  await assert.rejects(tokens.verify("garbage"), refused(/is not valid/));
  await assert.rejects(tokens.verify(forged), refused(/is not valid/));
});

Deno.test("UploadTokens refuse a secret shorter than 32 bytes", () => {
  assert.throws(
    () => new UploadTokens({ secret: "short" }),
    /^SvcError: SVC_API_DOCUMENT_UPLOAD_SECRET is 5 bytes long, too short to sign tokens safely/,
  );
});
