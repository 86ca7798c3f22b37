/**
 * Document pills: a chat header shows a bounded number of them.
 * @module
 */

/** The most document pills a chat header shows; the rest sit behind "+N more". */
export const PILL_LIMIT = 20;

/**
 * The items shown as pills and those behind the "+N more" marker.
 *
 * @example
 * ```ts
 * import { splitPills } from "./pills.ts";
 * const { shown, hidden } = splitPills([1, 2, 3], 2);
 * console.assert(shown.length === 2 && hidden.length === 1);
 * ```
 */
export function splitPills<T>(items: readonly T[], limit: number = PILL_LIMIT): {
  shown: T[];
  hidden: T[];
} {
  return { shown: items.slice(0, limit), hidden: items.slice(limit) };
}
