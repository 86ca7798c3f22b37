/**
 * The attacks of GUARD-2 for `bench/attacks.ts`, each as what it needs of the server (settings,
 * accounts) and a round of it that returns what each request got. The files, drips and logins
 * are the reliability tests' own (`tests/rely/_hostile_*.ts`).
 * @module
 */
import { type HostileFile, issueFiles } from "../tests/rely/_hostile_files.ts";
import { login, PASSWORD } from "../tests/rely/_hostile_logins.ts";
import { drip } from "../tests/rely/_hostile_uploads.ts";
import { Client, pause, type Svc } from "../tests/rely/_server.ts";

/** What an attack is sent at: the server, and its attacker, signed in. */
export interface Target {
  svc: Svc;
  attacker: Client;
}

/** What one request of an attack got: its status and, for an error, its message. */
export interface Answer {
  status: number;
  message?: string;
}

/** One attack of the benchmark. */
export interface Attack {
  /** A short name, for choosing attacks on the command line. */
  key: string;
  /** What the table calls it. */
  name: string;
  /** Settings of the server, over the benchmark's own. */
  env?: Record<string, string>;
  /** Accounts the server must have besides the attacker's and the bystander's. */
  accounts?: string[];
  /** The most rounds the attack can run (the accounts it has), however long they take. */
  rounds?: number;
  /**
   * Builds what the attack sends and signs in whom it needs, before the measurement starts; the
   * attack's round `n` (from 0), which settles with what each request it sent got.
   */
  prepare(target: Target): Promise<(round: number) => Promise<Answer[]>>;
}

/** The storage and assistant of the chats the attacks prepare. */
const CHAT = { source_storage: "LibSQL", assistant: "Svc/DemoAssistant", params: {} };

/** Senders at once of the attacks that repeat a request, and how many each sends in a round. */
const CLIENTS = 3;
const PER_ROUND = 10;

/** A response's status, and the message of its error body; the body is read either way. */
async function answerOf(response: Response): Promise<Answer> {
  if (response.ok) {
    await response.body?.cancel();
    return { status: response.status };
  }
  const text = await response.text();
  try {
    return { status: response.status, message: JSON.parse(text).error.message };
  } catch {
    return { status: response.status, message: text.slice(0, 200) };
  }
}

/** Sends {@linkcode PER_ROUND} requests in each of {@linkcode CLIENTS} clients at once. */
async function repeated(send: () => Promise<Response>): Promise<Answer[]> {
  const answers: Answer[] = [];
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    for (let i = 0; i < PER_ROUND; i++) answers.push(await answerOf(await send()));
  }));
  return answers;
}

/** The hostile files, made once for every attack that sends one. */
let files: HostileFile[] | undefined;

/** A hostile file uploaded, read by `GET /documents/{id}/pages`, and prepared in a LibSQL chat. */
function fileAttack(key: string, name: string, index: number): Attack {
  return {
    key,
    name,
    prepare({ attacker }) {
      const file = (files ??= issueFiles())[index]!;
      return Promise.resolve(async () => {
        const answers: Answer[] = [];
        // deno-lint-ignore no-explicit-any
        const json = async (response: Response): Promise<any> => {
          if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
          answers.push({ status: response.status });
          return await response.json();
        };
        const { parameters } = await json(
          await attacker.request("POST", "/document", { name: file.name }),
        );
        const form = new FormData();
        for (const [field, value] of Object.entries(parameters.data)) {
          form.set(field, value as string);
        }
        form.set("file", new Blob([file.bytes]), file.name);
        const document = await json(
          await fetch(parameters.url, { method: parameters.method, body: form }),
        );
        const pages = await attacker.request("GET", `/documents/${document.id}/pages`);
        answers.push(await answerOf(pages));
        const chat = await json(
          await attacker.request("POST", "/chats", {
            name: file.name,
            ...CHAT,
            documents: [document],
          }),
        );
        answers.push(await answerOf(await attacker.request("POST", `/chats/${chat.id}/prepare`)));
        return answers;
      });
    },
  };
}

/** Accounts for the rounds of the guesses and of the logins, which each round needs afresh. */
const GUESS_ROUNDS = 100;
const LOGINS = 30;
const LOGIN_ROUNDS = 20;
/** The drips' accounts, and the uploads each sends at once. */
const DRIP_ACCOUNTS = 4;
const DRIPS_PER_ACCOUNT = 8;

/** The attacks, in the order of the issue, after the reference of no attack at all. */
export const ATTACKS: readonly Attack[] = [
  {
    key: "none",
    name: "no attack (reference)",
    prepare: () => Promise.resolve(() => pause(100).then(() => [])),
  },
  fileAttack("docx", "DOCX, 50 MiB of short paragraphs", 0),
  fileAttack("pdf-tree", "PDF, one page listed 200,000 times", 1),
  fileAttack("pdf-streams", "PDF, 250 content streams on one page", 2),
  fileAttack("pptx", "PPTX, 250 slides of 1 MiB", 3),
  {
    key: "path",
    name: "GET / + 64,000 letters",
    prepare({ svc }) {
      const url = `${svc.base}/${"A".repeat(64_000)}`;
      return Promise.resolve(() => repeated(() => fetch(url)));
    },
  },
  {
    key: "username",
    name: "POST /token, a 100,000-letter username",
    prepare({ svc }) {
      const body = new URLSearchParams({ username: "D".repeat(100_000), password: "wrong" });
      return Promise.resolve(() =>
        repeated(() => fetch(`${svc.base}/token`, { method: "POST", body }))
      );
    },
  },
  {
    key: "param",
    name: "POST /chats, a 900 KB chat parameter",
    prepare({ attacker }) {
      const params = { chunk_size: "C".repeat(900_000) };
      const body = { name: "c", ...CHAT, params, documents: [] };
      return Promise.resolve(() => repeated(() => attacker.request("POST", "/chats", body)));
    },
  },
  {
    key: "guesses",
    name: "40 guesses at once at one account",
    env: { SVC_API_TRUSTED_PROXIES: '["127.0.0.1"]' },
    accounts: Array.from({ length: GUESS_ROUNDS }, (_, round) => `grace${round}`),
    rounds: GUESS_ROUNDS,
    prepare({ svc }) {
      // Each round at an account of its own from an address of its own (which the trusted proxy
      // on loopback names), so that each meets the limits afresh; one guess is right.
      return Promise.resolve(async (round) => {
        const address = `10.0.${Math.floor(round / 250)}.${round % 250 + 1}`;
        const answers = await Promise.all(Array.from(
          { length: 40 },
          (_, i) => login(svc, `grace${round}`, i === 25 ? PASSWORD : `guess ${i}`, address),
        ));
        return answers.map(({ status, body }) => ({ status, message: body?.error?.message }));
      });
    },
  },
  {
    key: "logins",
    name: "30 right logins at once (argon2id)",
    accounts: Array.from(
      { length: LOGIN_ROUNDS * LOGINS },
      (_, n) => `user${Math.floor(n / LOGINS)}_${n % LOGINS}`,
    ),
    rounds: LOGIN_ROUNDS,
    prepare({ svc }) {
      return Promise.resolve(async (round) => {
        const answers = await Promise.all(Array.from(
          { length: LOGINS },
          (_, i) => login(svc, `user${round}_${i}`, PASSWORD, "127.0.0.1"),
        ));
        return answers.map(({ status, body }) => ({ status, message: body?.error?.message }));
      });
    },
  },
  {
    key: "drips",
    name: "4 accounts × 8 slow-drip uploads",
    // A window of seconds rather than the default half minute, so that a round ends soon.
    env: { SVC_API_UPLOAD_MIN_RATE: "1000", SVC_API_UPLOAD_RATE_WINDOW: "2" },
    accounts: Array.from({ length: DRIP_ACCOUNTS }, (_, i) => `dripper${i}`),
    async prepare({ svc }) {
      const port = Number(new URL(svc.base).port);
      const clients = await Promise.all(
        Array.from(
          { length: DRIP_ACCOUNTS },
          (_, i) => Client.login(svc.base, `dripper${i}`, PASSWORD),
        ),
      );
      return async () => {
        const drips = clients.flatMap((client) =>
          Array.from({ length: DRIPS_PER_ACCOUNT }, () => drip(client, port))
        );
        // Each drip registers its document (a 200, or it throws), then sends its upload.
        return (await Promise.all(drips)).flatMap(({ status, body }) => {
          let message: string | undefined;
          try {
            message = JSON.parse(body).error?.message;
          } catch {
            message = body.slice(0, 200);
          }
          return [{ status: 200 }, { status, message }];
        });
      };
    },
  },
];
