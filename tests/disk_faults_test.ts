import assert from "node:assert/strict";
import { join } from "node:path";
import { LibsqlError } from "@libsql/client";
import { SvcError } from "../components/core/errors.ts";
import { assertWritable, diskFault, diskFaultError } from "../components/disk_faults.ts";
import { smallDisk } from "./_disk.ts";

Deno.test("diskFault() tells a full disk, a read-only one and a refusal from other errors", () => {
  const cases: [unknown, string | undefined][] = [
    [new Error("No space left on device (os error 28)"), "full"],
    [new LibsqlError("SQLITE_FULL: database or disk is full", "SQLITE_FULL"), "full"],
    [Object.assign(new Error("write failed"), { code: "ENOSPC" }), "full"],
    [new Error("Read-only file system (os error 30)"), "read-only"],
    [new LibsqlError("SQLITE_READONLY: attempt to write", "SQLITE_READONLY_DBMOVED"), "read-only"],
    [new Deno.errors.PermissionDenied("Permission denied (os error 13)"), "permission"],
    [new Error("LanceError(IO): Operation not permitted (os error 1)"), "permission"],
    [new Error("outer", { cause: new Error("No space left on device (os error 28)") }), "full"],
    [new SvcError("Cannot store the upload: the disk is full", { status: 507 }), "full"],
    [new Error("fetch failed"), undefined],
    [new Error("os error 280"), undefined],
    [
      new LibsqlError("SQLITE_CONSTRAINT: UNIQUE constraint failed", "SQLITE_CONSTRAINT"),
      undefined,
    ],
    [new SvcError("The database is closed", { status: 503 }), undefined],
  ];
  for (const [error, fault] of cases) assert.equal(diskFault(error), fault, String(error));
});

Deno.test("diskFaultError() names what could not be written, 507 for a full disk and 503 else", () => {
  const full = diskFaultError(
    'Cannot store the index of "report.pdf" in LibSQL',
    new LibsqlError("SQLITE_FULL: database or disk is full", "SQLITE_FULL"),
  );
  assert.equal(full?.message, 'Cannot store the index of "report.pdf" in LibSQL: the disk is full');
  assert.equal(full?.status, 507);
  const readOnly = diskFaultError(
    "Cannot write to the database",
    new Error("Read-only file system (os error 30)"),
  );
  assert.equal(readOnly?.message, "Cannot write to the database: the disk is read-only");
  assert.equal(readOnly?.status, 503);
  const refused = diskFaultError("Cannot store the upload", new Deno.errors.PermissionDenied("x"));
  assert.equal(refused?.message, "Cannot store the upload: permission to write was denied");
  assert.equal(refused?.status, 503);
  // A sentence already said keeps its words; another error is left to the caller.
  const said = new SvcError("Cannot store the upload: the disk is full", { status: 507 });
  assert.equal(diskFaultError("Cannot write to the database", said), said);
  assert.equal(diskFaultError("Cannot write to the database", new Error("bug")), undefined);
});

Deno.test("assertWritable() refuses the files of a read-only disk, and passes once it is writable", async () => {
  await using disk = await smallDisk(1024 * 1024);
  const database = join(disk.path, "sources.db");
  await Deno.writeTextFile(database, "");
  await disk.readOnly();
  await assert.rejects(assertWritable([database, `${database}-wal`]), (error) => {
    assert.equal(diskFault(error), "read-only", String(error));
    return true;
  });
  await disk.writable();
  await assertWritable([database, `${database}-wal`]);
  // A file that does not exist is not refused: SQLite makes it when it needs it.
  await assert.rejects(Deno.stat(`${database}-wal`), Deno.errors.NotFound);
});
