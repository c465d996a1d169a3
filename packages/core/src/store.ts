import { Context, type Effect, type Option } from "effect"
import type {
  IllegalTransition,
  InvocationAlreadyExists,
  InvocationNotFound,
  RecordTooLarge,
  StoreError
} from "./errors.js"
import { isValidId, type RunId, type ToolCallId } from "./ids.js"
import type { CanonicalInvocation, ProjectingInvocation, TerminalInvocation } from "./invocation.js"

/** Operations of the canonical invocation store (the short-lived truth record of each tool call). */
export interface CanonicalInvocationStoreShape {
  /** Create-if-absent with the store's TTL set at creation. */
  readonly create: (
    record: ProjectingInvocation
  ) => Effect.Effect<void, InvocationAlreadyExists | RecordTooLarge | StoreError>
  /**
   * Atomically check the current status is PROJECTING, write `next` and keep the remaining
   * TTL. Exactly one of two concurrent transitions of one record wins.
   */
  readonly transition: (
    next: TerminalInvocation
  ) => Effect.Effect<void, InvocationNotFound | IllegalTransition | RecordTooLarge | StoreError>
  /** Read a record. Never renews its TTL. Expired records are absent. */
  readonly get: (
    runId: RunId,
    toolCallId: ToolCallId
  ) => Effect.Effect<Option.Option<CanonicalInvocation>, StoreError>
}

/** The short-TTL store of canonical invocations (in-memory, Redis, ...). */
export class CanonicalInvocationStore extends Context.Service<
  CanonicalInvocationStore,
  CanonicalInvocationStoreShape
>()("@aiops-harness/core/CanonicalInvocationStore") {}

/** Configuration every canonical invocation store takes. */
export interface CanonicalStoreConfig {
  /** Time to live of a record, set at creation, in milliseconds. */
  readonly ttlMillis: number
  /** Maximum serialized size of one record in UTF-8 bytes. */
  readonly maxRecordBytes: number
  /** Key prefix, e.g. `aiops`. */
  readonly keyPrefix: string
}

/** Default store configuration: 30 min TTL, 16 MiB records, `aiops` key prefix. */
export const defaultCanonicalStoreConfig: CanonicalStoreConfig = {
  ttlMillis: 30 * 60 * 1000,
  maxRecordBytes: 16 * 1024 * 1024,
  keyPrefix: "aiops"
}

/**
 * A key prefix may not contain `{` or `}`: a hash tag in the prefix would put every run on
 * one Redis Cluster slot.
 */
export const KEY_PREFIX_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/
/** True when the value is a valid store key prefix (`KEY_PREFIX_PATTERN`). */
export const isValidKeyPrefix = (prefix: unknown): prefix is string =>
  typeof prefix === "string" && KEY_PREFIX_PATTERN.test(prefix)

/**
 * The one key layout: `<prefix>:run:{<runId>}:inv:<toolCallId>`. The `{runId}` hash tag
 * keeps a run's keys on one Redis Cluster slot. Ids are re-validated here because a key
 * is the last place a hostile id could do harm.
 */
export const canonicalInvocationKey = (prefix: string, runId: RunId, toolCallId: ToolCallId): string => {
  if (!isValidKeyPrefix(prefix)) throw new TypeError("canonicalInvocationKey: invalid key prefix")
  if (!isValidId(runId) || !isValidId(toolCallId)) throw new TypeError("canonicalInvocationKey: invalid id")
  return `${prefix}:run:{${runId}}:inv:${toolCallId}`
}
