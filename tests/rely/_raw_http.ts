/**
 * HTTP/1.1 requests written byte by byte on a TCP connection, so that a test
 * can cut one off at any offset, stop sending halfway, or send a body that the
 * server refuses while it is still coming: what `fetch` cannot do.
 * @module
 */
import { pause } from "./_server.ts";

const encoder = new TextEncoder();

/** A request as bytes, and where its body starts. */
export interface RawRequest {
  bytes: Uint8Array;
  /** The offset of the body's first byte (the end of the headers). */
  bodyStart: number;
}

/** Options of {@linkcode rawRequest}. */
export interface RawRequestOptions {
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/** `METHOD path HTTP/1.1` with a `Host`, the headers, a `Content-Length` and the body. */
export function rawRequest(
  method: string,
  path: string,
  options: RawRequestOptions = {},
): RawRequest {
  const body = typeof options.body === "string"
    ? encoder.encode(options.body)
    : options.body ?? new Uint8Array();
  const headers = { host: "127.0.0.1", ...options.headers, "content-length": `${body.length}` };
  const head = encoder.encode(
    `${method} ${path} HTTP/1.1\r\n` +
      Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("") + "\r\n",
  );
  const bytes = new Uint8Array(head.length + body.length);
  bytes.set(head);
  bytes.set(body, head.length);
  return { bytes, bodyStart: head.length };
}

/** A part of a multipart body: a field, or a file with its name. */
export type Part = { name: string; value: string } | {
  name: string;
  filename: string;
  content: string | Uint8Array;
};

/** A `multipart/form-data` body of `parts` in their order, and its content type. */
export function multipart(parts: Part[]): { body: Uint8Array; type: string } {
  const boundary = `svc-raw-${crypto.randomUUID()}`;
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    if ("value" in part) {
      chunks.push(encoder.encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n` +
          `${part.value}\r\n`,
      ));
    } else {
      chunks.push(encoder.encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; ` +
          `filename="${part.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ));
      chunks.push(typeof part.content === "string" ? encoder.encode(part.content) : part.content);
      chunks.push(encoder.encode("\r\n"));
    }
  }
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  const body = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

/** Where `text` first starts in `bytes`, which must hold it. */
export function offsetOf(bytes: Uint8Array, text: string): number {
  const needle = encoder.encode(text);
  outer: for (let i = 0; i + needle.length <= bytes.length; i++) {
    for (let j = 0; j < needle.length; j++) if (bytes[i + j] !== needle[j]) continue outer;
    return i;
  }
  throw new Error(`The request does not hold ${JSON.stringify(text)}`);
}

/**
 * Sends the first `offset` bytes of `bytes`, waits `wait` milliseconds so that
 * the server reads them, and closes the connection without reading a reply.
 */
export async function cutOff(
  port: number,
  bytes: Uint8Array,
  offset: number,
  wait = 20,
): Promise<void> {
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    if (offset > 0) await writeAll(connection, bytes.subarray(0, offset));
    await pause(wait);
  } finally {
    connection.close();
  }
}

/** A response as read from the connection. */
export interface RawResponse {
  status: number;
  headers: string;
  body: string;
}

/**
 * Sends `bytes` while reading the reply, as a client does that goes on
 * sending after the server answered. Write errors (the server closed its
 * side) are ignored: the reply is what counts.
 */
export async function exchange(port: number, bytes: Uint8Array): Promise<RawResponse> {
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  const writing = writeAll(connection, bytes).catch(() => {});
  try {
    return await readResponse(connection);
  } finally {
    connection.close();
    await writing;
  }
}

/**
 * Reads one HTTP/1.1 response, sized by its `Content-Length` or sent in
 * chunks; it does not wait for the connection to close (after a 408, svc
 * leaves that to the client).
 */
export async function readResponse(connection: Deno.Conn): Promise<RawResponse> {
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(16 * 1024);
  let text = "";
  while (true) {
    let n: number | null;
    try {
      n = await connection.read(buffer);
    } catch {
      n = null;
    }
    if (n !== null) text += decoder.decode(buffer.subarray(0, n), { stream: true });
    const response = parseResponse(text);
    if (response) return response;
    if (n === null) throw new Error(`The connection closed before a whole reply: ${text}`);
  }
}

/** The response in `text` once it is whole, else `undefined`. */
function parseResponse(text: string): RawResponse | undefined {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const headers = text.slice(0, end);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]);
  let rest = text.slice(end + 4);
  const length = /^content-length:\s*(\d+)/im.exec(headers)?.[1];
  if (length !== undefined) {
    const bytes = new TextEncoder().encode(rest);
    if (bytes.length < Number(length)) return undefined;
    return { status, headers, body: new TextDecoder().decode(bytes.subarray(0, Number(length))) };
  }
  let body = "";
  while (true) {
    const line = rest.indexOf("\r\n");
    if (line < 0) return undefined;
    const size = parseInt(rest.slice(0, line), 16);
    const bytes = new TextEncoder().encode(rest.slice(line + 2));
    if (bytes.length < size + 2) return undefined;
    if (size === 0) return { status, headers, body };
    body += new TextDecoder().decode(bytes.subarray(0, size));
    rest = new TextDecoder().decode(bytes.subarray(size + 2));
  }
}

/** Writes all of `bytes`. */
export async function writeAll(connection: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await connection.write(bytes.subarray(written));
}
