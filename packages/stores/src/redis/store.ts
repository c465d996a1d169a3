import {
  type CanonicalInvocation,
  CanonicalInvocationStore,
  type CanonicalInvocationStoreShape,
  canonicalInvocationKey,
  IllegalTransition,
  InvocationAlreadyExists,
  InvocationNotFound,
  invocationJsonParts,
  parseCanonicalInvocation,
  RecordTooLarge,
  StoreError,
  type TerminalInvocation,
  utf8Bytes
} from "@aiops-harness/core"
import { Effect, Layer, Option, type Scope } from "effect"
import { closeBounded, connectBounded, createConnection, type RedisConnection } from "./client.js"
import {
  DEFAULT_COMPRESS_ABOVE_BYTES,
  type RedisCanonicalStoreConfig,
  validateRedisCanonicalStoreConfig
} from "./config.js"
import { type Command, startCommand } from "./command.js"
import { Deadlines } from "./deadlines.js"
import { decodeStored, encodeStored } from "./encoding.js"
import { TRANSITION_LUA, TRANSITION_SHA1, TransitionReply } from "./transition-script.js"

type Operation = StoreError["operation"]

const corrupt = (operation: Operation, cause?: unknown) =>
  new StoreError({ operation, reason: "CORRUPT_RECORD", ...(cause === undefined ? {} : { cause }) })

/** The record of a stored value, or the `StoreError` that says it is corrupt. */
const decodeRecord = (stored: Buffer, operation: Operation): CanonicalInvocation | StoreError => {
  const json = decodeStored(stored)
  if (json === null) return corrupt(operation)
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (cause) {
    return corrupt(operation, cause)
  }
  return parseCanonicalInvocation(value) ?? corrupt(operation)
}

/**
 * The store's operations over an already connected `RedisConnection`. Each operation is one
 * Effect around one Redis command (see command.ts), bounded by `commandTimeoutMs`.
 */
export const makeRedisCanonicalStoreWith = (
  connection: RedisConnection,
  config: RedisCanonicalStoreConfig
): CanonicalInvocationStoreShape => {
  const { keyPrefix, ttlMillis, maxRecordBytes, commandTimeoutMs } = config
  const compressAboveBytes = config.compressAboveBytes ?? DEFAULT_COMPRESS_ABOVE_BYTES
  const deadlines = new Deadlines(commandTimeoutMs)
  /** Records of at most this many UTF-8 bytes are neither too large nor compressed. */
  const smallRecordBytes = Math.min(maxRecordBytes, compressAboveBytes)

  /**
   * The stored value of a record, its UTF-8 size counted once. A remembered raw text is written
   * into the value's bytes directly: joining it to the rest as one string first would make V8
   * copy (flatten) the whole text once more just to count or send it.
   */
  const encode = (record: CanonicalInvocation): string | Buffer | RecordTooLarge => {
    const { head, rawText } = invocationJsonParts(record)
    // A text of n UTF-16 units is at most 3n UTF-8 bytes: a small record under both limits
    // need not be counted (most records are; counting is a pass over the text).
    if (rawText === undefined && head.length * 3 <= smallRecordBytes) return head
    const headBytes = utf8Bytes(head)
    const bytes = rawText === undefined ? headBytes : headBytes + utf8Bytes(rawText) + 1
    // The limit applies to the JSON text (what the record is), compressed or not.
    if (bytes > maxRecordBytes) return new RecordTooLarge({ bytes, limit: maxRecordBytes })
    let json: string | Buffer = head
    if (rawText !== undefined) {
      json = Buffer.allocUnsafe(bytes)
      json.write(head, 0, "utf8")
      json.write(rawText, headBytes, "utf8")
      json[bytes - 1] = 0x7d // "}"
    }
    return encodeStored(json, { status: record.status, compressAboveBytes, bytes })
  }

  /**
   * One Effect that encodes `record` and sends the command `write` makes of its key and stored
   * value; over the size limit, `RecordTooLarge` and nothing sent. (Encoding inside the callback
   * saves the extra suspended Effect per write.)
   */
  const written = <E>(
    record: CanonicalInvocation,
    write: (key: string, value: string | Buffer) => Command<unknown, void, E>
  ): Effect.Effect<void, E | RecordTooLarge | StoreError> =>
    Effect.callback((resume) => {
      const key = canonicalInvocationKey(keyPrefix, record.runId, record.toolCallId)
      const value = encode(record)
      if (value instanceof RecordTooLarge) resume(Effect.fail(value))
      else startCommand(deadlines, write(key, value), resume)
    })

  const transitionReply =
    (next: TerminalInvocation) =>
    (reply: unknown): Effect.Effect<void, InvocationNotFound | IllegalTransition | StoreError> => {
      const code: unknown = typeof reply === "number" ? reply : Array.isArray(reply) ? reply[0] : undefined
      const from: unknown = Array.isArray(reply) ? reply[1] : undefined
      switch (code) {
        case TransitionReply.WRITTEN:
          return Effect.void
        case TransitionReply.NOT_FOUND:
          return Effect.fail(new InvocationNotFound({ runId: next.runId, toolCallId: next.toolCallId }))
        case TransitionReply.ILLEGAL:
          return from === "READY" || from === "ERROR"
            ? Effect.fail(
                new IllegalTransition({
                  from,
                  to: next.status,
                  runId: next.runId,
                  toolCallId: next.toolCallId
                })
              )
            : Effect.fail(corrupt("transition"))
        case TransitionReply.CORRUPT:
          return Effect.fail(corrupt("transition"))
        default:
          return Effect.fail(
            new StoreError({
              operation: "transition",
              reason: "UNAVAILABLE",
              cause: new Error("unexpected transition script reply")
            })
          )
      }
    }

  return {
    create: (record) =>
      written(record, (key, value) => ({
        operation: "create",
        send: () => connection.setPxNx(key, value, ttlMillis),
        reply: (reply) =>
          reply === null
            ? Effect.fail(new InvocationAlreadyExists({ runId: record.runId, toolCallId: record.toolCallId }))
            : Effect.void
      })),

    transition: (next) =>
      written(next, (key, value) => ({
        operation: "transition",
        send: () => connection.evalsha(TRANSITION_SHA1, key, value),
        onNoScript: () => connection.eval(TRANSITION_LUA, key, value),
        reply: transitionReply(next)
      })),

    get: (runId, toolCallId) =>
      Effect.callback((resume) => {
        const key = canonicalInvocationKey(keyPrefix, runId, toolCallId)
        startCommand(
          deadlines,
          {
            operation: "get",
            send: () => connection.get(key),
            reply: (stored: Buffer | null) => {
              if (stored === null) return Effect.succeed(Option.none())
              const record = decodeRecord(stored, "get")
              return record instanceof StoreError ? Effect.fail(record) : Effect.succeed(Option.some(record))
            }
          },
          resume
        )
      })
  }
}

/**
 * Connects (bounded by `connectTimeoutMs`) and returns the store; the connection is closed
 * (`QUIT`, then disconnect) when the scope closes. A bad config throws at once (`TypeError`
 * or `RangeError`, see `validateRedisCanonicalStoreConfig`): it is a programming error.
 */
export const makeRedisCanonicalStore = (
  config: RedisCanonicalStoreConfig
): Effect.Effect<CanonicalInvocationStoreShape, StoreError, Scope.Scope> => {
  validateRedisCanonicalStoreConfig(config)
  return Effect.acquireRelease(
    Effect.suspend(() => connectBounded(createConnection(config), config)),
    (connection) => closeBounded(connection, config)
  ).pipe(Effect.map((connection) => makeRedisCanonicalStoreWith(connection, config)))
}

/**
 * Redis (single node or Cluster) backend of the core `CanonicalInvocationStore` service.
 * `layer(config)` validates the config when called (throws `TypeError`/`RangeError`).
 */
export const RedisCanonicalStore = {
  /** A scoped store: the connection is released when the scope closes. */
  make: makeRedisCanonicalStore,
  /** The store as a `CanonicalInvocationStore` layer. */
  layer: (config: RedisCanonicalStoreConfig): Layer.Layer<CanonicalInvocationStore, StoreError> =>
    Layer.effect(CanonicalInvocationStore, makeRedisCanonicalStore(config))
}
