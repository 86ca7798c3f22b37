/**
 * How far a drawn page zooms: in steps, as parts of its width fitted to the view.
 * @module
 */

/** The zooms of a drawn page, as parts of its width fitted to the view; 1 is fit width. */
export const ZOOMS: readonly number[] = [0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4];

/**
 * The next zoom of {@linkcode ZOOMS} in or out (`step` 1 or -1) from `zoom`;
 * `zoom` itself at either end.
 *
 * @example
 * ```ts
 * import { nextZoom } from "./zoom.ts";
 * console.assert(nextZoom(1, 1) === 1.25 && nextZoom(1, -1) === 0.75 && nextZoom(4, 1) === 4);
 * ```
 */
export function nextZoom(zoom: number, step: 1 | -1): number {
  const next = step > 0
    ? ZOOMS.find((candidate) => candidate > zoom + 1e-9)
    : ZOOMS.findLast((candidate) => candidate < zoom - 1e-9);
  return next ?? zoom;
}
