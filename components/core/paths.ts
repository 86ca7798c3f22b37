/**
 * The path functions of `node:path`, `node:url` and `node:os` that `svc api`
 * needs before it serves, as Node gives them, without setting up Node's
 * compatibility layer, which costs every start processor time and memory: on
 * Linux and macOS they are Node's POSIX algorithms written again here (a test
 * compares them with Node's on thousands of paths), on Windows Node's own.
 * The kept package for this, `pathe`, does not spare it: it reads
 * `globalThis.process` as it loads, which is what makes Deno set the layer up.
 * @module
 */

const windows = Deno.build.os === "windows"
  ? {
    path: await import("node:path"),
    url: await import("node:url"),
    os: await import("node:os"),
  }
  : undefined;

/** Whether `path` is absolute, as `node:path` says. */
export function isAbsolute(path: string): boolean {
  return windows ? windows.path.isAbsolute(path) : path.startsWith("/");
}

/** The paths joined and normalized, as `node:path` joins them. */
export function join(...paths: string[]): string {
  if (windows) return windows.path.join(...paths);
  const joined = paths.filter((path) => path.length > 0).join("/");
  return joined.length === 0 ? "." : normalize(joined);
}

/** The absolute path that `paths` lead to from the working folder, as `node:path` resolves it. */
export function resolve(...paths: string[]): string {
  if (windows) return windows.path.resolve(...paths);
  let resolved = "";
  let absolute = false;
  for (let i = paths.length - 1; i >= -1 && !absolute; i--) {
    const path = i >= 0 ? paths[i]! : Deno.cwd();
    if (path.length === 0) continue;
    resolved = `${path}/${resolved}`;
    absolute = path.startsWith("/");
  }
  const normalized = normalizeString(resolved, !absolute);
  return absolute ? `/${normalized}` : normalized.length > 0 ? normalized : ".";
}

/** The folder of `path`, as `node:path` gives it. */
export function dirname(path: string): string {
  if (windows) return windows.path.dirname(path);
  if (path.length === 0) return ".";
  const absolute = path.startsWith("/");
  let end = -1;
  let matchedSlash = true;
  for (let i = path.length - 1; i >= 1; i--) {
    if (path[i] === "/") {
      if (!matchedSlash) {
        end = i;
        break;
      }
    } else matchedSlash = false;
  }
  if (end === -1) return absolute ? "/" : ".";
  if (absolute && end === 1) return "//";
  return path.slice(0, end);
}

/** The last part of `path`, as `node:path` gives it. */
export function basename(path: string): string {
  if (windows) return windows.path.basename(path);
  const { start, end } = lastPart(path);
  return end === -1 ? "" : path.slice(start, end);
}

/** The extension of `path` from its last dot, as `node:path` gives it ("" for none, or a dot file). */
export function extname(path: string): string {
  if (windows) return windows.path.extname(path);
  const { start, end } = lastPart(path);
  if (end === -1) return "";
  const name = path.slice(start, end);
  const dot = name.lastIndexOf(".");
  // A name with no dot but its first ("".profile"), or that is "..", has none.
  if (dot <= 0 || (dot === 1 && name === "..")) return "";
  return name.slice(dot);
}

/** The home folder of the user, as `node:os` gives it: `HOME`, else the user's entry of `/etc/passwd`. */
export function homedir(): string {
  if (windows) return windows.os.homedir();
  const home = Deno.env.get("HOME");
  if (home) return home;
  const uid = String(Deno.uid());
  for (const line of Deno.readTextFileSync("/etc/passwd").split("\n")) {
    const fields = line.split(":");
    if (fields[2] === uid && fields[5]) return fields[5];
  }
  throw new Error(`No home folder is known of the user ${uid}: set HOME`);
}

/** A `file:` URL of `path`, resolved, as `node:url` makes it. */
export function pathToFileURL(path: string): URL {
  if (windows) return windows.url.pathToFileURL(path);
  let resolved = resolve(path);
  // A trailing slash is kept, as `resolve()` removes it.
  if (path.endsWith("/") && resolved !== "/") resolved += "/";
  const url = new URL("file://");
  // What the URL's path would not encode, or would read otherwise, encoded first.
  url.pathname = resolved.replace(/[%\\\n\r\t~[\]^|]/g, (character) => PATH_CHARACTERS[character]!);
  return url;
}

// As `node:url` encodes them.
const PATH_CHARACTERS: Record<string, string> = {
  "%": "%25",
  "\\": "%5C",
  "\n": "%0A",
  "\r": "%0D",
  "\t": "%09",
  "~": "%7E",
  "[": "%5B",
  "]": "%5D",
  "^": "%5E",
  "|": "%7C",
};

/** The path of a `file:` URL, as `node:url` gives it. */
export function fileURLToPath(url: string | URL): string {
  if (windows) return windows.url.fileURLToPath(url);
  const parsed = typeof url === "string" ? new URL(url) : url;
  if (parsed.protocol !== "file:") throw new TypeError(`Not a file: URL: ${parsed.href}`);
  if (parsed.hostname !== "") {
    throw new TypeError(`A file: URL names no host on ${Deno.build.os}: ${parsed.href}`);
  }
  if (/%2f/i.test(parsed.pathname)) {
    throw new TypeError(`A file: URL's path must not hold an encoded "/": ${parsed.href}`);
  }
  return decodeURIComponent(parsed.pathname);
}

/** `path` with its "." and ".." parts taken away and its runs of "/" made one, as `node:path` does. */
function normalize(path: string): string {
  const absolute = path.startsWith("/");
  const trailing = path.endsWith("/");
  let normalized = normalizeString(path, !absolute);
  if (normalized.length === 0) {
    if (absolute) return "/";
    return trailing ? "./" : ".";
  }
  if (trailing) normalized += "/";
  return absolute ? `/${normalized}` : normalized;
}

/** Node's `normalizeString()` for POSIX: the parts of `path` without "." and, where it can, "..". */
function normalizeString(path: string, aboveRoot: boolean): string {
  const parts: string[] = [];
  // How many of `parts` are ".." kept because nothing was left to take away.
  let above = 0;
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length > above) parts.pop();
      else if (aboveRoot) {
        parts.push("..");
        above++;
      }
    } else parts.push(part);
  }
  return parts.join("/");
}

/** Where the last part of `path` starts and ends (-1 when it has none), trailing slashes left out. */
function lastPart(path: string): { start: number; end: number } {
  let end = path.length;
  while (end > 0 && path[end - 1] === "/") end--;
  if (end === 0) return { start: 0, end: -1 };
  return { start: path.lastIndexOf("/", end - 1) + 1, end };
}
