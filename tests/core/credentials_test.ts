import assert from "node:assert/strict";
import { credentialSpans, redactCredentials } from "../../components/core/credentials.ts";

Deno.test("redactCredentials() hides the value of an Authorization header of any scheme", () => {
  const cases: [string, string][] = [
    ["Authorization: Bearer sk-live-123", "Authorization: ***"],
    ["authorization: Basic YWRhOnB3", "authorization: ***"],
    ["Authorization: Token abc", "Authorization: ***"],
    ["Authorization: sk-raw-key, next", "Authorization: ***, next"],
    ["Proxy-Authorization: Digest-less", "Proxy-Authorization: ***"],
    ['{"authorization":"Bearer sk-1","accept":"*/*"}', '{"authorization":"***","accept":"*/*"}'],
    ['{\\"Authorization\\": \\"Bearer sk-1\\"}', '{\\"Authorization\\": \\"***\\"}'],
    ["invalid Authorization header: Bearer x y", "invalid Authorization header: *** y"],
    ["x-api-key: sk-ant-1; x-goog-api-key=AIza9", "x-api-key: ***; x-goog-api-key=***"],
    ["authorization=Bearer%20tok&x=1", "authorization=***&x=1"],
  ];
  for (const [text, redacted] of cases) assert.equal(redactCredentials(text), redacted, text);
});

Deno.test("redactCredentials() hides a credential after a bare scheme, and leaves prose alone", () => {
  const cases: [string, string][] = [
    ["sent Bearer eyJhbGciOiJIUzI1NiJ9.e30.x to it", "sent Bearer *** to it"],
    ["Basic YWRhOmh1bnRlcjI= was refused", "Basic *** was refused"],
    ["token ghp_0123456789abcdef", "token ***"],
    [
      "Authorization failed: Basic information is missing",
      "Authorization failed: Basic information is missing",
    ],
    [
      "the token expired; Bearer tokens are refused",
      "the token expired; Bearer tokens are refused",
    ],
    ["Token Information", "Token Information"],
    ["tokenizer sk-1234567890", "tokenizer sk-1234567890"],
  ];
  for (const [text, redacted] of cases) assert.equal(redactCredentials(text), redacted, text);
});

Deno.test("credentialSpans() looks at each character of 1 MB of hostile text a bounded number of times", () => {
  const size = 1024 * 1024;
  const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  // Runs of what the scanner compares, prefixes of names and schemes, gaps without a value.
  const hostile = [
    "a",
    "authorizatio",
    "authorization",
    "authorization ",
    "authorization: ",
    'authorization"\\ ',
    "authorization:",
    "api-key=",
    "bearer ",
    " bearer",
    "basic x",
    "token aaaaaaaa ",
    "Bearer " + "A".repeat(100) + " ",
    " ",
  ];
  for (
    const text of [...hostile.map(fill), `Bearer ${fill("a1")}`, `Authorization: ${fill("x")}`]
  ) {
    const work = { steps: 0 };
    credentialSpans(text, work);
    assert.ok(
      work.steps <= 40 * text.length,
      `${JSON.stringify(text.slice(0, 16))}: ${work.steps}`,
    );
  }
  // Four times the text, four times the work.
  const quarter = { steps: 0 };
  const whole = { steps: 0 };
  credentialSpans(fill("authorization: x ").slice(0, size / 4), quarter);
  credentialSpans(fill("authorization: x "), whole);
  assert.ok(whole.steps <= 4 * quarter.steps + 64, `${whole.steps} against ${quarter.steps}`);
});
