import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { KnowledgeRawSchema } from "../src/contracts/index.js"
import {
  chunkMarkdown,
  EmbeddedKnowledgeSearch,
  headingAnchor,
  KnowledgeSearch,
  relevanceLevelOf
} from "../src/knowledge/index.js"
import { runbooksDir } from "./fixtures/logs.js"

const index = () => Effect.runPromise(EmbeddedKnowledgeSearch.fromDirectory(runbooksDir))

describe("chunkMarkdown", () => {
  it("splits by headings with breadcrumbs and GitHub anchors, ignoring fenced code", () => {
    const chunks = chunkMarkdown(
      "ops/pods.md",
      [
        "# Pod CrashLoopBackOff",
        "Intro text.",
        "## Diagnosis",
        "### Read the previous logs",
        "Use `kubectl logs --previous`.",
        "```bash",
        "# not a heading",
        "```",
        "## Diagnosis",
        "Second diagnosis section.",
        "## Empty",
        "## Remediation ##",
        "Roll back."
      ].join("\n")
    )
    expect(chunks.map((c) => [c.id, c.breadcrumb.join(" > ")])).toEqual([
      ["ops/pods.md#pod-crashloopbackoff", "Pod CrashLoopBackOff"],
      ["ops/pods.md#read-the-previous-logs", "Pod CrashLoopBackOff > Diagnosis > Read the previous logs"],
      ["ops/pods.md#diagnosis-1", "Pod CrashLoopBackOff > Diagnosis"],
      ["ops/pods.md#remediation", "Pod CrashLoopBackOff > Remediation"]
    ])
    expect(chunks[1]?.text).toContain("# not a heading")
  })

  it("uses the file name as title without a level-1 heading and keeps a preamble", () => {
    const chunks = chunkMarkdown(
      "notes/dns-issues.md",
      "Preamble line.\n\n## Resolver\nCheck /etc/resolv.conf."
    )
    expect(chunks.map((c) => [c.id, c.breadcrumb])).toEqual([
      ["notes/dns-issues.md", ["dns-issues"]],
      ["notes/dns-issues.md#resolver", ["dns-issues", "Resolver"]]
    ])
  })

  it("anchors like GitHub", () => {
    expect(headingAnchor("Check the `DATABASE_URL` (prod)!")).toBe("check-the-database_url-prod")
  })
})

describe("relevanceLevelOf", () => {
  it.each([
    [10, 10, "HIGH"],
    [7.5, 10, "HIGH"],
    [7, 10, "MEDIUM"],
    [5, 10, "MEDIUM"],
    [3, 10, "LOW"],
    [2.5, 10, "LOW"],
    [2, 10, "REFERENCE"],
    [1, 0, "REFERENCE"]
  ] as const)("score %d of best %d -> %s", (score, best, level) => {
    expect(relevanceLevelOf(score, best)).toBe(level)
  })
})

describe("EmbeddedKnowledgeSearch over the runbook fixtures", () => {
  it("finds the section that answers the question, with source, breadcrumb and relevance", async () => {
    const search = await index()
    const raw = await Effect.runPromise(search.search({ query: "payment gateway timeout checkout", topK: 5 }))
    expect(KnowledgeRawSchema.safeParse(raw).success).toBe(true)
    expect(raw.evidence.length).toBeGreaterThan(1)
    expect(raw.evidence.length).toBeLessThanOrEqual(5)
    const top = raw.evidence[0]!
    expect(top.relevance_level).toBe("HIGH")
    expect([
      "checkout-5xx.md#check-the-payment-gateway",
      "payments/gateway-timeouts.md#payment-gateway-timeouts"
    ]).toContain(top.source)
    const section = raw.evidence.find((e) => e.source === "checkout-5xx.md#check-the-payment-gateway")
    expect(section).toMatchObject({
      title: "Checkout returns HTTP 500",
      breadcrumb: "Checkout returns HTTP 500 > Diagnosis > Check the payment gateway"
    })
    expect(section?.content).toContain("PaymentGatewayTimeout")
    expect(raw.evidence.every((e) => e.score === undefined)).toBe(true)
    const trace = raw.retrieval_trace as { hits: Array<{ score: number }>; best_score: number }
    expect(trace.hits[0]?.score).toBe(trace.best_score)
  })

  it("derives levels relative to the best hit and orders by score", async () => {
    const search = await index()
    const raw = await Effect.runPromise(
      search.search({ query: "connection pool exhausted slow queries", topK: 10 })
    )
    const levels = raw.evidence.map((e) => e.relevance_level)
    const rank = { HIGH: 0, MEDIUM: 1, LOW: 2, REFERENCE: 3 } as const
    expect(levels[0]).toBe("HIGH")
    const ranks = levels.map((l) => rank[l!])
    expect([...ranks].sort((a, b) => a - b)).toEqual(ranks)
    expect(new Set(levels).size).toBeGreaterThan(1)
    expect(raw.evidence[0]?.source?.startsWith("database-connection-pool.md")).toBe(true)
  })

  it("bounds content and topK", async () => {
    const long = `# Big\n\n## Part\n${"pool exhaustion ".repeat(500)}`
    const search = EmbeddedKnowledgeSearch.fromDocuments([{ path: "big.md", markdown: long }], {
      maxContentChars: 100,
      maxTopK: 3
    })
    const raw = await Effect.runPromise(search.search({ query: "pool", topK: 10 }))
    expect(raw.evidence).toHaveLength(1)
    expect(raw.evidence[0]?.content.length).toBe(100)
    expect(raw.evidence[0]?.content.endsWith("…")).toBe(true)
  })

  it("a query without hits succeeds with no evidence", async () => {
    const search = await index()
    const raw = await Effect.runPromise(search.search({ query: "quantum flux capacitor", topK: 5 }))
    expect(raw.evidence).toEqual([])
    const blank = await Effect.runPromise(search.search({ query: "the of and", topK: 5 }))
    expect(blank.evidence).toEqual([])
  })

  it("fails with a typed error for a missing or empty directory", async () => {
    const missing = await Effect.runPromise(
      Effect.flip(EmbeddedKnowledgeSearch.fromDirectory(`${runbooksDir}/does-not-exist`))
    )
    expect(missing).toMatchObject({ _tag: "KnowledgeIndexError", reason: "READ_FAILED" })
    const empty = await Effect.runPromise(
      Effect.flip(EmbeddedKnowledgeSearch.fromDirectory(new URL("./fixtures/logs", import.meta.url).pathname))
    )
    expect(empty).toMatchObject({ _tag: "KnowledgeIndexError", reason: "NO_DOCUMENTS" })
  })

  it("is provided as the KnowledgeSearch service", async () => {
    const raw = await Effect.runPromise(
      Effect.gen(function* () {
        const search = yield* KnowledgeSearch
        return yield* search.search({ query: "redis latency", topK: 2 })
      }).pipe(Effect.provide(EmbeddedKnowledgeSearch.layerFromDirectory(runbooksDir)))
    )
    expect(raw.evidence[0]?.source?.startsWith("redis-latency.md")).toBe(true)
  })
})
