/**
 * The bounded fuzz run of the test suite: 150 cases per format, each in its own process so that
 * the memory bound is the process's own (V8 heap capped, peak resident memory checked per case).
 * The long run is `deno task fuzz`.
 * @module
 */
import assert from "node:assert/strict";
import { denoArgs, run } from "../_process.ts";
import { FORMATS, type FuzzReport } from "./fuzz.ts";
import { integration } from "../_tier.ts";

const CASES = 150;
/** Fixed, so that the suite is deterministic; set SVC_FUZZ_SEED to explore. */
const SEED = Deno.env.get("SVC_FUZZ_SEED") ?? "20261126";
const FUZZ = new URL("./fuzz.ts", import.meta.url).pathname;

for (const format of Object.keys(FORMATS)) {
  integration.test(`${CASES} mutated ${format} documents each end in pages or a 422, in time and memory`, async () => {
    // Niced where the system can, so that the timing tests running beside it keep their CPU.
    const [command, ...prefix] = Deno.build.os === "windows"
      ? [Deno.execPath()]
      : ["nice", "-n", "10", Deno.execPath()];
    const output = await run(command!, [
      ...prefix,
      ...denoArgs("run", "-A", "--v8-flags=--max-old-space-size=1024", FUZZ),
      ...["--cases", String(CASES), "--seed", SEED, "--format", format, "--json", "--verbose"],
      // Generous: cases take well under a second, but the machine may be busy.
      ...["--timeout", "15000", "--max-rss", String(1.5 * 1024 ** 3)],
    ], { deadline: 600_000 });
    const lastCases = output.stderr.trimEnd().split("\n").slice(-5).join("\n");
    const stdout = output.stdout.trim();
    assert.ok(stdout, `the fuzzer died (exit ${output.code}); its last cases:\n${lastCases}`);
    const report: FuzzReport = JSON.parse(stdout.split("\n").at(-1)!);
    const failures = report.failures.map((f) =>
      `${f.format}#${f.index} ${f.outcome}: ${f.mutation} -> ${f.detail.split("\n")[0]}`
    );
    assert.deepEqual(failures, [], `seed ${SEED}`);
    const counts = report.formats[format as keyof typeof FORMATS]!;
    assert.equal(counts.cases, CASES);
    assert.equal(counts.pages + counts.refused, CASES);
    assert.equal(output.code, 0, lastCases);
  });
}
