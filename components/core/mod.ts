/**
 * The core of svc: chats over documents with a source storage and an
 * assistant, and the contracts that components implement.
 * @module
 */
export { Chat } from "./chat.ts";
export type { AnswerOptions, ChatComponents, ChatOptions, PrepareOptions } from "./chat.ts";
export { Assistant, Component, displayNameOf, SourceStorage } from "./component.ts";
export type { AnswerChunks, ComponentClass, ComponentRef, Family } from "./component.ts";
export { Document, LocalDocument, supportedSuffixes } from "./document.ts";
export type { DocumentClass, DocumentOptions } from "./document.ts";
export { quote, SvcError, unreadable } from "./errors.ts";
export type { SvcErrorOptions } from "./errors.ts";
export { localRoot } from "./local_root.ts";
export { Message, MessageRole } from "./message.ts";
export type { MessageOptions } from "./message.ts";
export type { Page } from "./page.ts";
export type { PrepareProgress, PrepareProgressCallback, PrepareStage } from "./progress.ts";
export { paramsJsonSchema, SPECIAL_PARAMS, validateParams } from "./params.ts";
export type {
  ChatParams,
  HistoryMessage,
  ParamProblem,
  ParamRule,
  ParamSchema,
  SpecialParams,
} from "./params.ts";
export {
  EnvVarRequirement,
  ModelRequirement,
  PackageRequirement,
  ServerRequirement,
} from "./requirements.ts";
export type { Requirement, ServerRequirementOptions } from "./requirements.ts";
export type { Source } from "./source.ts";
