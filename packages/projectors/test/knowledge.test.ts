import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { projectKnowledge } from "../src/index.js"
import { bytesOf, ok, run } from "./helpers.js"

const request = { query: "mysql connection pool exhausted", top_k: 5 }
const project = projectKnowledge()

describe("projectKnowledge", () => {
  it("projects evidence with stable ids, drops traces and scores", () => {
    const p = ok(
      run(project, request, {
        evidence: [
          {
            source: "runbooks/mysql.md",
            title: "MySQL",
            breadcrumb: ["Ops", "MySQL"],
            content: "Raise pool size.",
            relevanceLevel: "HIGH",
            score: 0.93
          },
          { title: "Hikari tuning", content: "Check maxLifetime.", relevance_level: "REFERENCE" },
          { content: "Untitled note", relevance_level: "LOW" },
          { source: "  ", title: "", content: "Fallback ordinal" }
        ],
        retrieval_trace: { hits: 12 },
        rerank_trace: [1, 2],
        context_pack: "x"
      })
    )
    expect(p.evidenceStatus).toBe("EVIDENCE_FOUND")
    expect(p.truncated).toBe(false)
    expect(p.returnedCount).toBe(4)
    expect(p.observation).toEqual({
      query: request.query,
      evidence: [
        {
          document_id: "runbooks/mysql.md",
          source: "runbooks/mysql.md",
          title: "MySQL",
          breadcrumb: "Ops > MySQL",
          excerpt: "Raise pool size.",
          relevance_level: "HIGH"
        },
        {
          document_id: "Hikari tuning",
          source: null,
          title: "Hikari tuning",
          breadcrumb: null,
          excerpt: "Check maxLifetime.",
          relevance_level: "REFERENCE"
        },
        {
          document_id: "doc-3",
          source: null,
          title: null,
          breadcrumb: null,
          excerpt: "Untitled note",
          relevance_level: "LOW"
        },
        {
          document_id: "doc-4",
          source: null,
          title: null,
          breadcrumb: null,
          excerpt: "Fallback ordinal",
          relevance_level: null
        }
      ]
    })
    const text = JSON.stringify(p.observation)
    for (const dropped of ["score", "retrieval_trace", "rerank_trace", "context_pack", "0.93"])
      expect(text).not.toContain(dropped)
    expect(p.scope).toEqual({ query: "mysql connection pool exhausted", top_k: 5 })
  })

  it("accepts relevanceLevel and relevance_level; REFERENCE alone is still EVIDENCE_FOUND", () => {
    for (const key of ["relevanceLevel", "relevance_level"]) {
      const p = ok(run(project, request, { evidence: [{ source: "a", content: "c", [key]: "REFERENCE" }] }))
      expect(p.evidenceStatus).toBe("EVIDENCE_FOUND")
      expect((p.observation.evidence as any)[0].relevance_level).toBe("REFERENCE")
    }
  })

  it("rejects conflicting relevance fields", () => {
    const out = run(project, request, {
      evidence: [{ content: "c", relevanceLevel: "HIGH", relevance_level: "LOW" }]
    })
    expect(out.ok).toBe(false)
    if (!out.ok) expect(out.error).toMatchObject({ _tag: "ProjectionError", reason: "UNEXPECTED_SHAPE" })
  })

  it("keeps only non-blank content and dedupes by document id keeping the first excerpt", () => {
    const p = ok(
      run(project, request, {
        evidence: [
          { source: "a.md", content: "   " },
          { source: "a.md", content: "first" },
          { source: "a.md", content: "second" },
          { title: "a.md", content: "third" }
        ]
      })
    )
    expect((p.observation.evidence as any[]).map((e) => e.excerpt)).toEqual(["first"])
    expect(p.truncated).toBe(false)
  })

  it("empty or blank-only evidence is NO_EVIDENCE", () => {
    for (const evidence of [[], [{ content: " \n\t" }]]) {
      const p = ok(run(project, request, { evidence }))
      expect(p.evidenceStatus).toBe("NO_EVIDENCE")
      expect(p.observation).toEqual({ query: request.query, evidence: [] })
    }
  })

  it("redacts excerpts and secrets in sources", () => {
    const p = ok(
      run(project, request, {
        evidence: [
          { source: "https://bob:hunter2@wiki/x", content: "connect with password=hunter2 to 10.0.0.7" }
        ]
      })
    )
    const text = JSON.stringify(p.observation)
    expect(text).not.toContain("hunter2")
    expect(text).not.toContain("10.0.0.7")
    expect(text).toContain("<SECRET>")
  })

  it("bounds items and excerpt length, marking truncated", () => {
    const small = projectKnowledge({ maxItems: 2, maxExcerptChars: 5 })
    const evidence = ["a", "b", "c"].map((s) => ({ source: s, content: "abcdefgh" }))
    const p = ok(run(small, request, { evidence }))
    expect((p.observation.evidence as any[]).map((e) => e.excerpt)).toEqual(["abcde", "abcde"])
    expect(p.truncated).toBe(true)
    expect(p.returnedCount).toBe(3)
  })

  it.each([
    ["unknown top-level field", { evidence: [], debug: true }],
    ["missing evidence", {}],
    ["content not a string", { evidence: [{ content: 3 }] }],
    ["unknown relevance", { evidence: [{ content: "x", relevanceLevel: "CRITICAL" }] }],
    ["unknown evidence field", { evidence: [{ content: "x", url: "y" }] }],
    ["not an object", "evidence"],
    ["null", null]
  ])("unexpected shape (%s) fails closed", (_name, raw) => {
    const out = run(project, request, raw)
    expect(out.ok).toBe(false)
    if (!out.ok) expect(out.error).toMatchObject({ _tag: "ProjectionError", reason: "UNEXPECTED_SHAPE" })
  })

  it("nothing fits -> NOTHING_FITS", () => {
    const out = run(project, request, { evidence: [{ source: "a", content: "x".repeat(500) }] }, 40)
    expect(out.ok).toBe(false)
    if (!out.ok) expect(out.error).toMatchObject({ _tag: "ProjectionError", reason: "NOTHING_FITS" })
  })

  const evidenceArb = fc.array(
    fc.record(
      {
        source: fc.string({ maxLength: 30 }),
        title: fc.string({ maxLength: 30 }),
        breadcrumb: fc.oneof(
          fc.string({ maxLength: 20 }),
          fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 })
        ),
        content: fc.string({ maxLength: 400 }),
        relevance_level: fc.constantFrom("HIGH", "MEDIUM", "LOW", "REFERENCE"),
        score: fc.double({ noNaN: true, noDefaultInfinity: true })
      },
      { requiredKeys: ["content"] }
    ),
    { maxLength: 15 }
  )

  it("property: within budget, truncated exactly when something was dropped, deterministic", () => {
    fc.assert(
      fc.property(
        evidenceArb,
        fc.integer({ min: 60, max: 4000 }),
        fc.integer({ min: 1, max: 10 }),
        (evidence, maxBytes, maxItems) => {
          const projector = projectKnowledge({ maxItems, maxExcerptChars: 200 })
          const a = run(projector, request, { evidence }, maxBytes)
          const b = run(projector, request, { evidence }, maxBytes)
          expect(JSON.stringify(a)).toBe(JSON.stringify(b))
          if (!a.ok) {
            expect(a.error).toMatchObject({ reason: "NOTHING_FITS" })
            return
          }
          const p = a.projection
          expect(bytesOf(p.observation)).toBeLessThanOrEqual(maxBytes)
          // What an unbounded projector keeps:
          const full = ok(
            run(
              projectKnowledge({ maxItems: 1000, maxExcerptChars: 1_000_000, maxBytes: 1 << 30 }),
              request,
              { evidence },
              1 << 30
            )
          )
          const fullEvidence = full.observation.evidence as any[]
          const kept = p.observation.evidence as any[]
          const dropped =
            kept.length < fullEvidence.length || kept.some((e, i) => e.excerpt !== fullEvidence[i].excerpt)
          expect(p.truncated).toBe(dropped)
          expect(p.evidenceStatus).toBe(kept.length > 0 ? "EVIDENCE_FOUND" : "NO_EVIDENCE")
        }
      ),
      { numRuns: 200 }
    )
  })
})
