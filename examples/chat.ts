/**
 * A whole chat from a script, with the demo components that need no keys:
 *
 *     deno run -A examples/chat.ts report.pdf "What does the report conclude?"
 *
 * The demo assistant does not read the documents: it shows the prompt and the
 * sources it was given. A mistake, such as a file that does not exist, is one
 * sentence and exit code 1.
 *
 * @module
 */
import { Rag, SvcError } from "@svc/svc";
import { SvcDemoSourceStorage } from "@svc/svc/source_storages";
import { SvcDemoAssistant } from "@svc/svc/assistants";

const [prompt = "What are these documents about?", ...documents] = Deno.args.toReversed();
if (documents.length === 0) {
  console.error("Usage: deno run -A examples/chat.ts DOCUMENT... PROMPT");
  Deno.exit(2);
}

try {
  const chat = new Rag().chat({
    documents: documents.toReversed(),
    sourceStorage: SvcDemoSourceStorage,
    assistant: SvcDemoAssistant,
    params: {},
  });
  await chat.prepare();
  const answer = await chat.answer(prompt, { stream: true });
  for await (const chunk of answer) console.log(chunk);
  for (const source of answer.sources) {
    console.log(`[${source.document.name}${source.location ? `, ${source.location}` : ""}]`);
  }
} catch (error) {
  if (!(error instanceof SvcError)) throw error;
  console.error(`error: ${error.message}`);
  Deno.exit(1);
}
