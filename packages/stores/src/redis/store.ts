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
import { closeBounded, connectBounded, createConnection, type RedisConnection, storeError } from "./client.js"
import {
  DEFAULT_COMPRESS_ABOVE_BYTES,
  type RedisCanonicalStoreConfig,
  validateRedisCanonicalStoreConfig
} from "./config.js"
import { decodeStored, encodeStored } from "./encoding.js"
import { TRANSITION_LUA, TRANSITION_SHA1, TransitionReply } from "./transition-script.js"

type Operation = StoreError["operation"]

const corrupt = (operation: Operation, cause?: unknown) =>
  new StoreError({ operation, reason: "CORRUPT_RECORD", ...(cause === undefined ? {} : { cause }) })

const decodeRecord = (
  stored: Buffer,
  operation: Operation
): Effect.Effect<CanonicalInvocation, StoreError> => {
  const json = decodeStored(stored)
  if (json === null) return Effect.fail(corrupt(operation))
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (cause) {
    return Effect.fail(corrupt(operation, cause))
  }
  const record = parseCanonicalInvocation(value)
  return record === undefined ? Effect.fail(corrupt(operation)) : Effect.succeed(record)
}

const isNoScript = (cause: unknown): boolean => cause instanceof Error && cause.message.startsWith("NOSCRIPT")

/** What a command sends, and what its reply becomes. */
interface Command<A, B, E> {
  readonly operation: Operation
  readonly send: () => Promise<A>
  /** Sent instead when `send` fails with `NOSCRIPT` (EVALSHA of a script the server lost). */
  readonly onNoScript?: () => Promise<A>
  readonly reply: (value: A) => Effect.Effect<B, E>
}

/**
 * The store's operations over an already connected `RedisConnection`. Each operation is one
 * Effect around one Redis command, bounded by one timer of `commandTimeoutMs` (ioredis' own
 * command timeout is off, see client.ts): a racing fiber or promise per command cost about a
 * third of a local round trip.
 */
export const makeRedisCanonicalStoreWith = (
  connection: RedisConnection,
  config: RedisCanonicalStoreConfig
): CanonicalInvocationStoreShape => {
  const { keyPrefix, ttlMillis, maxRecordBytes, commandTimeoutMs } = config
  const compressAboveBytes = config.compressAboveBytes ?? DEFAULT_COMPRESS_ABOVE_BYTES

  const run = <A, B, E>(command: Command<A, B, E>): Effect.Effect<B, E | StoreError> =>
    Effect.callback<B, E | StoreError>((resume) => {
      let settled = false
      let timer: ReturnType<typeof setTimeout> | undefined
      const settle = (effect: Effect.Effect<B, E | StoreError>) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resume(effect)
      }
      // One timer per command sent: an EVAL after NOSCRIPT gets its own full bound.
      const arm = () => {
        clearTimeout(timer)
        timer = setTimeout(
          () => settle(Effect.fail(new StoreError({ operation: command.operation, reason: "TIMEOUT" }))),
          commandTimeoutMs
        )
        timer.unref?.()
      }
      const ok = (value: A) => settle(command.reply(value))
      const failed = (cause: unknown) => settle(Effect.fail(storeError(command.operation, cause)))
      const sendWith = (send: () => Promise<A>, onError: (cause: unknown) => void) => {
        arm()
        try {
          send().then(ok, onError)
        } catch (cause) {
          onError(cause)
        }
      }
      const { onNoScript } = command
      sendWith(command.send, (cause) =>
        onNoScript !== undefined && isNoScript(cause) && !settled
          ? sendWith(onNoScript, failed)
          : failed(cause)
      )
    })

  /**
   * The stored value of a record, its UTF-8 size counted once. A remembered raw text is written
   * into the value's bytes directly: joining it to the rest as one string first would make V8
   * copy (flatten) the whole text once more just to count or send it.
   */
  const encode = (record: CanonicalInvocation): string | Buffer | RecordTooLarge => {
    const { head, rawText } = invocationJsonParts(record)
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

  /** `write(key, value)` with the record's key and stored value; over the size limit, `RecordTooLarge`. */
  const written = <E>(
    record: CanonicalInvocation,
    write: (key: string, value: string | Buffer) => Effect.Effect<void, E>
  ): Effect.Effect<void, E | RecordTooLarge> =>
    Effect.suspend((): Effect.Effect<void, E | RecordTooLarge> => {
      const key = canonicalInvocationKey(keyPrefix, record.runId, record.toolCallId)
      const value = encode(record)
      return value instanceof RecordTooLarge ? Effect.fail(value) : write(key, value)
    })

  const transitionReply =
    (next: TerminalInvocation) =>
    (reply: unknown): Effect.Effect<void, InvocationNotFound | IllegalTransition | StoreError> => {
      const [code, from] = Array.isArray(reply) ? reply : []
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
      written(record, (key, value) =>
        run({
          operation: "create",
          send: () => connection.setPxNx(key, value, ttlMillis),
          reply: (reply) =>
            reply === null
              ? Effect.fail(
                  new InvocationAlreadyExists({ runId: record.runId, toolCallId: record.toolCallId })
                )
              : Effect.void
        })
      ),

    transition: (next) =>
      written(next, (key, value) =>
        run({
          operation: "transition",
          send: () => connection.evalsha(TRANSITION_SHA1, key, value),
          onNoScript: () => connection.eval(TRANSITION_LUA, key, value),
          reply: transitionReply(next)
        })
      ),

    get: (runId, toolCallId) =>
      Effect.suspend(() => {
        const key = canonicalInvocationKey(keyPrefix, runId, toolCallId)
        return run({
          operation: "get",
          send: () => connection.get(key),
          reply: (stored) =>
            stored === null
              ? Effect.succeed(Option.none())
              : Effect.map(decodeRecord(stored, "get"), Option.some)
        })
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
