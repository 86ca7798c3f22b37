import assert from "node:assert/strict";
import { addressBlock } from "../../../server/auth/address_block.ts";

Deno.test("addressBlock() counts an IPv4 address alone and an IPv6 address by its /64", () => {
  const cases: [string, string, string][] = [
    ["203.0.113.9", "203.0.113.9", "the address 203.0.113.9"],
    ["::ffff:203.0.113.9", "203.0.113.9", "the address 203.0.113.9"],
    ["::ffff:cb00:7109", "203.0.113.9", "the address 203.0.113.9"],
    ["2001:db8:0:1:a:b:c:d", "2001:db8:0:1::/64", "the network 2001:db8:0:1::/64"],
    ["2001:DB8:0:1::ffff", "2001:db8:0:1::/64", "the network 2001:db8:0:1::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64", "the network 2001:db8:0:0::/64"],
    ["::1", "0:0:0:0::/64", "the network 0:0:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64", "the network fe80:0:0:0::/64"],
    ["1:2:3:4:5:6:7.8.9.10", "1:2:3:4::/64", "the network 1:2:3:4::/64"],
    ["not:an:address::x", "not:an:address::x", "the address not:an:address::x"],
    ["1::2::3", "1::2::3", "the address 1::2::3"],
    ["proxy-name", "proxy-name", "the address proxy-name"],
  ];
  for (const [address, key, words] of cases) {
    assert.deepEqual(addressBlock(address), { key, words }, address);
  }
});
