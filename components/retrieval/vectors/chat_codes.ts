/**
 * The vector arm's candidates over a chat's codes. A large chat's codes are
 * laid end to end (a copy of its indexes', kept for the chats searched last)
 * and scanned on a thread of their own: each dimension is one run of bytes
 * that the processor reads ahead of the scan rather than one short run an
 * index, and the scan runs on the second core while the main thread ranks the
 * full-text arm.
 * @module
 */
import { ChatViews } from "../chat_views.ts";
import { ThreadCodes } from "./code_scan_thread.ts";
import { indexAt, startsOf } from "../positions.ts";
import { type CodeHit, nearestCodes, VectorCodes } from "./vector_codes.ts";

// A chat of this many chunks or more, in several indexes, is scanned with its
// codes laid end to end on the scan thread: over 100,000 chunks in 1,000
// indexes, the scan took 4.5 ms rather than 8.0 (a smaller chat's codes
// mostly fit the caches, and its scan takes less than a thread's reply).
const LAID_END_TO_END = 10_000;
// The most bytes of codes kept so laid: one chat of some 120,000 chunks of
// 512 dimensions, or several smaller ones.
const LAID_BYTES = 64 * 2 ** 20;

const laidEndToEnd = new ChatViews<VectorCodes, ThreadCodes>(
  LAID_BYTES,
  (codes) => codes.discard(),
);

/**
 * {@linkcode nearestCodes} of a chat's indexes: the same candidates in the
 * same order, however they are scanned.
 */
export async function nearestChatCodes(
  indexes: readonly VectorCodes[],
  query: Float32Array,
  count: number,
): Promise<CodeHit[]> {
  const size = indexes.reduce((sum, index) => sum + index.size, 0);
  const bytes = size * query.length;
  if (indexes.length < 2 || size < LAID_END_TO_END || bytes > LAID_BYTES) {
    return nearestCodes(indexes, query, count);
  }
  const laid = laidEndToEnd.find(indexes) ??
    laidEndToEnd.add(indexes, bytes, (parts) => ThreadCodes.lay(VectorCodes.lay(parts)));
  let positions: Int32Array;
  try {
    positions = await laid.nearest(query, count);
  } catch {
    // The thread stopped, and its codes with it: scanned here this time, laid again the next.
    laidEndToEnd.drop(laid);
    return nearestCodes(indexes, query, count);
  }
  const starts = startsOf(indexes);
  return Array.from(positions, (position) => {
    const index = indexAt(starts, position);
    return { index, chunk: position - starts[index]! };
  });
}
