/**
 * Loaded before each test module of the unit tier (`deno task test:unit` passes it to
 * `--preload`): whatever starts a child process without the helpers of `_process.ts`, directly
 * with `Deno.Command` or through a package that uses `node:child_process` (esbuild, playwright),
 * fails with the same sentence as the helpers, naming the command. The rest of `-A` stays as it
 * is, so that svc runs under test as it runs for its users.
 * @module
 */
import childProcess from "node:child_process";
import { refuseInUnitTier } from "./_tier.ts";

const Command = Deno.Command;
Deno.Command = class extends Command {
  constructor(command: string | URL, options?: Deno.CommandOptions) {
    refuseInUnitTier(`the child process "${[command, ...options?.args ?? []].join(" ")}"`);
    super(command, options);
  }
};

const starters = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"];
for (const name of starters) {
  const start = (childProcess as unknown as Record<string, (...args: unknown[]) => unknown>)[name]!;
  Object.assign(childProcess, {
    [name](...args: unknown[]) {
      refuseInUnitTier(`the child process of node:child_process's ${name}("${args[0]}")`);
      return start(...args);
    },
  });
}
