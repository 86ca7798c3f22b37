/**
 * The proxies svc trusts (`SVC_API_TRUSTED_PROXIES`): a request whose
 * connection comes from one of them is taken to be the client that proxy
 * names in `X-Forwarded-For`, for the login limits, and may name its user in
 * a header (`TrustedProxyAuthentication`). None is trusted by default, so
 * that no client can pass for another by sending those headers itself.
 * @module
 */
import { quote, SvcError } from "../../components/core/errors.ts";
import type { ClientInfo } from "./authentication.ts";

/** The variable that lists the trusted proxies, as JSON. */
export const TRUSTED_PROXIES_ENV = "SVC_API_TRUSTED_PROXIES";

/**
 * A set of trusted addresses: each an IPv4 or IPv6 address, or an IPv4
 * network such as `10.0.0.0/8`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TrustedProxies } from "./trusted_proxies.ts";
 * const proxies = new TrustedProxies(["127.0.0.1", "10.1.0.0/16", "::1"]);
 * assert.equal(proxies.has("10.1.200.3"), true);
 * assert.equal(proxies.has("::ffff:127.0.0.1"), true);
 * assert.equal(proxies.has("127.0.0.2"), false);
 * ```
 */
export class TrustedProxies {
  readonly #exact = new Set<string>();
  readonly #networks: { base: number; mask: number }[] = [];
  /** The entries as given. */
  readonly entries: readonly string[];

  /** @throws {SvcError} naming an entry that is neither an address nor an IPv4 network */
  constructor(entries: readonly string[]) {
    this.entries = entries;
    for (const entry of entries) {
      const [address, bits] = entry.trim().split("/", 2) as [string, string | undefined];
      const ipv4 = ipv4Number(address);
      if (bits !== undefined) {
        const size = Number(bits);
        if (ipv4 === undefined || !/^\d{1,2}$/.test(bits) || size > 32) throw badEntry(entry);
        const mask = size === 0 ? 0 : (~0 << (32 - size)) >>> 0;
        this.#networks.push({ base: (ipv4 & mask) >>> 0, mask });
      } else if (ipv4 !== undefined || isIpv6(address)) {
        this.#exact.add(normalise(address));
      } else throw badEntry(entry);
    }
  }

  /** Whether none is trusted. */
  get empty(): boolean {
    return this.entries.length === 0;
  }

  /** Whether an address is one of the trusted ones. */
  has(address: string): boolean {
    const normal = normalise(address);
    if (this.#exact.has(normal)) return true;
    const ipv4 = ipv4Number(normal);
    return ipv4 !== undefined &&
      this.#networks.some(({ base, mask }) => ((ipv4 & mask) >>> 0) === base);
  }

  /**
   * Who a request's client is, from the address of its connection and its
   * `X-Forwarded-For` header: a connection from a trusted proxy stands for
   * the nearest address in the header that is not a trusted proxy's itself.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { TrustedProxies } from "./trusted_proxies.ts";
   * const proxies = new TrustedProxies(["127.0.0.1"]);
   * assert.deepEqual(proxies.client("127.0.0.1", "203.0.113.9, 198.51.100.2"), {
   *   address: "198.51.100.2",
   *   proxy: "127.0.0.1",
   * });
   * assert.deepEqual(proxies.client("198.51.100.7", "127.0.0.1"), { address: "198.51.100.7" });
   * ```
   */
  client(peer: string | undefined, forwardedFor: string | null | undefined): ClientInfo {
    if (peer === undefined) return {};
    if (!this.has(peer)) return { address: peer };
    const hops = (forwardedFor ?? "").split(",").map((hop) => hop.trim()).filter(Boolean);
    let address = peer;
    for (const hop of hops.reverse()) {
      address = hop;
      if (!this.has(hop)) break;
    }
    return { address, proxy: peer };
  }
}

/**
 * The trusted proxies of `SVC_API_TRUSTED_PROXIES`, a JSON list; none when unset.
 * @throws {SvcError} for a value that is not a JSON list of addresses and IPv4 networks
 */
export function trustedProxies(value: string | undefined): TrustedProxies {
  if (value === undefined || value.trim() === "") return new TrustedProxies([]);
  let entries: unknown;
  try {
    entries = JSON.parse(value);
  } catch {
    entries = undefined;
  }
  if (!Array.isArray(entries) || entries.some((entry) => typeof entry !== "string")) {
    throw new SvcError(
      `${TRUSTED_PROXIES_ENV} must be a JSON list of addresses such as ["127.0.0.1"], ` +
        `not ${quote(value)}`,
    );
  }
  return new TrustedProxies(entries as string[]);
}

function badEntry(entry: string): SvcError {
  return new SvcError(
    `${TRUSTED_PROXIES_ENV} lists ${quote(entry)}, which is neither an IP address nor an IPv4 ` +
      'network such as "10.0.0.0/8"',
  );
}

/** An address as compared: lower case, an IPv4 address mapped into IPv6 as itself. */
function normalise(address: string): string {
  const lower = address.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1");
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower);
  if (mapped) return mapped[1]!;
  // IPv6 in its one short form, so that "0:0:0:0:0:0:0:1" is "::1".
  return lower.includes(":") && URL.canParse(`http://[${lower}]/`)
    ? new URL(`http://[${lower}]/`).hostname.slice(1, -1)
    : lower;
}

function ipv4Number(address: string): number | undefined {
  const parts = address.trim().split(".");
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255)) {
    return undefined;
  }
  return parts.reduce((value, part) => value * 256 + Number(part), 0);
}

function isIpv6(address: string): boolean {
  return address.includes(":") && URL.canParse(`http://[${address.replace(/^\[(.*)\]$/, "$1")}]/`);
}
