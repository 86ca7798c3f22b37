/**
 * `/openapi.json`, generated from the route table and the zod schemas, and
 * `/docs`, which renders it with Swagger UI's assets served by svc itself.
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import { VERSION } from "../../components/version.ts";
import { CONTENT_TYPES } from "./document_content.ts";
import * as openai from "./openai_schemas.ts";
import * as schemas from "./schemas.ts";

interface Operation {
  method: "get" | "post" | "put" | "patch" | "delete";
  path: string;
  summary: string;
  auth?: "bearer" | "upload token";
  /** The query parameters, each optional. */
  query?: z.ZodObject;
  /** The request headers of its own, each optional. */
  headers?: z.ZodObject;
  body?: z.ZodType;
  form?: z.ZodType;
  multipart?: z.ZodType;
  response: z.ZodType;
  /** The media types of a file it answers with instead of JSON. */
  files?: string[];
  stream?: boolean;
  /** The lines of its JSON Lines answer, when it gives one for `Accept: application/x-ndjson`. */
  lines?: z.ZodType;
  /** The data of each server-sent event, when the route can answer with them. */
  events?: z.ZodType;
  /** The shape of its errors. @default {schemas.ErrorBody} */
  error?: z.ZodType;
  /** Statuses of its own refusals, each with what it means. */
  errors?: Record<number, string>;
}

const Id = z.string();
const OPERATIONS: Operation[] = [
  { method: "get", path: "/", summary: "The version of svc", response: z.string() },
  {
    method: "get",
    path: "/health",
    summary: "Whether the API is up and its database answers (503 naming it when not)",
    response: z.object({ status: z.literal("ok") }),
  },
  {
    method: "post",
    path: "/token",
    summary: "Log in: a bearer token",
    form: schemas.LoginForm,
    response: z.string(),
    errors: {
      429: "Too many failed logins of the user from the address, from the address, or of the " +
        "user from all addresses; or too many passwords waiting to be checked: Retry-After " +
        "says when to try again",
    },
  },
  {
    method: "post",
    path: "/logout",
    summary: "Log out: the bearer token's session ends at once",
    auth: "bearer",
    response: z.null(),
    errors: {
      400: "The bearer is an API key, which has no session: revoke it at DELETE /api-keys/{id}",
    },
  },
  {
    method: "post",
    path: "/api-keys",
    summary: "Create a named API key for a program: the key is in this answer only",
    auth: "bearer",
    body: schemas.ApiKeyCreation,
    response: schemas.NewApiKey,
    errors: { 429: "The user has the most API keys a user may have: revoke one first" },
  },
  {
    method: "get",
    path: "/api-keys",
    summary: "The user's API keys, oldest first, without the keys themselves",
    auth: "bearer",
    response: z.array(schemas.ApiKey),
  },
  {
    method: "get",
    path: "/api-keys/{id}",
    summary: "One of the user's API keys, without the key itself",
    auth: "bearer",
    response: schemas.ApiKey,
    errors: { 404: "No such API key of this user" },
  },
  {
    method: "delete",
    path: "/api-keys/{id}",
    summary: "Revoke an API key: it is refused at once",
    auth: "bearer",
    response: z.null(),
    errors: { 404: "No such API key of this user" },
  },
  {
    method: "get",
    path: "/components",
    summary: "Document suffixes and the components with their parameters",
    auth: "bearer",
    response: schemas.Components,
  },
  {
    method: "post",
    path: "/document",
    summary: "Register a document: where and how to upload it",
    auth: "bearer",
    body: schemas.Registration,
    response: schemas.DocumentUpload,
    errors: {
      429: "The user has the most documents registered whose files have not come: Retry-After " +
        "says when the oldest expires",
    },
  },
  {
    method: "put",
    path: "/document",
    summary: "Upload a registered document's content",
    auth: "upload token",
    query: schemas.UploadQuery,
    headers: schemas.UploadHeaders,
    multipart: schemas.UploadForm,
    response: schemas.Document,
    errors: {
      408: "The body stopped coming, came slower than the least rate, or was not whole by the " +
        "upload's deadline",
    },
  },
  {
    method: "get",
    path: "/documents",
    summary: "The user's own uploaded documents, newest first: each one's size, its pages once " +
      "a chat read it, and the chats that use it",
    auth: "bearer",
    response: z.array(schemas.DocumentSummary),
  },
  {
    method: "delete",
    path: "/documents/{id}",
    summary: "Delete a document that no chat uses, with its file",
    auth: "bearer",
    response: z.null(),
    errors: {
      404: "No such document of this user",
      409: "Chats still use the document: the message names them",
    },
  },
  {
    method: "get",
    path: "/documents/{id}/content",
    summary: "A document's file as it was uploaded, whole or a range of it (Range, If-Range); " +
      "with an ETag, and 304 for If-None-Match",
    auth: "bearer",
    response: z.string().meta({ format: "binary" }),
    files: Object.values(CONTENT_TYPES),
    errors: {
      404: "No such document of this user, or its file was not uploaded",
      416: "The range is outside the file: Content-Range says its size",
    },
  },
  {
    method: "get",
    path: "/documents/{id}/pages",
    summary: "A document's pages as svc reads them: each page's (or slide's) number and text",
    auth: "bearer",
    response: schemas.DocumentPages,
    errors: {
      404: "No such document of this user, or its file was not uploaded",
      422: "The document cannot be read: the message says why",
    },
  },
  {
    method: "get",
    path: "/documents/{id}/view",
    summary: "A document as the web UI shows it: a Word document as sanitised HTML, a " +
      "presentation as its slides (title, text boxes, tables), Markdown and text as their " +
      "text, each with the text svc indexes and where each block is in it; a PDF is shown " +
      "from its content. With an ETag, and 304 for If-None-Match",
    auth: "bearer",
    response: schemas.DocumentView,
    errors: {
      404: "No such document of this user, or its file was not uploaded",
      422: "The document cannot be read: the message says why",
    },
  },
  {
    method: "post",
    path: "/chats",
    summary: "Create a chat",
    auth: "bearer",
    body: schemas.ChatMetadata,
    response: schemas.Chat,
  },
  {
    method: "get",
    path: "/chats",
    summary:
      "The user's chats, oldest first: with all their messages, or without (?messages=false)",
    auth: "bearer",
    query: schemas.ChatListQuery,
    response: z.union([z.array(schemas.Chat), z.array(schemas.ChatSummary)]),
  },
  { method: "get", path: "/chats/{id}", summary: "A chat", auth: "bearer", response: schemas.Chat },
  {
    method: "delete",
    path: "/chats/{id}",
    summary: "Delete a chat and what its source storage kept",
    auth: "bearer",
    response: z.null(),
  },
  {
    method: "patch",
    path: "/chats/{id}",
    summary: "Rename a chat: the chat",
    auth: "bearer",
    body: schemas.ChatRename,
    response: schemas.Chat,
  },
  {
    method: "post",
    path: "/chats/{id}/prepare",
    summary: "Store the chat's documents: the welcome message; with " +
      '"Accept: application/x-ndjson", JSON Lines of each document\'s progress, then the ' +
      "welcome message. Leaving stops it: the chat stays unprepared, nothing of it kept",
    auth: "bearer",
    response: schemas.Message,
    lines: z.union([schemas.ProgressLine, schemas.Message, schemas.ErrorBody]),
  },
  {
    method: "post",
    path: "/chats/{id}/documents",
    summary: "Add documents to a chat: the chat. A prepared chat stores only these, with " +
      '"Accept: application/x-ndjson" as JSON Lines of their progress, then the chat',
    auth: "bearer",
    body: schemas.ChatDocuments,
    response: schemas.Chat,
    lines: z.union([schemas.ProgressLine, schemas.Chat, schemas.ErrorBody]),
    errors: { 409: "The chat has one of the documents already" },
  },
  {
    method: "delete",
    path: "/chats/{id}/documents/{document_id}",
    summary: "Take a document out of a chat: the chat no longer answers from it, and its " +
      "source storage forgets it for the chat; the document stays (DELETE /documents/{id} " +
      "deletes it once no chat uses it)",
    auth: "bearer",
    response: schemas.Chat,
    errors: { 404: "No such chat or document of this user, or the chat does not have it" },
  },
  {
    method: "post",
    path: "/chats/{id}/regenerate",
    summary: "Answer the chat's last question again: the new answer is the message, the " +
      "earlier ones (stopped, failed or complete) its versions; whole or as JSON Lines of " +
      "messages",
    auth: "bearer",
    body: schemas.RegenerateBody,
    response: schemas.Message,
    stream: true,
    errors: {
      400: "The chat is not prepared, or has no question yet",
      409: "A whole answer was stopped (POST /chats/{id}/stop) before it was complete",
      504: "The answer took longer than its time limit (SVC_API_ANSWER_TIMEOUT), or the " +
        "provider did not answer in time",
    },
  },
  {
    method: "post",
    path: "/chats/{id}/answer",
    summary: "Answer a prompt, whole or as JSON Lines of messages. The answer runs to its end " +
      "on the server whether or not the client stays: GET /chats/{id} shows it meanwhile as " +
      '"streaming", with its text so far; POST /chats/{id}/stop or its time limit ' +
      "(SVC_API_ANSWER_TIMEOUT) ends it early. A stopped stream ends with a line marked " +
      '"status": "stopped"',
    auth: "bearer",
    body: schemas.AnswerBody,
    response: schemas.Message,
    stream: true,
    errors: {
      409: "A whole answer was stopped (POST /chats/{id}/stop) before it was complete",
      504: "The answer took longer than its time limit (SVC_API_ANSWER_TIMEOUT), or the " +
        "provider did not answer in time",
    },
  },
  {
    method: "post",
    path: "/chats/{id}/stop",
    summary: "Stop the chat's running answers, on whichever replica writes them: each is " +
      "stored as far as it was written, marked stopped",
    auth: "bearer",
    response: schemas.StopResult,
    errors: { 404: "No such chat of this user" },
  },
  {
    method: "get",
    path: "/chats/{id}/messages/{message_id}",
    summary: "A message of a chat with its versions, in the conversation or not",
    auth: "bearer",
    response: schemas.Message,
    errors: { 404: "No such chat of this user, or no such message in it" },
  },
  {
    method: "get",
    path: "/chats/{id}/messages/{message_id}/stream",
    summary: "Follow an answer from another client: JSON Lines, the first the message as far " +
      "as it was written with all its sources, then each chunk as it comes, ended as " +
      "POST /chats/{id}/answer ends its stream; an answer that ended already is its one line",
    auth: "bearer",
    response: z.union([schemas.MessageLine, schemas.ErrorBody]),
    files: ["application/x-ndjson"],
    errors: { 404: "No such chat of this user, or no such message in it" },
  },
  {
    method: "get",
    path: "/chats/{id}/messages/{message_id}/branch",
    summary: "The messages from a version of a question on: for one that an edit replaced, " +
      "the conversation as it went on from it; else the conversation from it on",
    auth: "bearer",
    response: z.array(schemas.Message),
    errors: {
      400: "The message is not a question",
      404: "No such chat of this user, or no such message in it",
    },
  },
  {
    method: "post",
    path: "/chats/{id}/messages/{message_id}/edit",
    summary: "Ask a question of the conversation again in other words: the question and the " +
      "messages after it leave the conversation, kept as its branch, and the new wording, one " +
      "of its versions, is answered after the messages before it; whole or as JSON Lines",
    auth: "bearer",
    body: schemas.AnswerBody,
    response: schemas.Message,
    stream: true,
    errors: {
      400: "The chat is not prepared, or the message is not a question of its conversation",
      404: "No such chat of this user, or no such message in it",
      409: "A whole answer was stopped (POST /chats/{id}/stop) before it was complete",
      504: "The answer took longer than its time limit (SVC_API_ANSWER_TIMEOUT), or the " +
        "provider did not answer in time",
    },
  },
  {
    method: "post",
    path: "/chats/{id}/messages/{message_id}/feedback",
    summary: "Rate an answer (any of its versions) good or bad, with an optional note; " +
      '"rating": null takes it back. The message. `svc export-labelled` turns the good ' +
      "ones into labelled questions",
    auth: "bearer",
    body: schemas.FeedbackBody,
    response: schemas.Message,
    errors: {
      400: "The message is not an answer",
      404: "No such chat of this user, or no such message in it",
    },
  },
  {
    method: "get",
    path: "/v1/models",
    summary: "OpenAI-compatible: the user's prepared chats, each as a model",
    auth: "bearer",
    response: openai.ModelList,
    error: openai.OpenAiErrorBody,
  },
  {
    method: "post",
    path: "/v1/chat/completions",
    summary: "OpenAI-compatible: answer the last user message over a chat's documents, whole " +
      'or as server-sent events ("stream": true) ended by [DONE]',
    auth: "bearer",
    body: openai.CompletionBody,
    response: openai.Completion,
    events: openai.CompletionChunk,
    error: openai.OpenAiErrorBody,
    errors: { 404: 'The model is none of the user\'s chats: the code is "model_not_found"' },
  },
];

const EXTRA_ROUTES: [string, string[]][] = [
  ["/chat/{id}/prepare", ["POST"]],
  ["/chat/{id}/answer", ["POST"]],
  ["/openapi.json", ["GET"]],
  ["/docs", ["GET"]],
  ["/mcp", ["POST"]],
];

/** The methods a path answers to, upper case; empty for an unknown path. */
export function allowedMethods(path: string): string[] {
  const routes: [string, string[]][] = [
    ...OPERATIONS.map((o): [string, string[]] => [o.path, [o.method.toUpperCase()]]),
    ...EXTRA_ROUTES,
  ];
  return routes
    .filter(([template]) => new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path))
    .flatMap(([, methods]) => methods);
}

/** The OpenAPI 3.1 document of the REST API. */
export function openApiDocument(serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of OPERATIONS) {
    const parameters = [
      ...[...operation.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
        name,
        in: "path",
        required: true,
        schema: jsonSchema(Id),
      })),
      ...optionalParameters("query", operation.query),
      ...optionalParameters("header", operation.headers),
    ];
    const content: Record<string, unknown> = operation.files
      ? Object.fromEntries(
        operation.files.map((type) => [type, { schema: jsonSchema(operation.response) }]),
      )
      : { "application/json": { schema: jsonSchema(operation.response) } };
    if (operation.stream) {
      content["application/x-ndjson"] = { schema: jsonSchema(schemas.MessageLine) };
    }
    if (operation.lines) {
      content["application/x-ndjson"] = { schema: jsonSchema(operation.lines) };
    }
    if (operation.events) {
      content["text/event-stream"] = { schema: jsonSchema(operation.events) };
    }
    const error = jsonSchema(operation.error ?? schemas.ErrorBody);
    const requestBody = operation.body
      ? { required: true, content: { "application/json": { schema: jsonSchema(operation.body) } } }
      : operation.form
      ? {
        required: true,
        content: { "application/x-www-form-urlencoded": { schema: jsonSchema(operation.form) } },
      }
      : operation.multipart
      ? {
        required: true,
        content: { "multipart/form-data": { schema: jsonSchema(operation.multipart) } },
      }
      : undefined;
    paths[operation.path] ??= {};
    paths[operation.path]![operation.method] = {
      summary: operation.summary,
      ...(operation.auth === "bearer" ? { security: [{ bearer: [] }] } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses: {
        200: { description: "Success", content },
        ...Object.fromEntries(
          Object.entries(operation.errors ?? {}).map(([status, description]) => [status, {
            description,
            content: { "application/json": { schema: error } },
          }]),
        ),
        default: {
          description: "An error, with a sentence that says what was wrong",
          content: { "application/json": { schema: error } },
        },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "svc", version: VERSION },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "A session token of POST /token, or an API key (svc_...) of POST /api-keys",
        },
      },
    },
    paths,
  };
}

/** The optional parameters of a query or of headers, each with its description. */
function optionalParameters(where: "query" | "header", shape: z.ZodObject | undefined) {
  return Object.entries(shape?.shape ?? {}).map(([name, schema]) => {
    const { description, ...rest } = jsonSchema(schema as z.ZodType);
    return { name, in: where, required: false, description, schema: rest };
  });
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any", reused: "inline" });
  delete (json as Record<string, unknown>).$schema;
  return json as Record<string, unknown>;
}

/** Swagger UI's files, which `/docs` loads from `docs/<name>`. */
const SWAGGER_UI_FILES = ["swagger-ui.css", "swagger-ui-bundle.js"] as const;

/** One of Swagger UI's files, gzipped, and inflated once a client takes no gzip. */
interface DocsAsset {
  contentType: string;
  gzipped: Uint8Array<ArrayBuffer>;
  inflated?: Promise<ArrayBuffer>;
}

let docsAssets: Promise<Map<string, DocsAsset>> | undefined;

/**
 * Swagger UI's files by name. Their module (server/swagger_ui_assets.ts, most
 * of the program's source) is imported on the first request of one, so that
 * a server whose docs nobody reads neither parses nor holds it.
 */
function swaggerUiAssets(): Promise<Map<string, DocsAsset>> {
  docsAssets ??= import("../swagger_ui_assets.ts").then(({ SWAGGER_UI_ASSETS }) =>
    new Map(SWAGGER_UI_ASSETS.map((asset) => [asset.name, {
      contentType: asset.contentType,
      gzipped: Uint8Array.fromBase64(asset.gzipBase64),
    }]))
  );
  return docsAssets;
}

/** `/openapi.json`, `/docs` and its assets. */
export function docsRoutes(serverUrl: string): Hono {
  const app = new Hono();
  // Made on the first request: most servers are never asked for it.
  let document: ReturnType<typeof openApiDocument> | undefined;
  app.get("/openapi.json", (c) => c.json(document ??= openApiDocument(serverUrl)));
  app.get("/docs", (c) => c.html(DOCS_PAGE));
  // Swagger UI's files are embedded (see server/swagger_ui_assets.ts), gzipped: sent as they are
  // to a client that takes gzip, inflated once for any other.
  for (const name of SWAGGER_UI_FILES) {
    app.get(`/docs/${name}`, async (c) => {
      const asset = (await swaggerUiAssets()).get(name)!;
      c.header("Content-Type", asset.contentType);
      c.header("Cache-Control", "public, max-age=86400");
      c.header("Vary", "Accept-Encoding");
      if (/\bgzip\b/.test(c.req.header("Accept-Encoding") ?? "")) {
        c.header("Content-Encoding", "gzip");
        return c.body(asset.gzipped);
      }
      asset.inflated ??= new Response(
        new Blob([asset.gzipped]).stream().pipeThrough(new DecompressionStream("gzip")),
      ).arrayBuffer();
      return c.body(await asset.inflated);
    });
  }
  return app;
}

// Relative links, so the page works under any root path and behind any proxy.
const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>svc REST API</title>
<link rel="stylesheet" href="docs/${SWAGGER_UI_FILES[0]}">
</head>
<body>
<div id="docs"></div>
<script src="docs/${SWAGGER_UI_FILES[1]}"></script>
<script>SwaggerUIBundle({ url: "openapi.json", dom_id: "#docs" });</script>
</body>
</html>
`;
