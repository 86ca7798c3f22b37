import assert from "node:assert/strict";
import { missingPostgres } from "./_pgvector.ts";
import { tmpDir } from "../test_utils.ts";

Deno.test("missingPostgres() names what a PostgreSQL test misses and how to get it", async () => {
  assert.match(
    missingPostgres(undefined, { vector: false })!,
    /^no PostgreSQL in \/usr\/lib\/postgresql\/<version>\/bin \(apt-get install postgresql-15, or set SVC_POSTGRES_BIN\)$/,
  );
  // Programs of a PostgreSQL whose version has no pgvector installed beside it.
  await using folder = await tmpDir();
  const bin = `${folder.path}/0/bin`;
  assert.equal(missingPostgres(bin, { vector: false }), undefined);
  assert.equal(
    missingPostgres(bin, { vector: true }),
    `the PostgreSQL of ${bin} has no pgvector (no /usr/share/postgresql/0/extension/` +
      "vector.control): run .ci/setup-pgvector.sh as root to build it",
  );
});
