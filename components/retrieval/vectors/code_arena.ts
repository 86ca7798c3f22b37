/**
 * Where the vector arm's 8-bit codes live: the memory of the WebAssembly
 * that scans them (`code_scan.wat`), sixteen codes an instruction, twice as
 * fast as the same sums in JavaScript over a chat of 100,000 chunks (whose
 * codes do not fit the processor's caches: the scan waits on memory as much
 * as it adds). Each index's codes are a block of that memory, given back when
 * the search cache drops the index (a search that still holds it copies them
 * back for its turn), or when nothing holds it any more: a block is then
 * reused, and the memory, which WebAssembly cannot shrink, grows only when no
 * free block is large enough.
 * @module
 */
import { CODE_SCAN_WASM } from "./code_scan_wasm.ts";

const PAGE_BYTES = 65536;
// WebAssembly's memory of 32-bit addresses: 4 GiB.
const MAX_PAGES = 65536;
// Blocks start on 16 bytes, where a vector instruction loads them fastest.
const ALIGNMENT = 16;

/** A stretch of the memory: its first byte, and its length. */
export interface Block {
  offset: number;
  bytes: number;
}

/**
 * The blocks of a growable memory: first fit among the free ones, else at
 * the end, the memory grown by `grow` (in pages of 64 KiB) when it must.
 * Neighbouring free blocks are merged, and a free block at the end is given
 * back to the end.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Blocks } from "./code_arena.ts";
 * const blocks = new Blocks(0, () => {});
 * const a = blocks.take(100);
 * const b = blocks.take(50);
 * assert.deepEqual([a.offset, b.offset], [0, 112]);
 * blocks.give(a);
 * assert.equal(blocks.take(60).offset, 0);
 * ```
 */
export class Blocks {
  // Sorted by offset, none touching another or the end.
  readonly #free: Block[] = [];
  #end: number;
  #size: number;
  readonly #grow: (pages: number) => void;

  /** Blocks from `start` on, in a memory of `size` bytes that `grow` adds pages to. */
  constructor(start: number, grow: (pages: number) => void, size = 0) {
    this.#end = align(start);
    this.#size = size;
    this.#grow = grow;
  }

  /** The bytes from the first block to the end of the last one taken. */
  get end(): number {
    return this.#end;
  }

  /** A block of at least `bytes` bytes. */
  take(bytes: number): Block {
    const size = align(Math.max(bytes, 1));
    const at = this.#free.findIndex((block) => block.bytes >= size);
    if (at >= 0) {
      const block = this.#free[at]!;
      const taken = { offset: block.offset, bytes: size };
      if (block.bytes === size) this.#free.splice(at, 1);
      else this.#free[at] = { offset: block.offset + size, bytes: block.bytes - size };
      return taken;
    }
    const offset = this.#end;
    if (offset + size > this.#size) {
      const pages = Math.ceil((offset + size - this.#size) / PAGE_BYTES);
      this.#grow(pages);
      this.#size += pages * PAGE_BYTES;
    }
    this.#end = offset + size;
    return { offset, bytes: size };
  }

  /** Gives back a block that {@linkcode Blocks.take} gave. */
  give(block: Block): void {
    let offset = block.offset;
    let bytes = block.bytes;
    let at = this.#free.findIndex((free) => free.offset > offset);
    if (at < 0) at = this.#free.length;
    const before = this.#free[at - 1];
    if (before && before.offset + before.bytes === offset) {
      offset = before.offset;
      bytes += before.bytes;
      this.#free.splice(--at, 1);
    }
    const after = this.#free[at];
    if (after && offset + bytes === after.offset) {
      bytes += after.bytes;
      this.#free.splice(at, 1);
    }
    if (offset + bytes === this.#end) this.#end = offset;
    else this.#free.splice(at, 0, { offset, bytes });
  }
}

/**
 * Writes the dot products of the `stride` vectors of the codes at `codes`
 * (laid out as `VectorCodes` lays them, `stride` a multiple of 16) with
 * integer weights over `count` dimensions (an even number), both at offsets
 * of the memory, to `stride` 32-bit integers at `out`: the dimensions
 * `count` 32-bit integers, the weights `count / 2`, each two of 16 bits (the
 * first dimension's of a pair in the low half).
 */
export type Dots = (
  codes: number,
  stride: number,
  dims: number,
  weights: number,
  count: number,
  out: number,
) => void;

/** The scan's WebAssembly and the blocks of its memory. */
interface CodeScan {
  memory: WebAssembly.Memory;
  blocks: Blocks;
  dots: Dots;
}

let scan: CodeScan | undefined;
// Gives back the block of a holder that nothing holds any more.
const released = new FinalizationRegistry<Block>((block) => scan?.blocks.give(block));

function codeScan(): CodeScan {
  if (!scan) {
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(CODE_SCAN_WASM));
    const memory = exports.memory as WebAssembly.Memory;
    const grow = (pages: number) => {
      if (memory.buffer.byteLength / PAGE_BYTES + pages > MAX_PAGES) {
        throw new RangeError(
          "The vector codes of the indexes kept for searching would take more than 4 GiB",
        );
      }
      memory.grow(pages);
    };
    scan = {
      memory,
      blocks: new Blocks(0, grow, memory.buffer.byteLength),
      dots: exports.dots as CodeScan["dots"],
    };
  }
  return scan;
}

/**
 * A block of `bytes` bytes of the scan's memory for `holder`, given back
 * by {@linkcode giveBlock}, or once `holder` is collected.
 */
export function holdBlock(holder: object, bytes: number): Block {
  const block = codeScan().blocks.take(bytes);
  released.register(holder, block, holder);
  return block;
}

/** Gives back the block that {@linkcode holdBlock} gave `holder`. */
export function giveBlock(holder: object, block: Block): void {
  released.unregister(holder);
  codeScan().blocks.give(block);
}

/** A scratch block, given back by `using`: for what one scan needs beside the codes. */
export function scratchBlock(bytes: number): Block & Disposable {
  const { blocks } = codeScan();
  const block = blocks.take(bytes);
  return { ...block, [Symbol.dispose]: () => blocks.give(block) };
}

/**
 * The scan's memory as bytes. A view made before a block was taken may be
 * detached (the memory grew): make it after taking the blocks a scan needs.
 */
export function scanBytes(): Int8Array {
  return new Int8Array(codeScan().memory.buffer);
}

/** The same memory as 32-bit integers (offsets of blocks divided by 4). */
export function scanIntegers(): Int32Array {
  return new Int32Array(codeScan().memory.buffer);
}

/** The scan's {@linkcode Dots}. */
export function dots(...args: Parameters<Dots>): void {
  codeScan().dots(...args);
}

function align(bytes: number): number {
  return Math.ceil(bytes / ALIGNMENT) * ALIGNMENT;
}
