import { describe, expect, it } from "vitest"
import {
  RedisCanonicalStore,
  type RedisCanonicalStoreConfig,
  reconnectDelay,
  validateRedisCanonicalStoreConfig
} from "../src/index.js"

const good: RedisCanonicalStoreConfig = {
  url: "redis://127.0.0.1:6379",
  keyPrefix: "tenant-a:aiops.v1_x",
  ttlMillis: 1_000,
  maxRecordBytes: 4_096,
  commandTimeoutMs: 100,
  connectTimeoutMs: 100
}

describe("Redis store config validation (no server)", () => {
  it("accepts a valid config and returns it", () => {
    expect(validateRedisCanonicalStoreConfig(good)).toBe(good)
  })

  it("rejects key prefixes outside [A-Za-z0-9_.:-]{1,64} with a TypeError, in make and layer too", () => {
    for (const keyPrefix of ["", "a{b}", "{tenant}", "has space", "new\nline", "x".repeat(65), "ünï"]) {
      const bad = { ...good, keyPrefix }
      expect(() => validateRedisCanonicalStoreConfig(bad)).toThrow(TypeError)
      expect(() => RedisCanonicalStore.layer(bad)).toThrow(TypeError)
      expect(() => RedisCanonicalStore.make(bad)).toThrow(TypeError)
    }
    expect(() => validateRedisCanonicalStoreConfig({ ...good, keyPrefix: "x".repeat(64) })).not.toThrow()
  })

  it("rejects non-positive or fractional numbers with a RangeError naming the field", () => {
    const cases: Array<[Partial<RedisCanonicalStoreConfig>, RegExp]> = [
      [{ ttlMillis: 0 }, /ttlMillis/],
      [{ ttlMillis: 1.5 }, /ttlMillis/],
      [{ maxRecordBytes: -1 }, /maxRecordBytes/],
      [{ commandTimeoutMs: 0 }, /commandTimeoutMs/],
      [{ connectTimeoutMs: Number.NaN }, /connectTimeoutMs/],
      [{ reconnectMaxDelayMs: 0 }, /reconnectMaxDelayMs/]
    ]
    for (const [override, name] of cases) {
      const bad = { ...good, ...override }
      expect(() => validateRedisCanonicalStoreConfig(bad)).toThrow(RangeError)
      expect(() => validateRedisCanonicalStoreConfig(bad)).toThrow(name)
    }
  })

  it("rejects an empty url and an empty cluster node list with a TypeError", () => {
    expect(() => validateRedisCanonicalStoreConfig({ ...good, url: "" })).toThrow(TypeError)
    expect(() => validateRedisCanonicalStoreConfig({ ...good, cluster: { nodes: [] } })).toThrow(
      /cluster\.nodes/
    )
  })
})

describe("reconnection delay", () => {
  it("doubles from 50 ms up to the cap, deterministically, and never gives up", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => reconnectDelay(n, 2_000))).toEqual([
      50, 100, 200, 400, 800, 1_600, 2_000
    ])
    // Far past the old limit of 20 attempts: still a (capped) delay, never null.
    expect(reconnectDelay(21, 2_000)).toBe(2_000)
    expect(reconnectDelay(10_000, 2_000)).toBe(2_000)
    expect(reconnectDelay(5, 100)).toBe(100)
  })
})
