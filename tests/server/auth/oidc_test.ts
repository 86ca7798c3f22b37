import assert from "node:assert/strict";
import { join } from "node:path";
import { freePort, startProcess } from "../../_process.ts";
import { tmpDir } from "../../test_utils.ts";
import { ACCOUNT, CLIENT, startProvider } from "./_oidc_provider.ts";
import { integration } from "../../_tier.ts";

const UI = "http://127.0.0.1:31477";

/** The cookies of a browser, by origin; paths are not told apart. */
class CookieJar {
  readonly #cookies = new Map<string, Map<string, string>>();

  header(url: string): Record<string, string> {
    const cookies = this.#cookies.get(new URL(url).origin);
    if (!cookies || cookies.size === 0) return {};
    return { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; ") };
  }

  take(url: string, response: Response): void {
    const origin = new URL(url).origin;
    const cookies = this.#cookies.get(origin) ?? new Map<string, string>();
    this.#cookies.set(origin, cookies);
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";").map((part) => part.trim());
      const [name, ...value] = pair!.split("=");
      const gone = attributes.some((a) => /^max-age=0$/i.test(a)) ||
        attributes.some((a) => /^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now());
      if (gone) cookies.delete(name!);
      else cookies.set(name!, value.join("="));
    }
  }

  names(url: string): string[] {
    return [...this.#cookies.get(new URL(url).origin)?.keys() ?? []];
  }
}

/** A browser's requests, one at a time, without following redirects. */
function browser() {
  const jar = new CookieJar();
  const request = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: { ...jar.header(url), ...init.headers as Record<string, string> },
    });
    jar.take(url, response);
    return response;
  };
  /** Follows redirects until `stop` says where, or a page that is not a redirect. */
  const follow = async (url: string, stop: (url: string) => boolean = () => false) => {
    let response = await request(url);
    while ([302, 303].includes(response.status)) {
      await response.body?.cancel();
      url = new URL(response.headers.get("location")!, url).href;
      if (stop(url)) return { url, response };
      response = await request(url);
    }
    return { url, response };
  };
  return { jar, request, follow };
}

async function startSvc(dir: string, issuer: string, port: number) {
  const config = join(dir, "svc.toml");
  await Deno.writeTextFile(
    config,
    `local_root = "root"\nauthentication = "svc.deploy.OpenIDConnectAuthentication"\n` +
      `[api]\nhostname = "127.0.0.1"\nport = ${port}\n`,
  );
  const base = `http://127.0.0.1:${port}`;
  const svc = await startProcess(["api", "-c", config], {
    health: base,
    env: {
      SVC_OIDC_ISSUER: issuer,
      SVC_OIDC_CLIENT_ID: CLIENT.id,
      SVC_OIDC_CLIENT_SECRET: CLIENT.secret,
      SVC_OIDC_USER_CLAIM: "preferred_username",
      SVC_OIDC_NAME: "Test provider",
    },
  });
  return Object.assign(svc, { base });
}

async function errorOf(response: Response): Promise<string> {
  return (await response.json()).error.message;
}

integration.test("OpenIDConnectAuthentication: the redirects, a login at a real provider, a session token that works and ends with logout", async () => {
  const port = freePort();
  await using provider = await startProvider([`http://127.0.0.1:${port}/auth/oidc/callback`]);
  await using dir = await tmpDir();
  await using svc = await startSvc(dir.path, provider.issuer, port);
  const { jar, request, follow } = browser();

  // The web UI's "Sign in with …" link: the API sends the browser to the provider's login page.
  const returnTo = `${UI}/auth/?next=${encodeURIComponent("/?chat=abc")}`;
  const login = `${svc.base}/auth/oidc/login?return_to=${encodeURIComponent(returnTo)}`;
  const started = await request(login);
  assert.equal(started.status, 302);
  const authorize = new URL(started.headers.get("location")!);
  assert.equal(authorize.origin, provider.issuer);
  assert.equal(authorize.searchParams.get("client_id"), CLIENT.id);
  assert.equal(authorize.searchParams.get("code_challenge_method"), "S256");
  assert.equal(authorize.searchParams.get("redirect_uri"), `${svc.base}/auth/oidc/callback`);
  assert.ok(authorize.searchParams.get("state")!.length >= 32);
  assert.ok(authorize.searchParams.get("nonce")!.length >= 32);
  assert.equal(jar.names(svc.base).length, 1);
  const page = await follow(authorize.href);
  assert.equal(page.response.status, 200);
  const html = await page.response.text();
  assert.match(html, /Sign in to the test provider/);
  const action = new URL(/action="([^"]+)"/.exec(html)![1]!, page.url).href;

  // A wrong password stays at the provider.
  const form = (password: string) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: ACCOUNT.username, password }),
  });
  const wrong = await request(action, form("not the password"));
  assert.equal(wrong.status, 401);
  await wrong.body?.cancel();

  // The right one: back through svc's callback to the web UI, with the session in the fragment.
  const right = await request(action, form(ACCOUNT.password));
  assert.equal(right.status, 303);
  await right.body?.cancel();
  let callback: string | undefined;
  const back = await follow(
    new URL(right.headers.get("location")!, action).href,
    (url) => {
      if (url.startsWith(`${svc.base}/auth/oidc/callback`)) callback ??= url;
      return url.startsWith(UI);
    },
  );
  assert.ok(callback, "the provider sent the browser to svc's callback");
  const landed = new URL(back.url);
  assert.equal(`${landed.origin}${landed.pathname}${landed.search}`, returnTo);
  const fragment = new URLSearchParams(landed.hash.slice(1));
  assert.equal(fragment.get("user"), ACCOUNT.username);
  const token = fragment.get("token")!;
  assert.deepEqual(provider.logins, [ACCOUNT.username, ACCOUNT.username]);
  // The sign-in's cookie is gone: the same callback cannot be used again.
  assert.deepEqual(jar.names(svc.base), []);
  const again = await request(callback!);
  assert.equal(again.status, 400);
  assert.match(await errorOf(again), /was not started in this browser/);

  // The token is a session like any other: it works on the API, and logout ends it.
  const bearer = { authorization: `Bearer ${token}` };
  const chats = await fetch(`${svc.base}/chats`, { headers: bearer });
  assert.equal(chats.status, 200);
  assert.deepEqual(await chats.json(), []);
  const logout = await fetch(`${svc.base}/logout`, { method: "POST", headers: bearer });
  assert.equal(logout.status, 200);
  await logout.body?.cancel();
  const ended = await fetch(`${svc.base}/chats`, { headers: bearer });
  assert.equal(ended.status, 401);
  assert.match(await errorOf(ended), /session has ended/);
});

integration.test("OpenIDConnectAuthentication refuses to send a sign-in to another origin, a callback it did not start, and a login form", async () => {
  const port = freePort();
  await using provider = await startProvider([`http://127.0.0.1:${port}/auth/oidc/callback`]);
  await using dir = await tmpDir();
  await using svc = await startSvc(dir.path, provider.issuer, port);

  const elsewhere = await fetch(
    `${svc.base}/auth/oidc/login?return_to=${encodeURIComponent("https://evil.example/auth/")}`,
    { redirect: "manual" },
  );
  assert.equal(elsewhere.status, 400);
  assert.equal(
    await errorOf(elsewhere),
    'Cannot send a sign-in back to "https://evil.example": it is not one of the API\'s origins ' +
      "([api] origins)",
  );

  // A code and state that did not start in this browser: no cookie, no session.
  const state = "s".repeat(43);
  const forged = await fetch(`${svc.base}/auth/oidc/callback?code=abc&state=${state}`, {
    redirect: "manual",
  });
  assert.equal(forged.status, 400);
  assert.match(await errorOf(forged), /This sign-in was not started in this browser/);

  // A cookie whose state is not the callback's is no better.
  const { request } = browser();
  const started = await request(`${svc.base}/auth/oidc/login`);
  assert.equal(started.status, 302);
  const mixed = await request(`${svc.base}/auth/oidc/callback?code=abc&state=${state}`);
  assert.equal(mixed.status, 400);
  await mixed.body?.cancel();

  // A cookie made by hand to send the session elsewhere is refused, not followed.
  const flow = {
    verifier: "v".repeat(43),
    nonce: "n".repeat(43),
    returnTo: "https://evil.example/",
  };
  const planted = await fetch(`${svc.base}/auth/oidc/callback?code=abc&state=${state}`, {
    redirect: "manual",
    headers: {
      cookie: `svc_oidc_${state}=${
        new TextEncoder().encode(JSON.stringify(flow)).toBase64({ alphabet: "base64url" })
      }`,
    },
  });
  assert.equal(planted.status, 400);
  assert.match(await errorOf(planted), /Cannot send a sign-in back to "https:\/\/evil\.example"/);

  // The provider's refusal comes back to the web UI in words.
  const real = new URL(started.headers.get("location")!).searchParams.get("state")!;
  const refused = await request(
    `${svc.base}/auth/oidc/callback?error=access_denied&error_description=no&state=${real}`,
  );
  assert.equal(refused.status, 303);
  const location = new URL(refused.headers.get("location")!);
  assert.equal(`${location.origin}${location.pathname}`, `${UI}/auth/`);
  assert.equal(
    new URLSearchParams(location.hash.slice(1)).get("error"),
    "Cannot sign in with Test provider: Test provider refused the sign-in: access_denied (no)",
  );

  const token = await fetch(`${svc.base}/token`, {
    method: "POST",
    body: new URLSearchParams({ username: "ada", password: "ada" }),
  });
  assert.equal(token.status, 405);
  await token.body?.cancel();
});
