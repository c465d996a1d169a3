import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { MASKED, projectMysqlRows } from "../src/index.js"
import { bytesOf, ok, run } from "./helpers.js"

const request = { datasource: "orders", sql: "SELECT  id, email\n FROM users" }
const project = projectMysqlRows()
const result = (columns: string[], rows: Array<Record<string, unknown>>, extra: object = {}) => ({
  columns: columns.map((name) => ({ name, type: "VARCHAR" })),
  rows,
  rowCount: rows.length,
  truncated: false,
  ...extra
})

describe("projectMysqlRows", () => {
  it("carries each column's provenance into the observation", () => {
    const p = ok(
      run(project, request, {
        columns: [
          { name: "status", type: "VAR_STRING", origin: "table" },
          { name: "finding", type: "VAR_STRING", origin: "literal" },
          { name: "note", type: "VAR_STRING", origin: "mixed" }
        ],
        rows: [{ status: "PAID", finding: "HikariPool exhausted", note: "PAID!" }],
        rowCount: 1,
        truncated: false
      })
    )
    expect((p.observation as { columns: unknown }).columns).toEqual([
      { name: "status", type: "VAR_STRING", origin: "table" },
      { name: "finding", type: "VAR_STRING", origin: "literal" },
      { name: "note", type: "VAR_STRING", origin: "mixed" }
    ])
    const bad = run(project, request, {
      columns: [{ name: "status", type: "VAR_STRING", origin: "trusted" }],
      rows: [],
      rowCount: 0,
      truncated: false
    })
    expect(bad.ok).toBe(false)
  })

  it("keeps number, boolean and null types", () => {
    const p = ok(
      run(
        project,
        request,
        result(["id", "ratio", "active", "note"], [{ id: 7, ratio: 0.25, active: true, note: null }])
      )
    )
    expect(p.observation).toEqual({
      datasource: "orders",
      // No provenance in the raw result -> `literal` (not evidence).
      columns: [
        { name: "id", type: "VARCHAR", origin: "literal" },
        { name: "ratio", type: "VARCHAR", origin: "literal" },
        { name: "active", type: "VARCHAR", origin: "literal" },
        { name: "note", type: "VARCHAR", origin: "literal" }
      ],
      rows: [{ id: 7, ratio: 0.25, active: true, note: null }]
    })
    expect(p.evidenceStatus).toBe("EVIDENCE_FOUND")
    expect(p.truncated).toBe(false)
    expect(p.returnedCount).toBe(1)
    expect(p.scope).toEqual({ datasource: "orders", sql: "SELECT id, email FROM users" })
  })

  it.each([
    "password",
    "PASSWORD",
    "USER_PASSWORD_HASH",
    "apiToken",
    "api_key",
    "Secret",
    "refresh_token",
    "ssn",
    "customer_ssn",
    "private_key",
    "credential_id",
    "pwd"
  ])("masks sensitive column %s whatever its type", (name) => {
    const p = ok(
      run(
        project,
        request,
        result(
          ["id", name],
          [
            { id: 1, [name]: "hunter2" },
            { id: 2, [name]: 42 },
            { id: 3, [name]: null }
          ]
        )
      )
    )
    expect((p.observation.rows as any[]).map((r) => r[name])).toEqual([MASKED, MASKED, MASKED])
    expect(JSON.stringify(p.observation)).not.toContain("hunter2")
  })

  it("redacts string cells and cuts them to maxCellChars", () => {
    const p = ok(
      run(
        projectMysqlRows({ maxCellChars: 12 }),
        request,
        result(["note"], [{ note: "host 10.1.1.1 and more text" }])
      )
    )
    expect((p.observation.rows as any[])[0].note).toBe("host <IP> an")
    expect(p.truncated).toBe(true)
  })

  it("bounds rows and reports backend truncation", () => {
    const rows = Array.from({ length: 5 }, (_, id) => ({ id }))
    const p = ok(run(projectMysqlRows({ maxRows: 3 }), request, result(["id"], rows)))
    expect(p.observation.rows).toEqual([{ id: 0 }, { id: 1 }, { id: 2 }])
    expect(p.truncated).toBe(true)
    expect(p.returnedCount).toBe(5)
    expect(ok(run(project, request, result(["id"], [{ id: 1 }], { truncated: true }))).truncated).toBe(true)
    expect(ok(run(project, request, result(["id"], [{ id: 1 }], { rowCount: 9 }))).truncated).toBe(true)
  })

  it("no rows -> NO_EVIDENCE", () => {
    const p = ok(run(project, request, result(["id"], [])))
    expect(p.evidenceStatus).toBe("NO_EVIDENCE")
    expect(p.observation.rows).toEqual([])
  })

  it.each([
    ["unknown top-level field", { ...result(["id"], []), sql: "x" }],
    ["row key not a column", result(["id"], [{ id: 1, extra: 2 }])],
    ["row missing a column", result(["id", "b"], [{ id: 1 }])],
    ["duplicate columns", result(["id", "id"], [])],
    ["object cell", result(["id"], [{ id: { a: 1 } }])],
    ["missing rowCount", { columns: [], rows: [], truncated: false }],
    ["string", "rows"]
  ])("unexpected shape (%s) fails closed", (_name, raw) => {
    const out = run(project, request, raw)
    expect(out.ok).toBe(false)
    if (!out.ok) expect(out.error).toMatchObject({ _tag: "ProjectionError", reason: "UNEXPECTED_SHAPE" })
  })

  it("nothing fits -> NOTHING_FITS", () => {
    const out = run(project, request, result(["note"], [{ note: "x".repeat(200) }]), 80)
    expect(out.ok).toBe(false)
    if (!out.ok) expect(out.error).toMatchObject({ _tag: "ProjectionError", reason: "NOTHING_FITS" })
  })

  const cell = fc.oneof(
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.string({ maxLength: 120 })
  )
  const names = ["id", "email", "password_hash", "note", "apiToken", "count"]

  it("property: within budget, types kept, masked, truncated exactly when reduced, deterministic", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(...names.map(() => cell)), { maxLength: 30 }),
        fc.integer({ min: 100, max: 5000 }),
        fc.integer({ min: 1, max: 40 }),
        fc.boolean(),
        (cells, maxBytes, maxRows, backendTruncated) => {
          const rows = cells.map((values) => Object.fromEntries(names.map((n, i) => [n, values[i]])))
          const raw = result(names, rows, { truncated: backendTruncated })
          const projector = projectMysqlRows({ maxRows, maxCellChars: 50 })
          const a = run(projector, request, raw, maxBytes)
          expect(JSON.stringify(a)).toBe(JSON.stringify(run(projector, request, raw, maxBytes)))
          if (!a.ok) {
            expect(a.error).toMatchObject({ reason: "NOTHING_FITS" })
            return
          }
          const p = a.projection
          expect(bytesOf(p.observation)).toBeLessThanOrEqual(maxBytes)
          const full = ok(
            run(
              projectMysqlRows({ maxRows: 1e6, maxCellChars: 1e6, maxBytes: 1 << 30 }),
              request,
              raw,
              1 << 30
            )
          )
          const out = p.observation.rows as any[]
          const fullRows = full.observation.rows as any[]
          out.forEach((row, r) => {
            expect(row.password_hash).toBe(MASKED)
            expect(row.apiToken).toBe(MASKED)
            for (const n of ["id", "count"]) {
              const original = rows[r]![n]
              if (typeof original !== "string") expect(row[n]).toBe(original)
            }
          })
          const dropped =
            backendTruncated ||
            out.length < fullRows.length ||
            out.some((row, r) => names.some((n) => row[n] !== fullRows[r][n]))
          expect(p.truncated).toBe(dropped)
        }
      ),
      { numRuns: 200 }
    )
  })
})
