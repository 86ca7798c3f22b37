/**
 * The load of the load test, as a process of its own that the test runs at a
 * lower priority, so that generating the load does not starve the server or
 * the `/health` measurement on a small machine. Reads `{base, chats, rounds,
 * chunks, document}` as JSON on standard input; streams `rounds` answers in
 * every chat at once while it uploads documents and prepares chats over them;
 * writes `{stats, prepared, failures, streaming}` as JSON on standard output,
 * `streaming` saying by `Date.now()` when the answers began and ended.
 * @module
 */
import { streamAnswers } from "./_load.ts";
import { Client } from "./_server.ts";

const { base, chats, rounds, chunks, document } = JSON.parse(
  await new Response(Deno.stdin.readable).text(),
);
const client = await Client.login(base);
let streaming = true;
const failures: string[] = [];
const sideWork = (async () => {
  let prepared = 0;
  while (streaming) {
    try {
      const more = await client.upload(`more ${prepared}.md`, document);
      const chat = await client.createChat(`more ${prepared}`, [more]);
      await client.call("POST", `/chats/${chat.id}/prepare`);
      prepared++;
    } catch (error) {
      failures.push(String(error));
      break;
    }
  }
  return prepared;
})();
const from = Date.now();
const stats = await streamAnswers((slot) => client.ask(chats[slot], "count"), {
  concurrency: chats.length,
  rounds,
  chunks,
});
const to = Date.now();
streaming = false;
const prepared = await sideWork;
console.log(JSON.stringify({ stats, prepared, failures, streaming: { from, to } }));
