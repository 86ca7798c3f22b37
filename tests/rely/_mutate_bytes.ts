/**
 * Mutations that know nothing of the format: truncation, bit flips, and runs of bytes
 * overwritten, cut out or repeated.
 * @module
 */
import type { Rng } from "./_rng.ts";

/** A mutated file and what was done to it, in words. */
export interface Mutant {
  bytes: Uint8Array;
  mutation: string;
}

/** Makes a mutant of a file; `undefined` when the file offers nothing to mutate this way. */
export type Mutator = (
  bytes: Uint8Array,
  rng: Rng,
) => Mutant | undefined | Promise<Mutant | undefined>;

/** Cuts the file at a random point, keeping at least one byte. */
export function truncate(bytes: Uint8Array, rng: Rng): Mutant {
  const at = rng.int(1, bytes.length);
  return { bytes: bytes.slice(0, at), mutation: `truncated to ${at} of ${bytes.length} bytes` };
}

/** Flips 1 to 16 random bits. */
export function flipBits(bytes: Uint8Array, rng: Rng): Mutant {
  const out = bytes.slice();
  const count = rng.int(1, 17);
  const at: number[] = [];
  for (let i = 0; i < count; i++) {
    const bit = rng.int(0, out.length * 8);
    out[bit >> 3]! ^= 1 << (bit & 7);
    at.push(bit);
  }
  return { bytes: out, mutation: `flipped bits ${at.join(", ")}` };
}

/** Overwrites a run of 1 to 4096 bytes with random bytes, zeros or 0xff. */
export function overwriteRun(bytes: Uint8Array, rng: Rng): Mutant {
  const out = bytes.slice();
  const length = Math.min(rng.pick([1, 4, 16, 64, 256, 4096]), out.length);
  const start = rng.int(0, out.length - length + 1);
  const fill = rng.pick(["random", "zero", "ff"] as const);
  const run = fill === "random"
    ? rng.bytes(length)
    : new Uint8Array(length).fill(fill === "zero" ? 0 : 0xff);
  out.set(run, start);
  return { bytes: out, mutation: `overwrote ${length} bytes at ${start} with ${fill} bytes` };
}

/** Cuts a run of bytes out of the middle. */
export function deleteRun(bytes: Uint8Array, rng: Rng): Mutant {
  const length = Math.min(rng.pick([1, 16, 256, 4096]), bytes.length - 1);
  const start = rng.int(0, bytes.length - length);
  const out = new Uint8Array(bytes.length - length);
  out.set(bytes.subarray(0, start));
  out.set(bytes.subarray(start + length), start);
  return { bytes: out, mutation: `deleted ${length} bytes at ${start}` };
}

/** Repeats a run of bytes in place, 2 to 64 times. */
export function repeatRun(bytes: Uint8Array, rng: Rng): Mutant {
  const length = Math.min(rng.pick([1, 16, 256]), bytes.length);
  const start = rng.int(0, bytes.length - length + 1);
  const times = rng.int(2, 65);
  const run = bytes.subarray(start, start + length);
  const out = new Uint8Array(bytes.length + length * (times - 1));
  out.set(bytes.subarray(0, start));
  for (let i = 0; i < times; i++) out.set(run, start + i * length);
  out.set(bytes.subarray(start + length), start + times * length);
  return { bytes: out, mutation: `repeated ${length} bytes at ${start} ${times} times` };
}

/** The mutations every format gets. */
export const BYTE_MUTATORS: readonly Mutator[] = [
  truncate,
  flipBits,
  overwriteRun,
  deleteRun,
  repeatRun,
];

/** Bytes as a string of the same length, one char per byte, for regular expressions. */
export function latin1(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return text;
}

/** The inverse of {@linkcode latin1}: chars above 0xff are not expected. */
export function fromLatin1(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}
