/**
 * The REST API from the browser: JSON requests with the bearer token, the
 * document upload with its progress, and answers read as they stream.
 * @module
 */
import type {
  ApiKey,
  Chat,
  ChatMetadata,
  ChatSummary,
  Components,
  Document,
  DocumentPage,
  DocumentPages,
  DocumentUpload,
  Message,
  MessageLine,
  NewApiKey,
  PrepareProgress,
} from "./api_types.ts";
import { jsonLines } from "./json_lines.ts";

/** A failed request, with the API's own message when it gave one; status 0 when unreachable. */
export class ApiError extends Error {
  status: number;
  constructor(message: string, status: number) {
    super(message);
    this.name = "ApiError";
    this.status = status;
  }
}

/** Options of {@linkcode ApiClient}. */
export interface ApiClientOptions {
  /** The bearer token of the user, if logged in. */
  token?: () => string | undefined;
  /** Called on a 401 from a protected route: the session ended. */
  onUnauthorized?: () => void;
}

/** A client of one svc REST API. */
export class ApiClient {
  readonly baseUrl: string;
  #options: ApiClientOptions;

  constructor(baseUrl: string, options: ApiClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.#options = options;
  }

  /** Logs in and returns the bearer token. */
  async login(username: string, password: string): Promise<string> {
    const response = await this.#fetch("/token", {
      method: "POST",
      body: new URLSearchParams({ username, password }),
    });
    if (!response.ok) throw await errorOf(response);
    return await response.json();
  }

  /**
   * Ends the session of the token on the server, so that the token is worth
   * nothing even where it was copied. A token the API refuses already is no
   * session to end: that is no failure, and does not count as a session that
   * ended under the user.
   */
  async logout(): Promise<void> {
    const response = await this.#fetch("/logout", { method: "POST", headers: this.#headers({}) });
    if (!response.ok && response.status !== 401) throw await errorOf(response);
    await response.body?.cancel();
  }

  components(): Promise<Components> {
    return this.#json("GET", "/components");
  }

  /** The user's chats without their messages, which {@linkcode ApiClient.chat} reads one by one. */
  chats(): Promise<ChatSummary[]> {
    return this.#json("GET", "/chats?messages=false");
  }

  /** A chat with all its messages. */
  chat(chatId: string): Promise<Chat> {
    return this.#json("GET", `/chats/${encodeURIComponent(chatId)}`);
  }

  createChat(metadata: ChatMetadata): Promise<Chat> {
    return this.#json("POST", "/chats", metadata);
  }

  /**
   * Prepares the chat's documents; with `onProgress`, each step of each
   * document is reported as the API streams it. Aborting the signal stops
   * preparing on the server too: the chat stays unprepared.
   */
  prepare(chatId: string, options: ProgressOptions = {}): Promise<Message> {
    const path = `/chats/${encodeURIComponent(chatId)}/prepare`;
    if (!options.onProgress) return this.#json("POST", path);
    return this.#withProgress<Message>(path, undefined, options);
  }

  /** Renames a chat: the chat with its messages. */
  renameChat(chatId: string, name: string): Promise<Chat> {
    return this.#json("PATCH", `/chats/${encodeURIComponent(chatId)}`, { name });
  }

  /**
   * Adds uploaded documents to a chat, reporting their progress while a
   * prepared chat stores them: the chat with its messages.
   */
  addDocuments(
    chatId: string,
    documents: Document[],
    options: ProgressOptions = {},
  ): Promise<Chat> {
    return this.#withProgress<Chat>(
      `/chats/${encodeURIComponent(chatId)}/documents`,
      { documents },
      options,
    );
  }

  /** Stops the chat's running answers on the server: leaving their streams does not. */
  stopAnswers(chatId: string): Promise<{ stopped: number }> {
    return this.#json("POST", `/chats/${encodeURIComponent(chatId)}/stop`);
  }

  deleteChat(chatId: string): Promise<null> {
    return this.#json("DELETE", `/chats/${encodeURIComponent(chatId)}`);
  }

  /** The user's API keys, without the keys themselves. */
  apiKeys(): Promise<ApiKey[]> {
    return this.#json("GET", "/api-keys");
  }

  /** A new API key: the answer holds the key, which the API never shows again. */
  createApiKey(name: string): Promise<NewApiKey> {
    return this.#json("POST", "/api-keys", { name });
  }

  /** Revokes an API key: programs that use it are refused at once. */
  revokeApiKey(id: string): Promise<null> {
    return this.#json("DELETE", `/api-keys/${encodeURIComponent(id)}`);
  }

  registerDocument(name: string): Promise<DocumentUpload> {
    return this.#json("POST", "/document", { name });
  }

  /**
   * Where a document's file is, with the headers that let the user read it:
   * for a viewer that reads it in ranges itself.
   */
  documentContent(documentId: string): { url: string; headers: Record<string, string> } {
    return {
      url: `${this.baseUrl}/documents/${encodeURIComponent(documentId)}/content`,
      headers: this.#headers({}),
    };
  }

  /** A document's pages as svc read them. */
  async documentPages(documentId: string): Promise<DocumentPage[]> {
    const { pages } = await this.#json<DocumentPages>(
      "GET",
      `/documents/${encodeURIComponent(documentId)}/pages`,
    );
    return pages;
  }

  /**
   * Sends a file where `POST /document` said, reporting progress from 0 to 1.
   * XMLHttpRequest, because fetch reports no upload progress.
   */
  upload(
    target: DocumentUpload,
    file: Blob,
    options: { onProgress?: (fraction: number) => void; signal?: AbortSignal } = {},
  ): Promise<Document> {
    const form = new FormData();
    for (const [key, value] of Object.entries(target.parameters.data)) form.set(key, value);
    form.set("file", file, target.document.name);
    return new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open(target.parameters.method, target.parameters.url);
      request.responseType = "text";
      request.upload.onprogress = (event) => {
        if (event.lengthComputable) options.onProgress?.(event.loaded / event.total);
      };
      request.onload = () => {
        const response = new Response(request.responseText || null, {
          status: request.status,
          statusText: request.statusText,
        });
        if (request.status >= 200 && request.status < 300) {
          options.onProgress?.(1);
          response.json().then(resolve, reject);
        } else {
          errorOf(response).then(reject, reject);
        }
      };
      request.onerror = () => reject(this.#unreachable());
      request.onabort = () => reject(new DOMException("The upload was cancelled", "AbortError"));
      options.signal?.addEventListener("abort", () => request.abort(), { once: true });
      request.send(form);
    });
  }

  /**
   * Asks a question and yields the answer's lines as they arrive: the first
   * with all sources, each later one with its chunk of text. Aborting the
   * signal ends the request.
   */
  answer(chatId: string, prompt: string, signal?: AbortSignal): AsyncGenerator<MessageLine> {
    return this.#answerLines(`/chats/${encodeURIComponent(chatId)}/answer`, { prompt }, signal);
  }

  /**
   * Answers the chat's last question again, in place of the answer after it
   * (stopped, failed or complete), as {@linkcode ApiClient.answer} yields lines.
   */
  regenerate(chatId: string, signal?: AbortSignal): AsyncGenerator<MessageLine> {
    return this.#answerLines(`/chats/${encodeURIComponent(chatId)}/regenerate`, {}, signal);
  }

  async *#answerLines(
    path: string,
    body: Record<string, unknown>,
    signal?: AbortSignal,
  ): AsyncGenerator<MessageLine> {
    const response = await this.#fetch(path, {
      method: "POST",
      headers: this.#headers({ "content-type": "application/json" }),
      body: JSON.stringify({ ...body, stream: true }),
      signal,
    });
    if (!response.ok) throw await this.#failed(response);
    if (!response.body) throw new ApiError("The API sent an empty answer", response.status);
    for await (const line of jsonLines(response.body)) {
      const failure = (line as { error?: { message?: string } }).error;
      if (failure) {
        throw new ApiError(failure.message || "The answer broke off", 502);
      }
      yield line as MessageLine;
    }
  }

  /** A POST whose answer is JSON Lines of progress, then its result. */
  async #withProgress<T>(path: string, body: unknown, options: ProgressOptions): Promise<T> {
    const response = await this.#fetch(path, {
      method: "POST",
      headers: this.#headers({
        accept: "application/x-ndjson",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      }),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: options.signal,
    });
    if (!response.ok) throw await this.#failed(response);
    if (!response.body) throw new ApiError("The API sent an empty answer", response.status);
    let result: T | undefined;
    for await (const line of jsonLines(response.body)) {
      const { progress, error } = line as {
        progress?: PrepareProgress;
        error?: { message?: string };
      };
      if (error) throw new ApiError(error.message || "Preparing broke off", 502);
      if (progress) options.onProgress?.(progress);
      else result = line as T;
    }
    if (result === undefined) throw new ApiError("Preparing broke off before it ended", 502);
    return result;
  }

  async #json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.#fetch(path, {
      method,
      headers: this.#headers(body === undefined ? {} : { "content-type": "application/json" }),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw await this.#failed(response);
    return await response.json();
  }

  #headers(extra: Record<string, string>): Record<string, string> {
    const token = this.#options.token?.();
    return token ? { ...extra, authorization: `Bearer ${token}` } : extra;
  }

  async #fetch(path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(`${this.baseUrl}${path}`, init);
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw this.#unreachable();
    }
  }

  async #failed(response: Response): Promise<ApiError> {
    if (response.status === 401) this.#options.onUnauthorized?.();
    return await errorOf(response);
  }

  #unreachable(): ApiError {
    return new ApiError(
      `Cannot reach the svc API at ${this.baseUrl}. Check that it is running ` +
        `("svc ui" starts it, or "svc api"), then try again`,
      0,
    );
  }
}

/** Options of the calls that prepare documents. */
export interface ProgressOptions {
  /** Told each step of each document. */
  onProgress?: (progress: PrepareProgress) => void;
  /** Stops the work, on the server too. */
  signal?: AbortSignal;
}

/** The error of a failed response, in the API's words when it gave them. */
export async function errorOf(response: Response): Promise<ApiError> {
  let message = "";
  try {
    const body = await response.json();
    message = typeof body?.error?.message === "string" ? body.error.message : "";
  } catch {
    // Not the API's JSON error: a proxy's page, say. The status line says enough.
  }
  const fallback = `The API answered ${response.status}${
    response.statusText ? ` ${response.statusText}` : ""
  }`;
  return new ApiError(message || fallback, response.status);
}

/** Any error in words, for the page. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
