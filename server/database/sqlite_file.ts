/**
 * A database file through Deno's built-in SQLite (`node:sqlite`), behind the
 * part of libSQL's `Client` that svc uses: `execute`, `batch`, `transaction`,
 * `executeMultiple` and `close`, with its rows, results and errors. The
 * database thread opens its file with it: libSQL's client for a file loads
 * Node's compatibility layer and a native addon into the thread, some 60 ms
 * of processor time and 20 MiB at every start, for the same SQLite. Only
 * files: memory and libSQL servers keep libSQL's client.
 *
 * One process must open a file through one SQLite library only: SQLite keeps
 * the locks of its connections per process, and a second copy of it in the
 * same process would release them (or take the file for its own) behind the
 * first one's back.
 * @module
 */
import type { Client, InStatement, InValue, ResultSet, Row, Transaction } from "@libsql/client";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";

/** Options of {@linkcode openSqliteFile}. */
export interface SqliteFileOptions {
  /** How long a statement waits for another process's lock, in milliseconds. */
  timeout: number;
}

/**
 * A client of the database file at `path`, created if missing, with foreign
 * keys on for every connection.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openSqliteFile } from "./sqlite_file.ts";
 * const path = await Deno.makeTempFile({ suffix: ".db" });
 * const client = openSqliteFile(path, { timeout: 1000 });
 * await client.execute("CREATE TABLE t (name TEXT UNIQUE)");
 * await client.execute({ sql: "INSERT INTO t VALUES (?)", args: ["ada"] });
 * const { rows } = await client.execute("SELECT name FROM t");
 * assert.equal(rows[0]?.name, "ada");
 * assert.equal(rows[0]?.[0], "ada");
 * await assert.rejects(client.execute("INSERT INTO t VALUES ('ada')"), /SQLITE_CONSTRAINT/);
 * client.close();
 * await Deno.remove(path);
 * ```
 */
export function openSqliteFile(path: string, options: SqliteFileOptions): Client {
  return new SqliteFileClient(path, options) as unknown as Client;
}

/** A write or read transaction's `BEGIN`, by libSQL's names of the modes. */
const BEGIN: Readonly<Record<string, string>> = {
  write: "BEGIN IMMEDIATE",
  read: "BEGIN DEFERRED",
  deferred: "BEGIN DEFERRED",
};

/** How many prepared statements each connection keeps. */
const KEPT_STATEMENTS = 64;

/** A statement prepared, and the names of the columns of its rows. */
interface Prepared {
  statement: StatementSync;
  columns: string[];
}

/** One connection and the statements it prepared. */
class Connection {
  readonly db: DatabaseSync;
  readonly #statements = new Map<string, Prepared>();

  constructor(path: string, options: SqliteFileOptions) {
    this.db = sqlite(() => new DatabaseSync(path, { timeout: options.timeout }));
    sqlite(() => this.db.exec("PRAGMA foreign_keys = ON"));
  }

  /** Runs one statement to its end. */
  run(statement: InStatement | string): ResultSet {
    const { sql, args } = typeof statement === "string"
      ? { sql: statement, args: [] }
      : { sql: statement.sql, args: statement.args ?? [] };
    return sqlite(() => {
      const { statement: prepared, columns } = this.#prepare(sql);
      const values = Array.isArray(args) ? args.map(bound) : [];
      const named = Array.isArray(args) ? undefined : Object.fromEntries(
        Object.entries(args).map(([name, value]) => [name.replace(/^[:@$]/, ""), bound(value)]),
      );
      if (columns.length === 0) {
        const { changes, lastInsertRowid } = named
          ? prepared.run(named, ...values)
          : prepared.run(...values);
        return result([], [], Number(changes), BigInt(lastInsertRowid));
      }
      const raw = (named
        ? prepared.all(named, ...values)
        : prepared.all(...values)) as unknown as unknown[][];
      // What a statement with RETURNING changed: one row each.
      const changed = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i.test(sql) ? raw.length : 0;
      return result(
        columns,
        raw.map((values) =>
          row(columns, values)
        ),
        changed,
        undefined,
      );
    });
  }

  #prepare(sql: string): Prepared {
    let prepared = this.#statements.get(sql);
    if (prepared) {
      this.#statements.delete(sql);
    } else {
      const statement = this.db.prepare(sql);
      const columns = statement.columns().map((column) => column.name);
      // Deno has it, as Node does since 24; its types do not say so yet.
      if (columns.length > 0) {
        (statement as StatementSync & { setReturnArrays(on: boolean): void }).setReturnArrays(true);
      }
      prepared = { statement, columns };
      if (this.#statements.size >= KEPT_STATEMENTS) {
        this.#statements.delete(this.#statements.keys().next().value!);
      }
    }
    this.#statements.set(sql, prepared);
    return prepared;
  }

  /** Runs the statements in order; a failure names the statement's index. */
  runAll(statements: readonly InStatement[]): ResultSet[] {
    return statements.map((statement, index) => {
      try {
        return this.run(statement);
      } catch (error) {
        if (error instanceof SqliteError) error.statementIndex = index;
        throw error;
      }
    });
  }

  exec(sql: string): void {
    sqlite(() => this.db.exec(sql));
  }

  /**
   * Runs a script of statements. `exec` and `run` step a statement that gives rows only to its
   * first (`PRAGMA incremental_vacuum` frees one page a row), so a script of one statement is
   * stepped through all its rows.
   */
  script(sql: string): void {
    const one = sql.trim().replace(/;$/, "");
    if (one.includes(";")) this.exec(sql);
    else sqlite(() => this.db.prepare(one).all());
  }

  /** Ends a transaction left open, so that the connection can be lent again. */
  settle(): void {
    if (this.db.isOpen && this.db.isTransaction) this.exec("ROLLBACK");
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}

class SqliteFileClient {
  readonly #path: string;
  readonly #options: SqliteFileOptions;
  // Connections not lent: a transaction keeps its own until it ends, and a read meanwhile takes
  // another, as libSQL's client does.
  readonly #idle: Connection[] = [];
  readonly #lent = new Set<Connection>();
  closed = false;
  readonly protocol = "file";

  constructor(path: string, options: SqliteFileOptions) {
    this.#path = path;
    this.#options = options;
    this.#idle.push(new Connection(path, options));
  }

  execute(statement: InStatement | string, args?: InValue[]): Promise<ResultSet> {
    return this.#with((connection) =>
      connection.run(typeof statement === "string" && args ? { sql: statement, args } : statement)
    );
  }

  batch(statements: InStatement[], mode = "deferred"): Promise<ResultSet[]> {
    return this.#with((connection) => {
      connection.exec(BEGIN[mode] ?? BEGIN.deferred!);
      const results = connection.runAll(statements);
      connection.exec("COMMIT");
      return results;
    });
  }

  executeMultiple(sql: string): Promise<void> {
    return this.#with((connection) => void connection.script(sql));
  }

  transaction(mode = "write"): Promise<Transaction> {
    try {
      const connection = this.#lend();
      try {
        connection.exec(BEGIN[mode] ?? BEGIN.write!);
      } catch (error) {
        this.#giveBack(connection);
        throw error;
      }
      return Promise.resolve(
        new SqliteTransaction(
          connection,
          () => this.#giveBack(connection),
        ) as unknown as Transaction,
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  close(): void {
    this.closed = true;
    for (const connection of [...this.#idle, ...this.#lent]) connection.close();
    this.#idle.length = 0;
    this.#lent.clear();
  }

  /** Runs `work` on a connection lent for it alone; the statements run at once, in this call. */
  #with<T>(work: (connection: Connection) => T): Promise<T> {
    try {
      const connection = this.#lend();
      try {
        return Promise.resolve(work(connection));
      } finally {
        this.#giveBack(connection);
      }
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #lend(): Connection {
    if (this.closed) throw new SqliteError("The client is closed", "CLIENT_CLOSED");
    const connection = this.#idle.pop() ?? new Connection(this.#path, this.#options);
    this.#lent.add(connection);
    return connection;
  }

  #giveBack(connection: Connection): void {
    if (!this.#lent.delete(connection)) return;
    try {
      connection.settle();
    } catch {
      // A connection that cannot end its transaction is not lent again.
      connection.close();
      return;
    }
    if (this.closed) connection.close();
    else this.#idle.push(connection);
  }
}

/** A transaction on a connection of its own until it commits, rolls back or closes. */
class SqliteTransaction {
  #connection: Connection | undefined;
  readonly #end: () => void;

  constructor(connection: Connection, end: () => void) {
    this.#connection = connection;
    this.#end = end;
  }

  get closed(): boolean {
    return this.#connection === undefined;
  }

  execute(statement: InStatement | string): Promise<ResultSet> {
    return this.#with((connection) => connection.run(statement));
  }

  batch(statements: InStatement[]): Promise<ResultSet[]> {
    return this.#with((connection) => connection.runAll(statements));
  }

  executeMultiple(sql: string): Promise<void> {
    return this.#with((connection) => void connection.script(sql));
  }

  commit(): Promise<void> {
    return this.#finish("COMMIT");
  }

  rollback(): Promise<void> {
    return this.#finish("ROLLBACK");
  }

  close(): void {
    if (this.#connection === undefined) return;
    this.#connection = undefined;
    this.#end();
  }

  #finish(sql: string): Promise<void> {
    return this.#with((connection) => {
      try {
        if (connection.db.isTransaction) connection.exec(sql);
      } finally {
        this.close();
      }
    });
  }

  #with<T>(work: (connection: Connection) => T): Promise<T> {
    if (this.#connection === undefined) {
      return Promise.reject(new SqliteError("The transaction is closed", "TRANSACTION_CLOSED"));
    }
    try {
      return Promise.resolve(work(this.#connection));
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/**
 * An error of SQLite as libSQL's client gives it: `code` the name of its
 * primary result code (`SQLITE_CONSTRAINT`), `extendedCode` of its extended
 * one (`SQLITE_CONSTRAINT_UNIQUE`), and the message after the code.
 */
export class SqliteError extends Error {
  readonly code: string;
  readonly extendedCode: string | undefined;
  readonly rawCode: number | undefined;
  /** In a batch, the index of the statement that failed. */
  statementIndex: number | undefined;

  constructor(message: string, code: string, rawCode?: number, cause?: unknown) {
    super(`${code}: ${message}`, { cause });
    this.name = "SqliteError";
    this.code = code;
    this.rawCode = rawCode;
    this.extendedCode = rawCode === undefined ? undefined : (EXTENDED[rawCode] ?? code);
  }
}

const PRIMARY = [
  "OK",
  "ERROR",
  "INTERNAL",
  "PERM",
  "ABORT",
  "BUSY",
  "LOCKED",
  "NOMEM",
  "READONLY",
  "INTERRUPT",
  "IOERR",
  "CORRUPT",
  "NOTFOUND",
  "FULL",
  "CANTOPEN",
  "PROTOCOL",
  "EMPTY",
  "SCHEMA",
  "TOOBIG",
  "CONSTRAINT",
  "MISMATCH",
  "MISUSE",
  "NOLFS",
  "AUTH",
  "FORMAT",
  "RANGE",
  "NOTADB",
];

// The extended result codes svc's callers tell apart (constraints, busy and read-only files).
const EXTENDED: Readonly<Record<number, string>> = {
  261: "SQLITE_BUSY_RECOVERY",
  517: "SQLITE_BUSY_SNAPSHOT",
  773: "SQLITE_BUSY_TIMEOUT",
  264: "SQLITE_READONLY_RECOVERY",
  520: "SQLITE_READONLY_CANTLOCK",
  776: "SQLITE_READONLY_ROLLBACK",
  1032: "SQLITE_READONLY_DBMOVED",
  1288: "SQLITE_READONLY_CANTINIT",
  1544: "SQLITE_READONLY_DIRECTORY",
  275: "SQLITE_CONSTRAINT_CHECK",
  531: "SQLITE_CONSTRAINT_COMMITHOOK",
  787: "SQLITE_CONSTRAINT_FOREIGNKEY",
  1043: "SQLITE_CONSTRAINT_FUNCTION",
  1299: "SQLITE_CONSTRAINT_NOTNULL",
  1555: "SQLITE_CONSTRAINT_PRIMARYKEY",
  1811: "SQLITE_CONSTRAINT_TRIGGER",
  2067: "SQLITE_CONSTRAINT_UNIQUE",
  2323: "SQLITE_CONSTRAINT_VTAB",
  2579: "SQLITE_CONSTRAINT_ROWID",
};

/** Runs a call of `node:sqlite`, its SQLite errors given as libSQL's client gives them. */
function sqlite<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    const { errcode } = error as { errcode?: unknown };
    if (typeof errcode !== "number") throw error;
    const primary = PRIMARY[errcode & 0xff];
    const code = primary ? `SQLITE_${primary}` : `SQLITE_UNKNOWN_${errcode & 0xff}`;
    throw new SqliteError((error as Error).message, code, errcode, error);
  }
}

/** A value as SQLite takes it, converted as libSQL's client converts it. */
function bound(value: InValue | undefined): SQLInputValue {
  if (value === undefined || value === null) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.valueOf();
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return value as SQLInputValue;
}

/** A row as libSQL's client gives it: its values by index and by column name. */
function row(columns: readonly string[], values: unknown[]): Row {
  const named = values as unknown as Record<string, unknown>;
  columns.forEach((name, index) => {
    // Own values only: a column named `at` or `keys` hides the array's method of that name.
    if (!Object.hasOwn(named, name)) named[name] = values[index];
  });
  return named as unknown as Row;
}

function result(
  columns: string[],
  rows: Row[],
  rowsAffected: number,
  lastInsertRowid: bigint | undefined,
): ResultSet {
  return {
    columns,
    columnTypes: columns.map(() => ""),
    rows,
    rowsAffected,
    lastInsertRowid,
    toJSON: () => ({ columns, rows, rowsAffected, lastInsertRowid: lastInsertRowid?.toString() }),
  };
}
