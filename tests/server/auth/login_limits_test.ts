import assert from "node:assert/strict";
import { LoginLimits } from "../../../server/auth/login_limits.ts";
import { RetryLaterError } from "../../../server/retry_later.ts";

const START = Date.parse("2026-01-01T00:00:00Z");

function limits(options: { perUserAddress?: number; perAddress?: number; perUser?: number }) {
  const clock = { now: START };
  const made = new LoginLimits({
    perUserAddress: options.perUserAddress ?? 3,
    perAddress: options.perAddress ?? 100,
    perUser: options.perUser ?? 100,
    window: 60,
    now: () => clock.now,
  });
  return { limits: made, clock };
}

/** The message of the refusal of a reservation, or `undefined` when it was let through. */
async function refusal(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    assert.ok(error instanceof RetryLaterError, String(error));
    return `${error.message} (${error.retryAfter})`;
  }
}

Deno.test("LoginLimits.reserve() lets at most the limit of logins at once through, whatever they race", async () => {
  const { limits: made } = limits({ perUserAddress: 10 });
  const results = await Promise.all(
    Array.from({ length: 40 }, () => refusal(made.reserve("ada", "10.0.0.1"))),
  );
  assert.equal(results.filter((result) => result === undefined).length, 10);
  assert.deepEqual(
    new Set(results.filter((result) => result !== undefined)),
    new Set([
      'Too many failed logins for "ada" from the address 10.0.0.1: 10 in 1 min; try ' +
      "again in 60 s (60)",
    ]),
  );
});

Deno.test("LoginLimits keeps a user's failures from one address from locking it out from another", async () => {
  const { limits: made, clock } = limits({ perUserAddress: 3, perUser: 5 });
  for (let i = 0; i < 3; i++) await made.reserve("ada", "203.0.113.9");
  clock.now += 10_000;
  assert.equal(
    await refusal(made.reserve("ada", "203.0.113.9")),
    'Too many failed logins for "ada" from the address 203.0.113.9: 3 in 1 min; try again in ' +
      "50 s (50)",
  );
  // The owner, elsewhere, is let in, and its success forgets its own failures there only.
  const owner = await made.reserve("ada", "198.51.100.7");
  await made.reserve("ada", "198.51.100.7");
  await made.succeeded(owner);
  assert.ok(await refusal(made.reserve("ada", "203.0.113.9")), "the attacker's stay counted");
  // Past the ceiling of all addresses together, every address is refused, until an unlock.
  await made.reserve("ada", "192.0.2.1");
  await made.reserve("ada", "192.0.2.2");
  assert.equal(
    await refusal(made.reserve("ada", "198.51.100.7")),
    'Too many failed logins for "ada" from all addresses together: 5 in 1 min; try again in ' +
      '50 s, or ask an administrator to run "svc user unlock" (50)',
  );
  clock.now += 50_000;
  assert.equal(await refusal(made.reserve("ada", "198.51.100.7")), undefined, "once it passed");
});

Deno.test("LoginLimits counts an address whichever users it names, and an IPv6 client by its /64", async () => {
  const { limits: made } = limits({ perAddress: 4 });
  for (const user of ["a", "b", "c", "d"]) await made.reserve(user, "2001:db8:0:1::a");
  assert.equal(
    await refusal(made.reserve("grace", "2001:db8:0:1:ffff::1")),
    "Too many failed logins from the network 2001:db8:0:1::/64: 4 in 1 min; try again in 60 s " +
      "(60)",
  );
  assert.equal(await refusal(made.reserve("grace", "2001:db8:0:2::1")), undefined);
  assert.equal(await refusal(made.reserve("grace", undefined)), undefined, "an unknown address");
});

Deno.test("LoginLimits forgets a login that succeeded, and the failures of its user from its address", async () => {
  const { limits: made } = limits({ perUserAddress: 3 });
  await made.reserve("ada", "10.0.0.1");
  await made.reserve("ada", "10.0.0.1");
  await made.succeeded(await made.reserve("ada", "10.0.0.1"));
  for (let i = 0; i < 3; i++) await made.reserve("ada", "10.0.0.1");
  assert.ok(await refusal(made.reserve("ada", "10.0.0.1")));
});
