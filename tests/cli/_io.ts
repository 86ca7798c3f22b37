/**
 * The output of a CLI command, captured for a test.
 * @module
 */
import type { Io } from "../../cli/context.ts";

/** An {@linkcode Io} that keeps what is written to each stream, as text. */
export interface CapturedIo extends Io {
  stdout: string;
  stderr: string;
}

/** Streams for `run()` and the commands that keep what they write, for the test to read. */
export function capture(): CapturedIo {
  const io: CapturedIo = {
    stdout: "",
    stderr: "",
    out: (text) => void (io.stdout += text),
    err: (text) => void (io.stderr += text),
  };
  return io;
}
