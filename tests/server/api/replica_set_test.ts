/**
 * The REST tests of the 0.2.1 interface (a whole chat, the chats' routes and
 * the streamed answers) and of what came after it (changing a chat, preparing
 * with progress, citations, the OpenAI-compatible API, a document's content,
 * the list of documents, versions, edits and feedback)
 * run again against a replica set:
 * three APIs, each with a local root of its own, on one PostgreSQL database,
 * every call going to the next replica. They run on libSQL alone in their
 * own files; PostgreSQL is required in CI (see tests/_postgres.ts), and left
 * out of the unit tier (see tests/_tier.ts).
 * @module
 */
import { findPostgres, postgresRequired } from "../../_postgres.ts";
import { unitTier } from "../../_tier.ts";
import { useReplicaSet } from "./_api.ts";

if (unitTier()) {
  // The tests run on libSQL in their own files; this file adds only their PostgreSQL runs.
} else if (findPostgres() !== undefined || postgresRequired()) {
  useReplicaSet(3);
  await import("./e2e_test.ts");
  await import("./chats_test.ts");
  await import("./stream_test.ts");
  await import("./chat_changes_test.ts");
  await import("./prepare_stream_test.ts");
  await import("./answer_stream_test.ts");
  await import("./citations_test.ts");
  await import("./openai_test.ts");
  await import("./document_content_test.ts");
  await import("./document_list_test.ts");
  await import("./messages_test.ts");
} else {
  console.warn(
    "Skipping the REST tests on a replica set: no PostgreSQL is installed (apt-get install " +
      "postgresql-15); set SVC_REQUIRE_POSTGRES=1 to make this a failure",
  );
}
