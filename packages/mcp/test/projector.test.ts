import type { ToolCallId } from "@aiops-harness/core"
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { type ExternalRaw, fieldTree, projectJson, resultValueOf } from "../src/index.js"

const project = (raw: ExternalRaw, config = {}, maxBytes = 100_000) =>
  Effect.runPromiseExit(
    projectJson({ server: "s", toolName: "s__t", config })({
      request: {},
      toolCallId: "c1" as ToolCallId,
      raw,
      maxBytes
    })
  )
const ok = async (raw: ExternalRaw, config = {}, maxBytes = 100_000) => {
  const exit = await project(raw, config, maxBytes)
  if (Exit.isFailure(exit)) throw new Error("expected a projection")
  return exit.value
}

describe("generic JSON projector", () => {
  it("prefers structured content, else parses a single JSON text block, else keeps the text", () => {
    expect(resultValueOf({ structuredContent: { a: 1 }, content: [] }).value).toEqual({ a: 1 })
    expect(resultValueOf({ content: [{ type: "text", text: '{"b":2}' }] }).value).toEqual({ b: 2 })
    expect(resultValueOf({ content: [{ type: "text", text: "plain" }] }).value).toBe("plain")
    expect(
      resultValueOf({
        content: [
          { type: "text", text: "x" },
          { type: "image", data: "...", mimeType: "image/png" }
        ]
      })
    ).toEqual({ value: "x", nonText: 1 })
  })

  it("keeps only allowlisted paths, traversing arrays", async () => {
    expect(fieldTree(["items.id", "items.title", "total"])).toEqual({
      items: { id: true, title: true },
      total: true
    })
    const p = await ok(
      { structuredContent: { total: 2, secret_score: 9, items: [{ id: 1, title: "a", raw: "x" }] } },
      { fields: ["items.id", "items.title", "total"] }
    )
    expect(p.observation.result).toEqual({ total: 2, items: [{ id: 1, title: "a" }] })
    expect(p.truncated).toBe(false)
  })

  it("redacts every string and secret-named keys", async () => {
    const p = await ok({
      structuredContent: { note: "login from 10.0.0.7 token=abcd1234efgh", nested: [{ api_key: "k-123" }] }
    })
    const text = JSON.stringify(p.observation)
    expect(text).not.toContain("10.0.0.7")
    expect(text).not.toContain("abcd1234efgh")
    expect(text).not.toContain("k-123")
  })

  it("cuts strings and arrays (truncated) and drops items until the byte bound holds", async () => {
    const items = Array.from({ length: 30 }, (_, i) => ({ id: i, text: "y".repeat(100) }))
    const p = await ok({ structuredContent: { items } }, { maxItems: 20, maxStringChars: 10 }, 400)
    expect(p.truncated).toBe(true)
    expect(JSON.stringify(p.observation).length).toBeLessThanOrEqual(400)
    const kept = (p.observation.result as { items: Array<{ text: string }> }).items
    expect(kept.length).toBeGreaterThan(0)
    expect(kept.length).toBeLessThan(20)
    expect(kept[0]!.text).toBe("y".repeat(10))
    expect(p.returnedCount).toBe(1)
  })

  it("fails PROJECTION_ERROR NOTHING_FITS when no array can shrink enough", async () => {
    const exit = await project({ structuredContent: { text: "z".repeat(500) } }, {}, 100)
    expect(JSON.stringify(exit)).toContain("NOTHING_FITS")
  })

  it("empty results are NO_EVIDENCE; isError is a BackendError", async () => {
    expect((await ok({ content: [{ type: "text", text: "[]" }] })).evidenceStatus).toBe("NO_EVIDENCE")
    expect((await ok({ structuredContent: {} })).evidenceStatus).toBe("NO_EVIDENCE")
    const exit = await project({ isError: true, content: [{ type: "text", text: "boom" }] })
    expect(JSON.stringify(exit)).toContain("BackendError")
  })
})
