/**
 * The block of addresses that the limits of failed logins count as one
 * client: an IPv4 address itself, and an IPv6 address's /64, since a single
 * host is commonly given a whole /64 and could otherwise take a fresh address
 * for every few guesses.
 * @module
 */

/** A block of addresses, as the limits count it and as their messages name it. */
export interface AddressBlock {
  /** What the block is counted under: `203.0.113.9`, `2001:db8:0:1::/64`. */
  key: string;
  /** How a message names it: `the address 203.0.113.9`, `the network 2001:db8:0:1::/64`. */
  words: string;
}

/**
 * The block an address is counted in. An IPv4 address written as IPv6
 * (`::ffff:203.0.113.9`) is the IPv4 address; anything that is not an IP
 * address is its own block, as it is written.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { addressBlock } from "./address_block.ts";
 * assert.equal(addressBlock("203.0.113.9").key, "203.0.113.9");
 * assert.equal(addressBlock("::ffff:203.0.113.9").key, "203.0.113.9");
 * assert.equal(addressBlock("2001:DB8:0:1:a:b:c:d").key, "2001:db8:0:1::/64");
 * assert.equal(addressBlock("2001:db8::1").words, "the network 2001:db8:0:0::/64");
 * ```
 */
export function addressBlock(address: string): AddressBlock {
  const groups = ipv6Groups(address);
  if (groups === undefined) return { key: address, words: `the address ${address}` };
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) {
    const ipv4 = [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".");
    return { key: ipv4, words: `the address ${ipv4}` };
  }
  const key = `${groups.slice(0, 4).map((group) => group.toString(16)).join(":")}::/64`;
  return { key, words: `the network ${key}` };
}

/** The eight 16-bit groups of an IPv6 address, or `undefined` for anything else. */
function ipv6Groups(address: string): number[] | undefined {
  if (!address.includes(":")) return undefined;
  // A zone (`fe80::1%eth0`) names the link, not the host.
  let text = address.split("%", 1)[0]!.toLowerCase();
  const tail: number[] = [];
  const ipv4 = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (ipv4) {
    const bytes = ipv4.slice(2).map(Number);
    if (bytes.some((byte) => byte > 255)) return undefined;
    tail.push((bytes[0]! << 8) | bytes[1]!, (bytes[2]! << 8) | bytes[3]!);
    text = ipv4[1]!.endsWith("::") ? ipv4[1]! : ipv4[1]!.slice(0, -1);
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (part: string) => part === "" ? [] : part.split(":");
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  if (![...head, ...rest].every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return undefined;
  const zeros = new Array<number>(8 - given).fill(0);
  return [...head.map(hex), ...zeros, ...rest.map(hex), ...tail];
}

function hex(group: string): number {
  return parseInt(group, 16);
}
