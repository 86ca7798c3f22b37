/**
 * The test tiers. `deno task test` runs every test. `deno task test:unit`
 * sets env `SVC_TEST_TIER=unit` and preloads `_unit_tier.ts`: it runs what
 * needs no browser, no PostgreSQL and no child process (no `svc api`, no
 * Chroma, no spawned `deno`, no `pdftotext`), and no test of seconds of work,
 * so that it gives its answer in about a minute. It leaves the type checks
 * to `deno task ok`, which runs them once, doc examples included, before it.
 *
 * A test that starts any of these is an {@linkcode integration} test
 * (`postgresTest` and `browserTest` make theirs so), and a test whose own
 * work takes seconds is a {@linkcode slow} one; the unit tier leaves both
 * out. The mark is on the test itself, so a test keeps its tier wherever its
 * file moves. A test that forgets it fails loudly in the unit tier: the
 * helpers that start children and clusters refuse there, and `_unit_tier.ts`
 * makes whatever starts a process without them refuse too.
 *
 * @example
 * ```ts ignore
 * integration.test("svc --version prints the version", async () => {
 *   const ended = await run(Deno.execPath(), denoArgs("run", "-A", MAIN, "--version"));
 *   assert.equal(ended.code, 0);
 * });
 * ```
 * @module
 */

/** The environment variable that names the tier; `unit` for the unit tier, else every test. */
export const TIER_VARIABLE = "SVC_TEST_TIER";

/** Whether this run is the unit tier. */
export function unitTier(): boolean {
  return Deno.env.get(TIER_VARIABLE) === "unit";
}

/** A test function, as `Deno.test` takes it. */
type TestFn = (t: Deno.TestContext) => void | Promise<void>;

/** A kind of test that only the whole suite runs. */
export interface WholeSuiteTests {
  /** Whether this run leaves them out: the unit tier. */
  readonly ignore: boolean;
  /**
   * `Deno.test` for such a test: its name and function, or its whole
   * definition, whose own `ignore` still counts.
   */
  test(nameOrDefinition: string | Deno.TestDefinition, fn?: TestFn): void;
}

function wholeSuiteTests(): WholeSuiteTests {
  const tests: WholeSuiteTests = {
    ignore: unitTier(),
    test(nameOrDefinition, fn) {
      const definition = typeof nameOrDefinition === "string"
        ? { name: nameOrDefinition, fn: fn! }
        : nameOrDefinition;
      Deno.test({ ...definition, ignore: tests.ignore || definition.ignore });
    },
  };
  return tests;
}

/**
 * The tests that start a child process, a server process, PostgreSQL or a
 * browser: `deno task test` runs them, the unit tier leaves them out.
 */
export const integration: WholeSuiteTests = wholeSuiteTests();

/**
 * The tests whose own work takes seconds of a core (a whole labelled set
 * ranked or answered, a tokenizer checked at every cut of every fixture,
 * hundreds of writes compacted): `deno task test` runs them, the unit tier
 * leaves them out to keep to its minute.
 */
export const slow: WholeSuiteTests = wholeSuiteTests();

/**
 * Throws when this run is the unit tier, which starts no `what` (a child
 * process, PostgreSQL, a browser), naming how its test leaves the tier.
 */
export function refuseInUnitTier(what: string): void {
  if (!unitTier()) return;
  throw new Error(
    `Cannot start ${what} in the unit tier: make its test integration.test() (tests/_tier.ts), ` +
      "postgresTest() or browserTest(), so that only deno task test runs it",
  );
}
