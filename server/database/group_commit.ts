/**
 * Committing the writes that queued up together, so that many concurrent
 * writes cost one sync to disk rather than one each.
 * @module
 */
import type { Client, Transaction } from "@libsql/client";

/** A write waiting for the next commit, and how to tell its caller. */
export interface PendingWrite {
  work: (tx: Transaction) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs the writes in order in one write transaction, then commits them. With
 * more than one, each runs in its own savepoint, so that a write that fails is
 * undone and refused alone. A write is confirmed only once the commit is done:
 * if the transaction fails as a whole, every write of it is refused. A file's
 * commit waits for the disk while the event loop waits with it (the client is
 * synchronous), which is why writes that arrive meanwhile share the next one.
 */
export async function commitTogether(
  client: Client,
  writes: PendingWrite[],
  refusal: (error: unknown) => unknown,
): Promise<void> {
  const outcomes: ({ value: unknown } | { error: unknown })[] = [];
  let tx: Transaction | undefined;
  try {
    tx = await client.transaction("write");
    if (writes.length === 1) {
      outcomes.push({ value: await writes[0]!.work(tx) });
    } else {
      for (const write of writes) outcomes.push(await inSavepoint(tx, write));
    }
    await tx.commit();
  } catch (error) {
    // A failed rollback changes nothing: no write was confirmed, and `close`
    // below drops the transaction either way.
    await tx?.rollback().catch(() => {});
    for (const write of writes) write.reject(refusal(error));
    return;
  } finally {
    tx?.close();
  }
  writes.forEach((write, i) => {
    const outcome = outcomes[i]!;
    if ("value" in outcome) write.resolve(outcome.value);
    else write.reject(refusal(outcome.error));
  });
}

async function inSavepoint(
  tx: Transaction,
  write: PendingWrite,
): Promise<{ value: unknown } | { error: unknown }> {
  await tx.execute("SAVEPOINT svc_write");
  try {
    const value = await write.work(tx);
    await tx.execute("RELEASE svc_write");
    return { value };
  } catch (error) {
    // Undoing the savepoint is what keeps the other writes; if it fails, the
    // transaction is broken and the whole group fails.
    await tx.execute("ROLLBACK TO svc_write");
    await tx.execute("RELEASE svc_write");
    return { error };
  }
}
