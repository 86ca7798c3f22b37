import assert from "node:assert/strict";
import { denoArgs, run as runProcess } from "./_process.ts";
import { FIXTURES, tmpDir } from "./test_utils.ts";
import { integration } from "./_tier.ts";

// The library example of the README, word for word.
const LIBRARY_EXAMPLE = `
import { Rag } from "@svc/svc";
import { SvcDemoSourceStorage } from "@svc/svc/source_storages";
import { SvcDemoAssistant } from "@svc/svc/assistants";

const chat = new Rag().chat({
  documents: ["report.pdf"], // paths or Document objects
  sourceStorage: SvcDemoSourceStorage, // a class, an instance, or a class path
  assistant: SvcDemoAssistant,
  params: {}, // chat parameters, e.g. { chunk_size: 500, max_new_tokens: 512 }
});
await chat.prepare();
const answer = await chat.answer("What does the report conclude?", { stream: true });
for await (const chunk of answer) console.log(chunk);
console.log(answer.sources);
`;

const config = new URL("../deno.json", import.meta.url).pathname;

async function run(cwd: string, ...args: string[]) {
  return await runProcess(Deno.execPath(), denoArgs("run", "-A", "--config", config, ...args), {
    cwd,
    env: { NO_COLOR: "1" },
  });
}

integration.test("the contract's library example streams an answer citing a page of a real PDF", async () => {
  await using dir = await tmpDir();
  await Deno.copyFile(`${FIXTURES}report.pdf`, `${dir.path}/report.pdf`);
  await Deno.writeTextFile(`${dir.path}/example.ts`, LIBRARY_EXAMPLE);
  const { code, stdout } = await run(dir.path, "example.ts");
  assert.equal(code, 0);
  assert.match(stdout, /> What does the report conclude\?/);
  assert.match(stdout, /location: "page 1"/);
  assert.match(stdout, /name: "report\.pdf"/);
});

integration.test("examples/chat.ts answers over the documents it is given", async () => {
  const example = new URL("../examples/chat.ts", import.meta.url).pathname;
  const { code, stdout } = await run(FIXTURES, example, "report.pdf", "guide.md", "Why?");
  assert.equal(code, 0);
  assert.match(stdout, /> Why\?/);
  assert.match(stdout, /^\[report\.pdf, page 1\]$/m);
  assert.match(stdout, /^\[guide\.md\]$/m);
});

integration.test("examples/chat.ts with a missing file says so in one sentence and exits 1", async () => {
  await using dir = await tmpDir();
  const example = new URL("../examples/chat.ts", import.meta.url).pathname;
  const { code, stdout, stderr } = await run(dir.path, example, "x.pdf", "Why?");
  assert.equal(code, 1);
  assert.equal(stdout, "");
  // Only its last line: a first run may print what Deno downloads before it.
  assert.match(stderr, /(^|\n)error: Cannot read "x\.pdf": no such file\n$/);
  assert.doesNotMatch(stderr, /never uploaded|^\s+at /m);
});
