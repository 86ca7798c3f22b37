import assert from "node:assert/strict";
import { testApi } from "./_api.ts";
import { SvcError } from "../../../components/core/errors.ts";

Deno.test("every request gets an id of svc's own, in its header and its log line, never the client's", async () => {
  await using api = await testApi();
  const ids = [];
  for (const sent of ["mine", undefined]) {
    const response = await api.app.request("http://svc.test/health", {
      headers: sent ? { "X-Request-Id": sent } : {},
    });
    await response.body?.cancel();
    const id = response.headers.get("X-Request-Id")!;
    assert.match(id, /^[0-9a-f]{8}$/);
    const line = JSON.parse(api.logs.at(-1)!);
    assert.equal(line.request_id, id);
    assert.equal(line.route, "/health");
    ids.push(id);
  }
  assert.notEqual(ids[0], ids[1]);
});

Deno.test("/health names the configuration it serves, when its database answers and when not", async () => {
  await using api = await testApi();
  api.deps.configuration = "0123456789abcdef";
  const up = await api.app.request("http://svc.test/health");
  assert.equal(up.status, 200);
  assert.equal(up.headers.get("Svc-Configuration"), "0123456789abcdef");
  await up.body?.cancel();
  // A database that does not answer: the API is still svc's, and says whose.
  api.deps.database.check = () =>
    Promise.reject(new SvcError("The database is down", { status: 503 }));
  const down = await api.app.request("http://svc.test/health");
  assert.equal(down.status, 503);
  assert.equal(down.headers.get("Svc-Configuration"), "0123456789abcdef");
  await down.body?.cancel();
});
