/**
 * Helpers shared by the document handler tests.
 * @module
 */
import assert from "node:assert/strict";
import { crc32, deflateRawSync } from "node:zlib";
import { SvcError } from "../../components/core/errors.ts";

/** The bytes of a file in tests/fixtures/ (made by tests/fixtures/make.sh). */
export function fixture(name: string): Promise<Uint8Array> {
  return Deno.readFile(new URL(`../fixtures/${name}`, import.meta.url));
}

/**
 * A validator for `assert.rejects` and `assert.throws`: the error must be a 422 `SvcError` whose
 * message is exactly `message`.
 */
export function refusal(message: string): (error: unknown) => true {
  return (error) => {
    assert.ok(error instanceof SvcError, `expected an SvcError, got ${error}`);
    assert.equal(error.message, message);
    assert.equal(error.status, 422);
    return true;
  };
}

/**
 * A ZIP archive of the files given, each deflated by zlib: a generated file of a hundred
 * megabytes of parts takes a moment, where jszip takes seconds.
 */
export function zipOf(files: Record<string, string | Uint8Array>): Uint8Array<ArrayBuffer> {
  const encoder = new TextEncoder();
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const [path, content] of Object.entries(files)) {
    const name = encoder.encode(path);
    const data = typeof content === "string" ? encoder.encode(content) : content;
    const deflated = deflateRawSync(data);
    const fields = (header: DataView, at: number) => {
      header.setUint16(at, 20, true); // version needed
      header.setUint16(at + 4, 8, true); // deflated
      header.setUint32(at + 10, crc32(data), true);
      header.setUint32(at + 14, deflated.length, true);
      header.setUint32(at + 18, data.length, true);
      header.setUint16(at + 22, name.length, true);
    };
    const local = new Uint8Array(30 + name.length);
    const localView = new DataView(local.buffer);
    localView.setUint32(0, 0x04034b50, true);
    fields(localView, 4);
    local.set(name, 30);
    const central = new Uint8Array(46 + name.length);
    const centralView = new DataView(central.buffer);
    centralView.setUint32(0, 0x02014b50, true);
    centralView.setUint16(4, 20, true); // version made by
    fields(centralView, 6);
    centralView.setUint32(42, offset, true);
    central.set(name, 46);
    locals.push(local, deflated);
    centrals.push(central);
    offset += local.length + deflated.length;
  }
  const directorySize = centrals.reduce((sum, central) => sum + central.length, 0);
  const end = new Uint8Array(22);
  const endView = new DataView(end.buffer);
  endView.setUint32(0, 0x06054b50, true);
  endView.setUint16(8, centrals.length, true);
  endView.setUint16(10, centrals.length, true);
  endView.setUint32(12, directorySize, true);
  endView.setUint32(16, offset, true);
  const parts = [...locals, ...centrals, end];
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}
