import assert from "node:assert/strict";
import { BROKE_OFF, explainFailure } from "../../ui/failures.ts";

Deno.test("explainFailure() tells a model server that did not answer in plain words", () => {
  const refused = 'Cannot reach Ollama at "http://gpu:11434/v1": Connection refused (os error 111)';
  assert.deepEqual(explainFailure(refused, 502), {
    summary: "The model server did not answer",
    details: refused,
  });
  const gone = 'The component "OpenAICompatible/gone" is not available: it needs the ' +
    'OpenAI-compatible server at "http://127.0.0.1:9/v1" to answer';
  assert.equal(explainFailure(gone, 503).summary, "The model server did not answer");
  // A stored answer's reason has no status: its words alone decide.
  assert.equal(explainFailure(refused).summary, "The model server did not answer");
  assert.equal(
    explainFailure("OpenAI did not answer within 60 s").summary,
    "The model server did not answer in time",
  );
  assert.equal(
    explainFailure("Ollama stopped answering for 30 s").summary,
    "The model server did not answer in time",
  );
  assert.equal(
    explainFailure("OpenAI answered 401: Incorrect API key provided").summary,
    "The model server answered with an error",
  );
  assert.equal(
    explainFailure("Ollama answered with an error: out of memory").summary,
    "The model server answered with an error",
  );
});

Deno.test("explainFailure() keeps addresses, commands and settings out of the summary", () => {
  const unreachable = explainFailure("No answer from http://127.0.0.1:31476", 0);
  assert.equal(
    unreachable.summary,
    "svc cannot be reached: it may be restarting, or the network is down",
  );
  for (
    const [message, status] of [
      ["Too many waiting (SVC_API_MAX_PENDING_DOCUMENTS_PER_USER)", 429],
      ['Start it with "svc api" first', 400],
      ["The storage at https://db.example is full", 507],
      ["A bug, logged with request id 42", 500],
    ] as const
  ) {
    const explained = explainFailure(message, status);
    assert.doesNotMatch(explained.summary, /https?:|svc (ui|api)|SVC_/, message);
    assert.equal(explained.details, message);
  }
});

Deno.test("explainFailure() shows a sentence meant for users as it is, and an empty one as broken off", () => {
  assert.deepEqual(explainFailure("The test model is overloaded", 502), {
    summary: "The test model is overloaded",
  });
  assert.deepEqual(explainFailure("  "), { summary: BROKE_OFF });
});
