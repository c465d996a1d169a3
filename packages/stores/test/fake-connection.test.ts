import { StoreError } from "@aiops-harness/core"
import { projectingRecord, readyRecord } from "@aiops-harness/core/testing"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { RedisConnection } from "../src/redis/client.js"
import { makeRedisCanonicalStoreWith } from "../src/redis/store.js"
import { TRANSITION_LUA, TRANSITION_SHA1 } from "../src/redis/transition-script.js"

const config = {
  url: "redis://fake",
  keyPrefix: "fake",
  ttlMillis: 1_000,
  maxRecordBytes: 4_096,
  commandTimeoutMs: 100,
  connectTimeoutMs: 100
}

const fake = (overrides: Partial<RedisConnection>): RedisConnection => ({
  get: async () => null,
  setPxNx: async () => "OK",
  evalsha: async () => [0],
  eval: async () => [0],
  memoryConfig: async () => ({ policy: "volatile-ttl", maxmemory: 0 }),
  connect: async () => {},
  quit: async () => "OK",
  disconnect: () => {},
  ...overrides
})

describe("Redis store command handling (fake connection, no server)", () => {
  it("falls back from EVALSHA to EVAL on NOSCRIPT, with the script and its SHA1", async () => {
    const calls: string[] = []
    const store = makeRedisCanonicalStoreWith(
      fake({
        evalsha: async (sha1) => {
          calls.push(`evalsha:${sha1}`)
          throw new Error("NOSCRIPT No matching script. Please use EVAL.")
        },
        eval: async (script) => {
          calls.push(`eval:${script === TRANSITION_LUA}`)
          return [0]
        }
      }),
      config
    )
    await Effect.runPromise(store.transition(readyRecord(projectingRecord())))
    expect(calls).toEqual([`evalsha:${TRANSITION_SHA1}`, "eval:true"])
  })

  it("a non-NOSCRIPT script error is StoreError UNAVAILABLE, without EVAL", async () => {
    let evals = 0
    const store = makeRedisCanonicalStoreWith(
      fake({
        evalsha: async () => {
          throw new Error("CLUSTERDOWN The cluster is down")
        },
        eval: async () => {
          evals++
          return [0]
        }
      }),
      config
    )
    const error = await Effect.runPromise(Effect.flip(store.transition(readyRecord(projectingRecord()))))
    expect(error).toMatchObject({ _tag: "StoreError", operation: "transition", reason: "UNAVAILABLE" })
    expect(evals).toBe(0)
  })

  it("maps script replies: not found, illegal (with the stored status), corrupt, unexpected", async () => {
    // Codes are integers (`[n]`, as earlier scripts replied, reads the same).
    const replies: Array<[unknown, Record<string, unknown>]> = [
      [1, { _tag: "InvocationNotFound" }],
      [[1], { _tag: "InvocationNotFound" }],
      [[2, "ERROR"], { _tag: "IllegalTransition", from: "ERROR", to: "READY" }],
      [[2, "BOGUS"], { _tag: "StoreError", reason: "CORRUPT_RECORD" }],
      [2, { _tag: "StoreError", reason: "CORRUPT_RECORD" }],
      [3, { _tag: "StoreError", reason: "CORRUPT_RECORD" }],
      [[3], { _tag: "StoreError", reason: "CORRUPT_RECORD" }],
      [4, { _tag: "StoreError", reason: "UNAVAILABLE" }],
      ["OK", { _tag: "StoreError", reason: "UNAVAILABLE" }]
    ]
    for (const [reply, expected] of replies) {
      const store = makeRedisCanonicalStoreWith(fake({ evalsha: async () => reply }), config)
      const error = await Effect.runPromise(Effect.flip(store.transition(readyRecord(projectingRecord()))))
      expect(error).toMatchObject(expected)
    }
  })

  it("a command that never settles is StoreError TIMEOUT at its deadline", async () => {
    const never = () => new Promise<never>(() => {})
    const store = makeRedisCanonicalStoreWith(fake({ get: never, setPxNx: never, evalsha: never }), config)
    const record = projectingRecord()
    const started = Date.now()
    const errors = await Effect.runPromise(
      Effect.all([
        Effect.flip(store.get(record.runId, record.toolCallId)),
        Effect.flip(store.create(record)),
        Effect.flip(store.transition(readyRecord(record)))
      ])
    )
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(errors.map((e) => [e._tag, e._tag === "StoreError" && e.reason])).toEqual([
      ["StoreError", "TIMEOUT"],
      ["StoreError", "TIMEOUT"],
      ["StoreError", "TIMEOUT"]
    ])
    expect(errors.map((e) => (e as StoreError).operation)).toEqual(["get", "create", "transition"])
  })

  it("ioredis 'Command timed out' is TIMEOUT, connection errors are UNAVAILABLE", async () => {
    const timedOut = makeRedisCanonicalStoreWith(
      fake({
        get: async () => {
          throw new Error("Command timed out")
        }
      }),
      config
    )
    const closed = makeRedisCanonicalStoreWith(
      fake({
        setPxNx: async () => {
          throw new Error("Connection is closed.")
        }
      }),
      config
    )
    const r = projectingRecord()
    expect(await Effect.runPromise(Effect.flip(timedOut.get(r.runId, r.toolCallId)))).toMatchObject({
      reason: "TIMEOUT"
    })
    const e = await Effect.runPromise(Effect.flip(closed.create(r)))
    expect(e).toBeInstanceOf(StoreError)
    expect(e).toMatchObject({ operation: "create", reason: "UNAVAILABLE" })
  })

  it("a reply the store cannot map (a thrown bug) is a defect of that call, at once, not a hang", async () => {
    const store = makeRedisCanonicalStoreWith(
      fake({
        get: async () =>
          ({
            // A Buffer whose reading throws: stands for a bug in the reply mapping.
            get length(): number {
              throw new Error("boom")
            }
          }) as unknown as Buffer
      }),
      { ...config, commandTimeoutMs: 10_000 }
    )
    const r = projectingRecord()
    const started = Date.now()
    const exit = await Effect.runPromiseExit(store.get(r.runId, r.toolCallId))
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(exit._tag).toBe("Failure")
    expect(JSON.stringify(exit)).toContain("Die")
  })

  it("script reply 0 (or [0]) is a written transition", async () => {
    for (const reply of [0, [0]]) {
      const store = makeRedisCanonicalStoreWith(fake({ evalsha: async () => reply }), config)
      await Effect.runPromise(store.transition(readyRecord(projectingRecord())))
    }
  })

  it("SET NX answering nil is InvocationAlreadyExists with the ids", async () => {
    const store = makeRedisCanonicalStoreWith(fake({ setPxNx: async () => null }), config)
    const r = projectingRecord()
    expect(await Effect.runPromise(Effect.flip(store.create(r)))).toMatchObject({
      _tag: "InvocationAlreadyExists",
      runId: r.runId,
      toolCallId: r.toolCallId
    })
  })
})
