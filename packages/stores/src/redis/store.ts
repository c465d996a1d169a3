import {
  type CanonicalInvocation,
  CanonicalInvocationSchema,
  CanonicalInvocationStore,
  type CanonicalInvocationStoreShape,
  canonicalInvocationKey,
  encodeInvocation,
  IllegalTransition,
  InvocationAlreadyExists,
  InvocationNotFound,
  RecordTooLarge,
  StoreError,
  utf8Bytes
} from "@aiops-harness/core"
import { Effect, Layer, Option, type Scope } from "effect"
import {
  closeBounded,
  connectBounded,
  createConnection,
  type RedisConnection,
  storeError,
  TIMEOUT_GRACE_MS
} from "./client.js"
import {
  DEFAULT_COMPRESS_ABOVE_BYTES,
  type RedisCanonicalStoreConfig,
  validateRedisCanonicalStoreConfig
} from "./config.js"
import { decodeStored, encodeStored } from "./encoding.js"
import { TRANSITION_LUA, TRANSITION_SHA1, TransitionReply } from "./transition-script.js"

type Operation = StoreError["operation"]

const decodeRecord = (
  stored: Buffer,
  operation: Operation
): Effect.Effect<CanonicalInvocation, StoreError> => {
  const json = decodeStored(stored)
  if (json === null) return Effect.fail(new StoreError({ operation, reason: "CORRUPT_RECORD" }))
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (cause) {
    return Effect.fail(new StoreError({ operation, reason: "CORRUPT_RECORD", cause }))
  }
  const parsed = CanonicalInvocationSchema.safeParse(value)
  return parsed.success
    ? Effect.succeed(parsed.data)
    : Effect.fail(new StoreError({ operation, reason: "CORRUPT_RECORD" }))
}

/** Rejection value of {@link withDeadline}. */
const DEADLINE = Symbol("deadline")

/**
 * `promise`, or a rejection with {@link DEADLINE} after `millis`. A plain timer, cleared when the
 * promise settles: an Effect-level timeout (a racing fiber per command) cost about a third of a
 * local Redis round trip.
 */
const withDeadline = <A>(promise: Promise<A>, millis: number): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(DEADLINE), millis)
    timer.unref?.()
  })
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer))
}

const isNoScript = (cause: unknown): boolean => cause instanceof Error && cause.message.startsWith("NOSCRIPT")

/**
 * The store's operations over an already connected `RedisConnection`. Every command is
 * bounded twice: by ioredis' `commandTimeout` and, as a last line of defence, by a timer a
 * little longer (wall clock).
 */
export const makeRedisCanonicalStoreWith = (
  connection: RedisConnection,
  config: RedisCanonicalStoreConfig
): CanonicalInvocationStoreShape => {
  const { keyPrefix, ttlMillis, maxRecordBytes } = config
  const compressAboveBytes = config.compressAboveBytes ?? DEFAULT_COMPRESS_ABOVE_BYTES
  const bound = config.commandTimeoutMs + TIMEOUT_GRACE_MS

  const command = <A>(
    operation: Operation,
    run: () => Promise<A>,
    commands = 1
  ): Effect.Effect<A, StoreError> =>
    Effect.tryPromise({
      try: () => withDeadline(run(), bound * commands),
      catch: (cause) =>
        cause === DEADLINE ? new StoreError({ operation, reason: "TIMEOUT" }) : storeError(operation, cause)
    })

  // The limit applies to the JSON text (what the record is), compressed or not.
  const encode = (record: CanonicalInvocation): Effect.Effect<string | Buffer, RecordTooLarge> =>
    Effect.suspend(() => {
      const json = encodeInvocation(record)
      const bytes = utf8Bytes(json)
      return bytes > maxRecordBytes
        ? Effect.fail(new RecordTooLarge({ bytes, limit: maxRecordBytes }))
        : Effect.succeed(encodeStored(json, record.status, compressAboveBytes))
    })

  return {
    create: (record) =>
      Effect.gen(function* () {
        const key = canonicalInvocationKey(keyPrefix, record.runId, record.toolCallId)
        const json = yield* encode(record)
        const reply = yield* command("create", () => connection.setPxNx(key, json, ttlMillis))
        if (reply === null) {
          return yield* new InvocationAlreadyExists({ runId: record.runId, toolCallId: record.toolCallId })
        }
      }),

    transition: (next) =>
      Effect.gen(function* () {
        const key = canonicalInvocationKey(keyPrefix, next.runId, next.toolCallId)
        const json = yield* encode(next)
        const reply = yield* command(
          "transition",
          async () => {
            try {
              return await connection.evalsha(TRANSITION_SHA1, key, json)
            } catch (cause) {
              if (!isNoScript(cause)) throw cause
              return await connection.eval(TRANSITION_LUA, key, json)
            }
          },
          2
        )
        const [code, from] = Array.isArray(reply) ? reply : []
        switch (code) {
          case TransitionReply.WRITTEN:
            return
          case TransitionReply.NOT_FOUND:
            return yield* new InvocationNotFound({ runId: next.runId, toolCallId: next.toolCallId })
          case TransitionReply.ILLEGAL:
            if (from === "READY" || from === "ERROR") {
              return yield* new IllegalTransition({
                from,
                to: next.status,
                runId: next.runId,
                toolCallId: next.toolCallId
              })
            }
            return yield* new StoreError({ operation: "transition", reason: "CORRUPT_RECORD" })
          case TransitionReply.CORRUPT:
            return yield* new StoreError({ operation: "transition", reason: "CORRUPT_RECORD" })
          default:
            return yield* new StoreError({
              operation: "transition",
              reason: "UNAVAILABLE",
              cause: new Error("unexpected transition script reply")
            })
        }
      }),

    get: (runId, toolCallId) =>
      Effect.gen(function* () {
        const key = canonicalInvocationKey(keyPrefix, runId, toolCallId)
        const json = yield* command("get", () => connection.get(key))
        if (json === null) return Option.none()
        return Option.some(yield* decodeRecord(json, "get"))
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
