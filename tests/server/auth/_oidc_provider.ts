/**
 * A real OpenID provider (`oidc-provider`) on a free loopback port, for the
 * tests of OpenID Connect sign-in: one client, and one account with a
 * password, which its own login page checks. The page is plain HTML, a form
 * with the fields "Username" and "Password", so that a test follows it over
 * HTTP as a browser would, and a browser test fills it in.
 * @module
 */
import http from "node:http";
import { exportJWK, generateKeyPair } from "jose";
import Provider from "npm:oidc-provider@9.13.3";
import { freePort } from "../../_process.ts";

/** The test account at the provider. */
export const ACCOUNT = {
  id: "7f3c2a90-ada",
  username: "ada",
  password: "correct horse battery staple",
  email: "ada@example.org",
};

/** The client svc is at the provider. */
export const CLIENT = { id: "svc", secret: "client-secret-".padEnd(40, "x") };

/** A running provider; disposing of it stops it. */
export interface TestProvider extends AsyncDisposable {
  /** Its issuer URL, `http://127.0.0.1:PORT`. */
  issuer: string;
  /** What its login page saw: each username tried, in order. */
  logins: string[];
}

/** Starts the provider with the redirect URLs svc may be sent back to. */
export async function startProvider(redirectUris: string[]): Promise<TestProvider> {
  const port = freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const provider = new Provider(issuer, {
    clients: [{
      client_id: CLIENT.id,
      client_secret: CLIENT.secret,
      redirect_uris: redirectUris,
      grant_types: ["authorization_code"],
      response_types: ["code"],
    }],
    jwks: { keys: [{ ...await exportJWK(privateKey), use: "sig", alg: "RS256" }] },
    cookies: { keys: ["test-cookie-key-".padEnd(32, "k")] },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
    features: { devInteractions: { enabled: false } },
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string }) => `/login/${interaction.uid}`,
    },
    claims: { openid: ["sub"], profile: ["preferred_username", "name"], email: ["email"] },
    findAccount: (_ctx: unknown, id: string) =>
      id === ACCOUNT.id
        ? {
          accountId: id,
          claims: () => ({
            sub: id,
            preferred_username: ACCOUNT.username,
            name: "Ada Lovelace",
            email: ACCOUNT.email,
          }),
        }
        : undefined,
    // The test client is first-party: what it asks for is granted without a consent page.
    // deno-lint-ignore no-explicit-any
    loadExistingGrant: async (ctx: any) => {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      });
      grant.addOIDCScope("openid profile email");
      await grant.save();
      return grant;
    },
  });
  const logins: string[] = [];
  const callback = provider.callback();
  const server = http.createServer(async (req, res) => {
    const uid = /^\/login\/([^/?]+)/.exec(req.url ?? "")?.[1];
    if (uid === undefined) return callback(req, res);
    try {
      await provider.interactionDetails(req, res);
      if (req.method === "GET") return page(res, uid);
      const form = new URLSearchParams(await bodyOf(req));
      const username = form.get("username") ?? "";
      logins.push(username);
      if (username !== ACCOUNT.username || form.get("password") !== ACCOUNT.password) {
        return page(res, uid, "Wrong username or password");
      }
      await provider.interactionFinished(req, res, { login: { accountId: ACCOUNT.id } }, {
        mergeWithLastSubmission: false,
      });
    } catch (error) {
      res.writeHead(400, { "content-type": "text/plain" }).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    issuer,
    logins,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function page(res: http.ServerResponse, uid: string, failure?: string): void {
  res.writeHead(failure ? 401 : 200, { "content-type": "text/html; charset=utf-8" }).end(
    `<!doctype html><title>Test provider</title><h1>Sign in to the test provider</h1>` +
      (failure ? `<p role="alert">${failure}</p>` : "") +
      `<form method="post" action="/login/${uid}">` +
      `<label>Username <input name="username"></label>` +
      `<label>Password <input name="password" type="password"></label>` +
      `<button type="submit">Continue</button></form>`,
  );
}

function bodyOf(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => text += chunk);
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}
