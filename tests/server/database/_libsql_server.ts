/**
 * A small stand-in for a libSQL server (sqld): Hrana version 2 over HTTP with
 * JSON, backed by `node:sqlite` on a file, one connection per stream (baton).
 * Enough of the protocol for `@libsql/client` to run statements, batches and
 * interactive transactions, so that the `http://` and `libsql://` forms of
 * `database_url` are tested end to end without a real server.
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";

type HranaValue =
  | { type: "null" }
  | { type: "integer"; value: string }
  | { type: "float"; value: number }
  | { type: "text"; value: string }
  | { type: "blob"; base64: string };

interface HranaStmt {
  sql?: string;
  sql_id?: number;
  args?: HranaValue[];
  named_args?: { name: string; value: HranaValue }[];
  want_rows?: boolean;
}

type HranaCond =
  | { type: "ok" | "error"; step: number }
  | { type: "not"; cond: HranaCond }
  | { type: "and" | "or"; conds: HranaCond[] }
  | { type: "is_autocommit" };

type HranaRequest =
  | { type: "execute"; stmt: HranaStmt }
  | { type: "batch"; batch: { steps: { condition?: HranaCond | null; stmt: HranaStmt }[] } }
  | { type: "sequence"; sql?: string; sql_id?: number }
  | { type: "store_sql"; sql_id: number; sql: string }
  | { type: "close_sql"; sql_id: number }
  | { type: "get_autocommit" }
  | { type: "close" };

interface Stream {
  db: DatabaseSync;
  sqls: Map<number, string>;
}

/** A running fake server; `url` is its `http://` URL. Stop it by disposing. */
export interface FakeLibsqlServer extends AsyncDisposable {
  url: string;
  port: number;
  /** The number of pipeline requests answered, to show that work went over HTTP. */
  requests: number;
}

/** Starts a fake libSQL server on a free port over the SQLite file `path`. */
export function startFakeLibsqlServer(
  path: string,
  options: { token?: string } = {},
): FakeLibsqlServer {
  const streams = new Map<string, Stream>();
  const state = { requests: 0 };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    if (options.token !== undefined) {
      if (request.headers.get("authorization") !== `Bearer ${options.token}`) {
        return Response.json({ error: "Unauthorized" }, { status: 401 });
      }
    }
    if (request.method !== "POST" || url.pathname !== "/v2/pipeline") {
      return new Response("Not found", { status: 404 });
    }
    state.requests++;
    const body = await request.json() as { baton?: string | null; requests: HranaRequest[] };
    let baton = body.baton ?? null;
    let stream = baton === null ? undefined : streams.get(baton);
    if (stream === undefined) {
      if (baton !== null) {
        return Response.json({ error: `Unknown baton ${baton}` }, { status: 400 });
      }
      stream = { db: new DatabaseSync(path, { timeout: 5000 }), sqls: new Map() };
      baton = crypto.randomUUID();
      streams.set(baton, stream);
    }
    const results = body.requests.map((r) => answer(stream!, r));
    if (body.requests.some((r) => r.type === "close")) {
      stream.db.close();
      streams.delete(baton!);
      baton = null;
    }
    return Response.json({ baton, base_url: null, results });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    port: server.addr.port,
    get requests() {
      return state.requests;
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      for (const stream of streams.values()) stream.db.close();
    },
  };
}

function answer(stream: Stream, request: HranaRequest): unknown {
  try {
    switch (request.type) {
      case "execute":
        return ok({ type: "execute", result: execute(stream, request.stmt) });
      case "batch":
        return ok({ type: "batch", result: batch(stream, request.batch.steps) });
      case "sequence":
        stream.db.exec(request.sql ?? stream.sqls.get(request.sql_id!)!);
        return ok({ type: "sequence" });
      case "store_sql":
        stream.sqls.set(request.sql_id, request.sql);
        return ok({ type: "store_sql" });
      case "close_sql":
        stream.sqls.delete(request.sql_id);
        return ok({ type: "close_sql" });
      case "get_autocommit":
        return ok({ type: "get_autocommit", is_autocommit: !stream.db.isTransaction });
      case "close":
        return ok({ type: "close" });
    }
  } catch (error) {
    return { type: "error", error: hranaError(error) };
  }
}

function ok(response: unknown) {
  return { type: "ok", response };
}

function batch(stream: Stream, steps: { condition?: HranaCond | null; stmt: HranaStmt }[]) {
  const results: unknown[] = [];
  const errors: unknown[] = [];
  const holds = (cond: HranaCond): boolean => {
    switch (cond.type) {
      case "ok":
        return results[cond.step] != null;
      case "error":
        return errors[cond.step] != null;
      case "not":
        return !holds(cond.cond);
      case "and":
        return cond.conds.every(holds);
      case "or":
        return cond.conds.some(holds);
      case "is_autocommit":
        return !stream.db.isTransaction;
    }
  };
  steps.forEach((step, i) => {
    results[i] = null;
    errors[i] = null;
    if (step.condition != null && !holds(step.condition)) return;
    try {
      results[i] = execute(stream, step.stmt);
    } catch (error) {
      errors[i] = hranaError(error);
    }
  });
  return { step_results: results, step_errors: errors };
}

function execute(stream: Stream, stmt: HranaStmt) {
  // libSQL's read-only transaction is not SQLite syntax; a deferred one reads the same.
  const sql = (stmt.sql ?? stream.sqls.get(stmt.sql_id!)!)
    .replace(/^BEGIN TRANSACTION READONLY$/i, "BEGIN DEFERRED");
  const statement: StatementSync = stream.db.prepare(sql);
  statement.setReadBigInts(true);
  const args = (stmt.args ?? []).map(fromHrana);
  const named = Object.fromEntries(
    (stmt.named_args ?? []).map((a) => [a.name, fromHrana(a.value)]),
  );
  const params = stmt.named_args?.length ? [named, ...args] : args;
  const columns = statement.columns();
  if (columns.length === 0) {
    const { changes, lastInsertRowid } = statement.run(...params as SQLInputValue[]);
    return {
      cols: [],
      rows: [],
      affected_row_count: Number(changes),
      last_insert_rowid: String(lastInsertRowid),
    };
  }
  // Rows as objects: the queries of svc never repeat a column name.
  const rows = statement.all(...params as SQLInputValue[]) as Record<string, unknown>[];
  return {
    cols: columns.map((c) => ({ name: c.name, decltype: c.type })),
    rows: rows.map((row) => columns.map((c) => toHrana(row[c.name]))),
    affected_row_count: 0,
    last_insert_rowid: null,
  };
}

function fromHrana(value: HranaValue): SQLInputValue {
  switch (value.type) {
    case "null":
      return null;
    case "integer":
      return BigInt(value.value);
    case "float":
      return value.value;
    case "text":
      return value.value;
    case "blob":
      return Uint8Array.from(atob(value.base64), (c) => c.charCodeAt(0));
  }
}

function toHrana(value: unknown): HranaValue {
  if (value === null) return { type: "null" };
  if (typeof value === "bigint") return { type: "integer", value: String(value) };
  if (typeof value === "number") return { type: "float", value };
  if (typeof value === "string") return { type: "text", value };
  const bytes = value as Uint8Array;
  return { type: "blob", base64: btoa(String.fromCharCode(...bytes)) };
}

function hranaError(error: unknown) {
  const message = error instanceof Error ? error.message : String(error);
  const code = /constraint failed/i.test(message) ? "SQLITE_CONSTRAINT" : "SQLITE_ERROR";
  return { message, code };
}
