import { mysqlGate } from "@aiops-harness/core/testing"
import { Effect, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { AUDIT_TABLES, type Migration, migrate, migrations } from "../src/index.js"
import { failureOf } from "./conformance.js"
import { databaseUrl, rawConnection } from "./mysql-helpers.js"

const mysqlUp = await mysqlGate()

describe("migrations list", () => {
  it("is ordered by version, versions unique, every statement idempotent DDL", () => {
    const versions = migrations.map((m) => m.version)
    expect(versions).toEqual([...versions].sort((a, b) => a - b))
    expect(new Set(versions).size).toBe(versions.length)
    for (const m of migrations) {
      for (const s of m.statements) expect(s).toMatch(/IF NOT EXISTS|^ALTER TABLE \w+ MODIFY COLUMN /)
    }
    expect(migrations.find((m) => m.version === 2)?.name).toBe("run_total_tokens_nullable")
  })
})

describe.skipIf(!mysqlUp)("migrate (MySQL)", () => {
  it("applies each version once, records it, and is safe to run twice and concurrently", async () => {
    const url = await databaseUrl("aiops_audit_migrate_test", true)
    const first = await Effect.runPromise(migrate(url))
    expect(first).toEqual({ applied: migrations.map((m) => m.version), alreadyApplied: [] })
    const again = await Effect.runPromise(migrate(url))
    expect(again).toEqual({ applied: [], alreadyApplied: migrations.map((m) => m.version) })

    const fresh = await databaseUrl("aiops_audit_migrate_concurrent_test", true)
    const reports = await Effect.runPromise(
      Effect.all([migrate(fresh), migrate(fresh), migrate(fresh)], { concurrency: "unbounded" })
    )
    expect(reports.flatMap((r) => r.applied)).toEqual(migrations.map((m) => m.version))

    const conn = await rawConnection(fresh)
    try {
      const [rows] = await conn.query("SELECT version, name FROM schema_migrations ORDER BY version")
      expect(rows).toEqual(migrations.map((m) => ({ version: m.version, name: m.name })))
      const [tables] = await conn.query(
        "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY t"
      )
      expect((tables as Array<{ t: string }>).map((r) => r.t)).toEqual(
        [...AUDIT_TABLES, "schema_migrations"].sort()
      )
      const [idx] = await conn.query(
        "SELECT index_name AS i, GROUP_CONCAT(column_name ORDER BY seq_in_index) AS cols FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'run_timeline_event' GROUP BY index_name ORDER BY i"
      )
      expect(idx).toContainEqual({ i: "PRIMARY", cols: "run_id,seq" })
    } finally {
      await conn.end()
    }
  })

  it("version 2 makes diagnosis_run.total_token_count NULL-able on a version-1 schema, idempotently", async () => {
    const url = await databaseUrl("aiops_audit_migrate_v2_test", true)
    const v1 = migrations.filter((m) => m.version === 1)
    expect(await Effect.runPromise(migrate(url, { migrations: v1 }))).toEqual({
      applied: [1],
      alreadyApplied: []
    })
    const conn = await rawConnection(url)
    const nullable = async () => {
      const [rows] = await conn.query(
        "SELECT is_nullable AS n FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'diagnosis_run' AND column_name = 'total_token_count'"
      )
      return (rows as Array<{ n: string }>)[0]?.n
    }
    try {
      // A deployment whose column ended up NOT NULL.
      await conn.query("ALTER TABLE diagnosis_run MODIFY COLUMN total_token_count BIGINT NOT NULL")
      expect(await nullable()).toBe("NO")
      expect(await Effect.runPromise(migrate(url))).toEqual({ applied: [2], alreadyApplied: [1] })
      expect(await nullable()).toBe("YES")
      // The statement itself is safe to run again.
      for (const s of migrations.find((m) => m.version === 2)!.statements) await conn.query(s)
      expect(await nullable()).toBe("YES")
      await conn.query(
        "INSERT INTO diagnosis_run (run_id, session_id, status, total_token_count) VALUES ('r', 's', 'FINISHED', NULL)"
      )
    } finally {
      await conn.end()
    }
  })

  it("a later version is applied on top; a renamed applied version is VERSION_DRIFT", async () => {
    const url = await databaseUrl("aiops_audit_migrate_test2", true)
    const extra: Migration = {
      version: 1000,
      name: "extra_table",
      statements: ["CREATE TABLE IF NOT EXISTS audit_extra (id INT PRIMARY KEY)"]
    }
    await Effect.runPromise(migrate(url))
    const report = await Effect.runPromise(migrate(url, { migrations: [extra, ...migrations] }))
    expect(report.applied).toEqual([1000])
    const drift = failureOf(
      await Effect.runPromise(Effect.exit(migrate(url, { migrations: [{ ...extra, name: "renamed" }] })))
    )
    expect(drift).toMatchObject({ _tag: "MigrationError", reason: "VERSION_DRIFT", version: 1000 })
  })

  it("a failing statement is STATEMENT_FAILED with its version, and the version is not recorded", async () => {
    const url = await databaseUrl("aiops_audit_migrate_test3", true)
    const bad: Migration = {
      version: 7,
      name: "bad",
      statements: ["CREATE TABLE IF NOT EXISTS broken (x NOSUCHTYPE)"]
    }
    const error = failureOf(await Effect.runPromise(Effect.exit(migrate(url, { migrations: [bad] }))))
    expect(error).toMatchObject({ _tag: "MigrationError", reason: "STATEMENT_FAILED", version: 7 })
    const conn = await rawConnection(url)
    try {
      const [rows] = await conn.query("SELECT version FROM schema_migrations")
      expect(rows).toEqual([])
    } finally {
      await conn.end()
    }
  })

  it("an unreachable server is UNAVAILABLE", async () => {
    const error = failureOf(
      await Effect.runPromise(
        Effect.exit(migrate("mysql://root@127.0.0.1:1/none", { connectTimeoutMs: 300 }))
      )
    )
    expect(error).toMatchObject({ _tag: "MigrationError", reason: "UNAVAILABLE" })
  })

  it("takes the URL Redacted; a bad Redacted URL fails without echoing its password", async () => {
    const url = await databaseUrl("aiops_audit_migrate_redacted_test", true)
    const report = await Effect.runPromise(migrate(Redacted.make(url)))
    expect(report.applied).toEqual(migrations.map((m) => m.version))
    const error = failureOf(
      await Effect.runPromise(Effect.exit(migrate(Redacted.make("postgres://u:hunter2-secret@h/db"))))
    )
    expect(error).toMatchObject({ _tag: "MigrationError" })
    expect(JSON.stringify(error)).not.toContain("hunter2-secret")
    expect(String(error)).not.toContain("hunter2-secret")
  })

  it("a migrator waiting past lockTimeoutSeconds is LOCK_TIMEOUT", async () => {
    const url = await databaseUrl("aiops_audit_migrate_test4", true)
    const holder = await rawConnection(url)
    try {
      await holder.query("SELECT GET_LOCK(CONCAT('aiops_audit_migrate:', LEFT(SHA1(DATABASE()), 32)), 5)")
      const error = failureOf(await Effect.runPromise(Effect.exit(migrate(url, { lockTimeoutSeconds: 1 }))))
      expect(error).toMatchObject({ _tag: "MigrationError", reason: "LOCK_TIMEOUT" })
    } finally {
      await holder.end()
    }
  })
})
