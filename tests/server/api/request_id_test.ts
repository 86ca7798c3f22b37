import assert from "node:assert/strict";
import { testApi } from "./_api.ts";

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
