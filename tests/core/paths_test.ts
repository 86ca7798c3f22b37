import assert from "node:assert/strict";
import * as node from "node:path";
import * as nodeUrl from "node:url";
import * as nodeOs from "node:os";
import * as paths from "../../components/core/paths.ts";

// Parts that paths are made of, the awkward ones many times over.
const PARTS = [
  "",
  "/",
  "//",
  ".",
  "..",
  "...",
  "a",
  "bc",
  ".a",
  "a.",
  "a.b",
  "a.b.c",
  "..a",
  ".a.",
  "é",
  " ",
  "%",
  "%2f",
  "#",
  "?",
  "\\",
  "\n",
  "\t",
  ":",
  "~",
  "[",
  "]",
  "^",
  "|",
  "`",
  "'",
  "{",
  '"',
];

function randomPaths(count: number, seed: number): string[] {
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  return Array.from({ length: count }, () => {
    const length = Math.floor(random() * 7);
    return Array.from({ length }, () => PARTS[Math.floor(random() * PARTS.length)]).join("");
  });
}

const PATHS = [...PARTS, ...randomPaths(5000, 7)];

Deno.test({
  name: "the path functions give what node:path gives, on thousands of paths",
  ignore: Deno.build.os === "windows",
  fn() {
    for (const path of PATHS) {
      const at = JSON.stringify(path);
      assert.equal(paths.isAbsolute(path), node.isAbsolute(path), `isAbsolute(${at})`);
      assert.equal(paths.dirname(path), node.dirname(path), `dirname(${at})`);
      assert.equal(paths.basename(path), node.basename(path), `basename(${at})`);
      assert.equal(paths.extname(path), node.extname(path), `extname(${at})`);
      assert.equal(paths.resolve(path), node.resolve(path), `resolve(${at})`);
      assert.equal(paths.join(path), node.join(path), `join(${at})`);
    }
    for (let i = 0; i + 3 <= PATHS.length; i += 3) {
      const some = PATHS.slice(i, i + 3);
      const at = JSON.stringify(some);
      assert.equal(paths.join(...some), node.join(...some), `join(${at})`);
      assert.equal(paths.resolve(...some), node.resolve(...some), `resolve(${at})`);
    }
    assert.equal(paths.join(), node.join());
    assert.equal(paths.resolve(), node.resolve());
  },
});

Deno.test({
  name: "pathToFileURL() and fileURLToPath() give what node:url gives, there and back",
  ignore: Deno.build.os === "windows",
  fn() {
    for (const path of PATHS) {
      const at = JSON.stringify(path);
      const url = paths.pathToFileURL(path);
      assert.equal(url.href, nodeUrl.pathToFileURL(path).href, `pathToFileURL(${at})`);
      assert.equal(paths.fileURLToPath(url), nodeUrl.fileURLToPath(url), `fileURLToPath(${at})`);
      assert.equal(paths.fileURLToPath(url.href), nodeUrl.fileURLToPath(url.href));
    }
    for (const wrong of ["https://example.com/a", "file://host/a", "file:///a%2Fb"]) {
      assert.throws(() => nodeUrl.fileURLToPath(wrong));
      assert.throws(() => paths.fileURLToPath(wrong), TypeError, wrong);
    }
  },
});

Deno.test({
  name: "homedir() is HOME, else the user's entry of /etc/passwd, as node:os says",
  ignore: Deno.build.os === "windows",
  fn() {
    const home = Deno.env.get("HOME");
    try {
      assert.equal(paths.homedir(), nodeOs.homedir());
      Deno.env.set("HOME", "/somewhere/else");
      assert.equal(paths.homedir(), "/somewhere/else");
      Deno.env.delete("HOME");
      assert.equal(paths.homedir(), nodeOs.homedir());
      assert.ok(paths.homedir().startsWith("/"));
    } finally {
      if (home === undefined) Deno.env.delete("HOME");
      else Deno.env.set("HOME", home);
    }
  },
});
