/**
 * The shapes of the REST API as the web UI sees them: the types of the
 * server's zod schemas (`server/api/schemas.ts`), where they are defined once,
 * imported type-only, so that no zod reaches the browser bundle; and what the
 * UI server tells the app.
 * @module
 */
export type {
  ApiKey,
  Chat,
  ChatMetadata,
  ChatSearchHit,
  ChatSummary,
  Components,
  ComponentSchema,
  Document,
  DocumentCheck,
  DocumentSummary,
  DocumentUpload,
  DocumentView as DocumentViewData,
  Feedback,
  Message,
  MessageLine,
  NewApiKey,
  ParamSchema,
  PrepareProgress,
  Source,
} from "../server/api/schemas.ts";

/** What the UI server tells the app in its page. */
export interface UiSettings {
  /** The REST API, as `api.url` says. */
  apiUrl: string;
  /** The svc version of the UI server. */
  version: string;
  /** The configured authentication is the demo one; `sharedPassword` when env sets its password. */
  demoAuthentication: { sharedPassword: boolean } | null;
  /** The configured authentication signs in at an OpenID provider, which the login page names. */
  openIdConnect: { name: string } | null;
  /** The configured authentication is a trusted proxy's: the login page asks nothing. */
  trustedProxy: boolean;
}
