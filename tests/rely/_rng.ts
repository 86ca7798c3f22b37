/**
 * A small seeded pseudo-random generator (mulberry32), so that every fuzz case can be made again
 * from its seed alone.
 * @module
 */

/** A deterministic source of random numbers. */
export class Rng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * Math.max(max - min, 0));
  }

  /** One of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length)]!;
  }

  /** `count` random bytes. */
  bytes(count: number): Uint8Array {
    const bytes = new Uint8Array(count);
    for (let i = 0; i < count; i++) bytes[i] = this.int(0, 256);
    return bytes;
  }
}

/** The seed of one case: the run's seed, the format and the case's index, mixed. */
export function caseSeed(seed: number, format: string, index: number): number {
  let hash = (seed ^ 0x9e3779b9) >>> 0;
  for (const char of `${format}#${index}`) {
    hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  }
  return hash;
}
