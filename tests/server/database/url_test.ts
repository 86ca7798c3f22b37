import assert from "node:assert/strict";
import { parseDatabaseUrl } from "../../../server/database/mod.ts";
import { svcError } from "./_helpers.ts";

Deno.test("parseDatabaseUrl() reads sqlite:// as an in-memory database", () => {
  assert.deepEqual(parseDatabaseUrl("sqlite://"), { kind: "memory" });
  assert.deepEqual(parseDatabaseUrl("sqlite:///:memory:"), { kind: "memory" });
});

Deno.test("parseDatabaseUrl() resolves sqlite:///relative/path against the base", () => {
  assert.deepEqual(parseDatabaseUrl("sqlite:///data/svc.db", { base: "/srv/svc" }), {
    kind: "file",
    path: "/srv/svc/data/svc.db",
  });
  assert.deepEqual(parseDatabaseUrl("sqlite:///../svc.db", { base: "/srv/svc" }), {
    kind: "file",
    path: "/srv/svc.db",
  });
  assert.deepEqual(parseDatabaseUrl("sqlite:///svc.db"), {
    kind: "file",
    path: `${Deno.cwd()}/svc.db`,
  });
});

Deno.test("parseDatabaseUrl() reads sqlite:////absolute/path literally", () => {
  assert.deepEqual(parseDatabaseUrl("sqlite:////var/lib/svc/a b%20c.db", { base: "/x" }), {
    kind: "file",
    path: "/var/lib/svc/a b%20c.db",
  });
});

Deno.test("parseDatabaseUrl() puts an empty URL in the local root", () => {
  assert.deepEqual(parseDatabaseUrl("", { localRoot: "/home/ada/.cache/svc" }), {
    kind: "file",
    path: "/home/ada/.cache/svc/svc.db",
  });
});

Deno.test("parseDatabaseUrl() passes libSQL server URLs on", () => {
  for (
    const url of [
      "libsql://db-ada.example.io",
      "http://127.0.0.1:8080",
      "https://db.example.io?tls=1",
      "ws://localhost:8080",
      "wss://db.example.io",
    ]
  ) {
    assert.deepEqual(parseDatabaseUrl(url), { kind: "server", url });
  }
});

Deno.test("parseDatabaseUrl() passes PostgreSQL URLs on, with either scheme", () => {
  for (
    const url of [
      "postgresql://svc:secret@db.internal:5432/svc",
      "postgres://127.0.0.1/svc?sslmode=disable",
    ]
  ) {
    assert.deepEqual(parseDatabaseUrl(url), { kind: "postgres", url });
  }
  assert.throws(
    () => parseDatabaseUrl("postgresql:///svc"),
    svcError(500, /not a valid URL of a PostgreSQL/),
  );
});

Deno.test('parseDatabaseUrl() refuses "memory" and says what replaced it', () => {
  assert.throws(
    () => parseDatabaseUrl("memory"),
    svcError(500, 'database_url = "memory" was removed: use "sqlite://" for an in-memory database'),
  );
});

Deno.test("parseDatabaseUrl() refuses other schemes by name", () => {
  assert.throws(
    () => parseDatabaseUrl("mongodb://x"),
    svcError(
      500,
      /^Cannot open the database "mongodb:\/\/x": the scheme "mongodb" is not supported; use "sqlite:\/\/".*postgresql:\/\//,
    ),
  );
  assert.throws(() => parseDatabaseUrl("mysql://u@h/db"), svcError(500, /"mysql"/));
});

Deno.test("parseDatabaseUrl() refuses what is not a database URL, saying why", () => {
  assert.throws(() => parseDatabaseUrl("svc.db"), svcError(500, /"svc\.db": it is not a URL/));
  assert.throws(() => parseDatabaseUrl("sqlite://host/svc.db"), svcError(500, /has no host/));
  assert.throws(() => parseDatabaseUrl("sqlite:///"), svcError(500, /names a folder/));
  assert.throws(() => parseDatabaseUrl("sqlite:////tmp/"), svcError(500, /names a folder/));
  assert.throws(() => parseDatabaseUrl("http://"), svcError(500, /not a valid URL/));
});

Deno.test("parseDatabaseUrl() names a refused URL without its password, token or query", () => {
  assert.throws(
    () => parseDatabaseUrl("redis://ada:hunter2@cache.internal/0?authToken=secret#secret"),
    svcError(500, /^Cannot open the database "redis:\/\/cache\.internal\/0": the scheme "redis"/),
  );
});
