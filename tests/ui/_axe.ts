/**
 * axe-core in the browser tests: the page as it stands is checked, and a
 * serious or critical violation fails the test with what and where it is.
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "npm:playwright-core@1.65.1";

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * Runs axe-core on the page and fails on any serious or critical violation,
 * naming the rule and the elements. axe is put in by the driver, not by a
 * script tag, which the UI's content security policy would refuse.
 */
export async function assertAccessible(page: Page, where: string): Promise<void> {
  // Colors caught half-way through a transition (after a switch to dark) are no colors of the page.
  await page.evaluate(
    "Promise.all(document.getAnimations().filter((a) => a.effect?.getComputedTiming().endTime " +
      "!== Infinity).map((a) => a.finished.catch(() => {})))",
  );
  const loaded = await page.evaluate("typeof globalThis.axe === 'object'");
  if (!loaded) {
    const { default: axe } = await import("npm:axe-core@4.14.1");
    await page.evaluate((axe as unknown as { source: string }).source);
  }
  const violations = await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
  ) as Violation[];
  const serious = violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) =>
      `${violation.id} (${violation.impact}): ${violation.help} at ${
        violation.nodes.map((node) => node.target.join(" ")).join(", ")
      }`
    );
  assert.deepEqual(serious, [], `axe finds no serious violation ${where}`);
}
