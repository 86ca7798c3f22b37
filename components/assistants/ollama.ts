/**
 * The Ollama assistant: a model of a local Ollama server, through its native
 * chat API.
 * @module
 */
import { quote } from "../core/errors.ts";
import { ModelRequirement, type Requirement, ServerRequirement } from "../core/requirements.ts";
import { ollamaModels, ollamaUrl, serves } from "../served_models.ts";
import { redactUrl } from "../core/redact_url.ts";
import { secrets } from "../core/secrets.ts";
import { ModelAssistant, type ModelRequest } from "./_base.ts";
import { excerpt, malformed, streamError } from "./_errors.ts";
import { jsonLines, postJson } from "./_http.ts";
import { chatMessages } from "./_prompt.ts";

/**
 * A model served by a local Ollama server, through its native chat API,
 * streamed as JSON Lines. `OLLAMA_HOST` is the server (default
 * `http://127.0.0.1:11434`), `SVC_OLLAMA_MODEL` the model (default
 * `llama3.2`); the server must answer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Ollama } from "@svc/svc/assistants";
 * assert.match(Ollama.displayName, /^Ollama\//);
 * ```
 */
export class Ollama extends ModelAssistant {
  static override provider = "Ollama";
  static override modelEnv = "SVC_OLLAMA_MODEL";
  static override defaultModel = "llama3.2";

  /** The server's URL, from `OLLAMA_HOST` read as Ollama itself reads it. */
  static host(): string {
    return ollamaUrl(this.env("OLLAMA_HOST"));
  }

  /**
   * This class pinned to one of the server's models, displayed as `Ollama/<model>`: how svc
   * offers the models of a local server.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Ollama } from "@svc/svc/assistants";
   * assert.equal(Ollama.pinned("qwen2.5:7b").displayName, "Ollama/qwen2.5:7b");
   * ```
   */
  static pinned(model: string): typeof Ollama {
    const pinned = class extends this {
      static override model = model;
    };
    Object.defineProperty(pinned, "name", { value: this.name });
    return pinned;
  }

  static override get requirements(): readonly Requirement[] {
    const host = this.host();
    const server = `Ollama at ${quote(redactUrl(host))}`;
    const model = this.modelName();
    return [
      new ServerRequirement(server, () => host),
      new ModelRequirement(`${quote(model)} on ${server}`, async () => {
        const models = await ollamaModels(host);
        return models && serves(models.map(({ name }) => name), model);
      }),
    ];
  }

  protected override async *stream(request: ModelRequest): AsyncGenerator<string> {
    const { provider } = this.config;
    const host = (this.config as typeof Ollama).host();
    secrets.addUrl(host);
    const response = await postJson(`${host}/api/chat`, {
      model: request.model,
      messages: chatMessages(request.prompt),
      stream: true,
      options: { num_predict: request.maxNewTokens, temperature: 0 },
    }, { provider, signal: request.signal });
    for await (const line of jsonLines(response.body, provider)) {
      if (typeof line !== "object" || line === null) {
        throw malformed(provider, `a line is not an object: ${excerpt(line)}`);
      }
      const { error, message, done } = line as Record<string, unknown>;
      if (typeof error === "string") throw streamError(provider, error);
      const content = (message as { content?: unknown } | undefined)?.content;
      if (message !== undefined && typeof content !== "string") {
        throw malformed(provider, `a line's message has no text: ${excerpt(line)}`);
      }
      if (message === undefined && done !== true) {
        throw malformed(provider, `a line has neither "message" nor "done": ${excerpt(line)}`);
      }
      yield (content as string | undefined) ?? "";
      if (done === true) return;
    }
    throw malformed(provider, 'the stream ended before its last line ("done": true)');
  }
}
