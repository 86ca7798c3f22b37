import assert from "node:assert/strict";
import { PasswordAuthentication } from "../../../server/auth/password.ts";
import { TrustedProxies, trustedProxies } from "../../../server/auth/trusted_proxies.ts";
import { testApi } from "../api/_api.ts";

Deno.test("trustedProxies() reads a JSON list of addresses and IPv4 networks, none when unset", () => {
  assert.equal(trustedProxies(undefined).empty, true);
  assert.equal(trustedProxies(" ").empty, true);
  const proxies = trustedProxies('["10.0.0.0/8", "::1", "0:0:0:0:0:0:0:2"]');
  assert.equal(proxies.has("10.200.3.4"), true);
  assert.equal(proxies.has("11.0.0.1"), false);
  assert.equal(proxies.has("::1"), true);
  assert.equal(proxies.has("::2"), true);
});

Deno.test("trustedProxies() refuses what is not a list of addresses, naming the variable", () => {
  assert.throws(() => trustedProxies("127.0.0.1"), {
    message: 'SVC_API_TRUSTED_PROXIES must be a JSON list of addresses such as ["127.0.0.1"], ' +
      'not "127.0.0.1"',
  });
  assert.throws(() => trustedProxies('["proxy.internal"]'), {
    message: 'SVC_API_TRUSTED_PROXIES lists "proxy.internal", which is neither an IP address ' +
      'nor an IPv4 network such as "10.0.0.0/8"',
  });
  assert.throws(() => trustedProxies('["10.0.0.0/33"]'), /lists "10\.0\.0\.0\/33"/);
});

Deno.test("TrustedProxies.client() skips the trusted hops of X-Forwarded-For and no others", () => {
  const proxies = new TrustedProxies(["127.0.0.1", "10.0.0.0/8"]);
  assert.deepEqual(proxies.client("127.0.0.1", "198.51.100.4, 10.1.1.1"), {
    address: "198.51.100.4",
    proxy: "127.0.0.1",
  });
  // What a client wrote into the header before the proxies is not believed past the first stranger.
  assert.deepEqual(proxies.client("127.0.0.1", "10.9.9.9, 203.0.113.5, 10.1.1.1"), {
    address: "203.0.113.5",
    proxy: "127.0.0.1",
  });
  assert.deepEqual(proxies.client("127.0.0.1", null), { address: "127.0.0.1", proxy: "127.0.0.1" });
  assert.deepEqual(proxies.client(undefined, "203.0.113.5"), {});
});

Deno.test("the login limit per address counts the client a trusted proxy names, not the proxy", async () => {
  const authentication = new PasswordAuthentication({ limits: { perUser: 100, perAddress: 2 } });
  await using api = await testApi({ authentication });
  api.deps.trustedProxies = new TrustedProxies(["127.0.0.1"]);
  const login = (user: string, forwardedFor: string) =>
    api.app.request(
      "http://svc.test/token",
      {
        method: "POST",
        headers: { "X-Forwarded-For": forwardedFor },
        body: new URLSearchParams({ username: user, password: "wrong password" }),
      },
      { remoteAddr: { hostname: "127.0.0.1" } },
    );
  for (const user of ["ada", "bob"]) assert.equal((await login(user, "203.0.113.5")).status, 401);
  const limited = await login("cy", "203.0.113.5");
  assert.equal(limited.status, 429);
  assert.match((await limited.json()).error.message, /203\.0\.113\.5/);
  // Another client behind the same proxy is not limited by the first one's failures.
  assert.equal((await login("cy", "198.51.100.4")).status, 401);
});
