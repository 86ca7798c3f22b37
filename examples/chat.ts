/**
 * A whole chat from a script, with the demo components that need no keys:
 *
 *     deno run -A examples/chat.ts report.pdf "What does the report conclude?"
 *
 * @module
 */
import { Rag } from "@svc/svc";
import { SvcDemoSourceStorage } from "@svc/svc/source_storages";
import { SvcDemoAssistant } from "@svc/svc/assistants";

const [prompt = "What are these documents about?", ...documents] = Deno.args.toReversed();
if (documents.length === 0) {
  console.error("Usage: deno run -A examples/chat.ts DOCUMENT... PROMPT");
  Deno.exit(2);
}

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
