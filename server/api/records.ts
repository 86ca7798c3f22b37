/**
 * Core objects as the REST API shows them and the database keeps them.
 * @module
 */
import type { Message } from "../../components/core/message.ts";
import type { Source } from "../../components/core/source.ts";
import { citationsOf } from "./citations.ts";
import type * as api from "./schemas.ts";

/** A source as the REST API shows it. */
export function sourceRecord(source: Source): api.Source {
  return {
    id: source.id,
    document: { id: source.document.id, name: source.document.name },
    location: source.location,
    content: source.content,
    num_tokens: source.numTokens,
  };
}

/**
 * A message as the REST API shows it, with the sources its content cites; a
 * streamed one must have been read.
 */
export function messageRecord(message: Message, content: string = message.content): api.Message {
  return {
    id: message.id,
    content,
    role: message.role,
    sources: message.sources.map(sourceRecord),
    timestamp: message.timestamp.toISOString(),
    citations: citationsOf(content, message.sources.length),
  };
}
