/**
 * Emoji shortcodes (`:rocket:`) as emoji, for a small known set: the ones
 * models and the demo assistant write most. Unknown shortcodes stay text.
 * @module
 */

const EMOJI: Readonly<Record<string, string>> = {
  "+1": "👍",
  "-1": "👎",
  bulb: "💡",
  books: "📚",
  book: "📖",
  bug: "🐛",
  check: "✔️",
  heavy_check_mark: "✔️",
  white_check_mark: "✅",
  x: "❌",
  warning: "⚠️",
  eyes: "👀",
  fire: "🔥",
  heart: "❤️",
  memo: "📝",
  page_facing_up: "📄",
  mag: "🔍",
  rocket: "🚀",
  smile: "😄",
  slightly_smiling_face: "🙂",
  sparkles: "✨",
  star: "⭐",
  tada: "🎉",
  thinking: "🤔",
  thumbsup: "👍",
  thumbsdown: "👎",
  unicorn: "🦄",
  wave: "👋",
  zap: "⚡",
};

/** The emoji of a shortcode name (without colons), or `undefined`. */
export function emojiOf(name: string): string | undefined {
  return Object.hasOwn(EMOJI, name) ? EMOJI[name] : undefined;
}

/**
 * The text with each known `:shortcode:` replaced by its emoji.
 *
 * @example
 * ```ts
 * import { emojize } from "./emoji.ts";
 * console.assert(emojize("go :rocket: :nope:") === "go 🚀 :nope:");
 * ```
 */
export function emojize(text: string): string {
  return text.replace(/:([a-z0-9_+-]+):/g, (whole, name: string) => emojiOf(name) ?? whole);
}
