/**
 * The reference for `svc --version` in `bench/start_bench.ts`: a script that
 * prints one line, started the same way.
 * @module
 */

console.log("svc 0.0.0");
