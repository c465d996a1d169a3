import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import {
  DEMO_AWS_ACCESS_KEYS,
  DEMO_HOSTS,
  DEMO_IPS,
  DEMO_JWTS,
  DEMO_LEAK_MARKERS,
  DEMO_PASSWORDS,
  DEMO_PODS,
  DEMO_SECRETS,
  demoAllowlistJson,
  demoSchemaStatements,
  generateDemoLogs,
  isScenarioId,
  LOG_TOPICS,
  listRunbooks,
  mulberry32,
  runbooksDir,
  SCENARIO_IDS,
  toNdjson
} from "../src/demo/index.js"

const NOW = Date.parse("2026-03-15T10:30:00.000Z")

describe("demo log generator", () => {
  it("is deterministic for the same scenario, now and seed", () => {
    for (const scenario of SCENARIO_IDS) {
      const a = toNdjson(generateDemoLogs({ scenario, now: NOW }))
      const b = toNdjson(generateDemoLogs({ scenario, now: NOW }))
      expect(a).toBe(b)
    }
    expect(toNdjson(generateDemoLogs({ now: NOW, seed: 1 }))).not.toBe(
      toNdjson(generateDemoLogs({ now: NOW, seed: 2 }))
    )
  })

  it("mulberry32 is a pure function of its seed", () => {
    const a = mulberry32(7)
    const b = mulberry32(7)
    const xs = Array.from({ length: 5 }, () => a())
    expect(xs).toEqual(Array.from({ length: 5 }, () => b()))
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true)
  })

  it("writes sorted entries inside [now - minutes, now) with the documented shape", () => {
    const entries = generateDemoLogs({ scenario: "db-pool-exhaustion", now: NOW, minutes: 60 })
    expect(entries.length).toBeGreaterThan(600)
    let last = 0
    for (const e of entries) {
      const t = Date.parse(e.timestamp)
      expect(t).toBeGreaterThanOrEqual(NOW - 60 * 60_000)
      expect(t).toBeLessThan(NOW)
      expect(t).toBeGreaterThanOrEqual(last)
      last = t
      expect(LOG_TOPICS).toContain(e.topic)
      expect(["DEBUG", "INFO", "WARN", "ERROR"]).toContain(e.level)
      expect(DEMO_PODS).toContain(e.pod)
      expect(DEMO_HOSTS).toContain(e.host)
      expect(e.service.length).toBeGreaterThan(0)
    }
    const lines = toNdjson(entries).trimEnd().split("\n")
    expect(lines).toHaveLength(entries.length)
    expect(JSON.parse(lines[0]!)).toEqual(entries[0])
  })

  it("moves with the injected now", () => {
    const later = generateDemoLogs({ scenario: "calm", now: NOW + 3_600_000, minutes: 10 })
    for (const e of later) expect(Date.parse(e.timestamp)).toBeGreaterThanOrEqual(NOW + 3_000_000)
  })

  const signature: Record<string, RegExp> = {
    "db-pool-exhaustion": /Connection is not available, request timed out after 30000ms/,
    "oom-killed": /OOMKilled \(exit code 137\)/,
    "slow-query-orders": /FROM orders WHERE user_id = \d+ AND status = 'PENDING'/,
    "redis-timeouts": /RedisCommandTimeoutException: Command timed out after 2 second\(s\)/
  }

  it.each(Object.entries(signature))("scenario %s carries its incident signature", (scenario, re) => {
    const entries = generateDemoLogs({ scenario: scenario as never, now: NOW })
    expect(entries.filter((e) => re.test(e.message)).length).toBeGreaterThanOrEqual(5)
    for (const [other, otherRe] of Object.entries(signature)) {
      if (other === scenario) continue
      expect(entries.some((e) => otherRe.test(e.message))).toBe(false)
    }
  })

  it("the calm world has no incident and no WARN or ERROR line", () => {
    const entries = generateDemoLogs({ scenario: "calm", now: NOW })
    expect(entries.some((e) => e.level === "ERROR" || e.level === "WARN")).toBe(false)
    for (const re of Object.values(signature)) expect(entries.some((e) => re.test(e.message))).toBe(false)
  })

  it("mixes secrets, IPs, hosts and pods into the raw logs (so leak checks mean something)", () => {
    const text = SCENARIO_IDS.map((scenario) => toNdjson(generateDemoLogs({ scenario, now: NOW }))).join("\n")
    for (const marker of DEMO_LEAK_MARKERS) expect(text, marker).toContain(marker)
    for (const pod of DEMO_PODS) expect(DEMO_LEAK_MARKERS).toContain(pod)
    const messages = SCENARIO_IDS.flatMap((scenario) =>
      generateDemoLogs({ scenario, now: NOW }).map((e) => e.message)
    ).join("\n")
    for (const marker of [...DEMO_SECRETS, ...DEMO_IPS, ...DEMO_HOSTS])
      expect(messages, marker).toContain(marker)
    const pool = generateDemoLogs({ scenario: "db-pool-exhaustion", now: NOW })
      .map((e) => e.message)
      .join("\n")
    expect(pool).toContain(`password=${DEMO_PASSWORDS[0]}`)
    expect(pool).toContain(`Bearer ${DEMO_JWTS[0]}`)
    expect(pool).toContain(DEMO_AWS_ACCESS_KEYS[0])
    expect(DEMO_PODS.some((p) => pool.includes(p))).toBe(true)
    expect(DEMO_SECRETS.length).toBeGreaterThanOrEqual(6)
    expect(DEMO_IPS.length).toBeGreaterThanOrEqual(5)
  })

  it("recognises scenario ids", () => {
    expect(isScenarioId("oom-killed")).toBe(true)
    expect(isScenarioId("nope")).toBe(false)
    expect(isScenarioId(3)).toBe(false)
  })
})

describe("demo knowledge and business schema", () => {
  it("ships at least 8 Markdown runbooks with sections", () => {
    const files = listRunbooks()
    expect(files.length).toBeGreaterThanOrEqual(8)
    for (const f of files) {
      const text = readFileSync(`${runbooksDir}${f}`, "utf8")
      expect(text.startsWith("# ")).toBe(true)
      expect((text.match(/^## /gm) ?? []).length).toBeGreaterThanOrEqual(3)
    }
  })

  it("has the four business tables, deterministic inserts and a password_hash column", () => {
    const statements = demoSchemaStatements()
    for (const table of ["users", "orders", "order_items", "payments"]) {
      expect(statements.some((s) => s.startsWith(`CREATE TABLE IF NOT EXISTS ${table} (`))).toBe(true)
      expect(statements.some((s) => s.startsWith(`INSERT IGNORE INTO ${table} (`))).toBe(true)
    }
    expect(statements.join("\n")).toContain("password_hash")
    expect(statements.join("\n")).not.toMatch(/NOW\(\)|RAND\(\)|UUID\(\)/i)
  })

  it("allowlists datasource shop without password_hash, renaming the schema on request", () => {
    const json = demoAllowlistJson() as any
    const tables = json.datasources.shop.schemas.shop.tables
    expect(Object.keys(tables).sort()).toEqual(["order_items", "orders", "payments", "users"])
    expect(tables.users.columns).not.toContain("password_hash")
    expect(tables.users.excludedColumns).toEqual(["password_hash"])
    const renamed = demoAllowlistJson("test") as any
    expect(renamed.datasources.shop.defaultSchema).toBe("test")
    expect(Object.keys(renamed.datasources.shop.schemas)).toEqual(["test"])
  })
})
