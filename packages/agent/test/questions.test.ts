import type { CheckedScope } from "@aiops-harness/guards"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { frameReleasedContent, NO_PROBLEM_FOUND, nothingFound } from "../src/answer.js"
import { type ChatMessage, makeOfflineRuleModel, toolSpecsFor } from "../src/index.js"
import { readConversation } from "../src/offline/conversation.js"
import { draftFrom } from "../src/offline/draft.js"
import { windowRowClaims } from "../src/offline/sql.js"
import { extractTimeWindow, resolveWindow, timeWindowMessage } from "../src/time-window.js"
import { DOCS, knowledgeTool, logsTool } from "./helpers.js"

const model = makeOfflineRuleModel()
const tools = toolSpecsFor([knowledgeTool(DOCS), logsTool([])])
const NOW = Date.parse("2026-03-15T13:30:00.000Z")

const turn = (id: string, name: string, args: object, observation: object): ChatMessage[] => [
  { role: "assistant", content: null, toolCalls: [{ id, name, arguments: JSON.stringify(args) }] },
  {
    role: "tool",
    toolCallId: id,
    content: JSON.stringify({ tool_call_id: id, tool: name, status: "READY", ...observation })
  }
]
const next = (messages: ChatMessage[]) => {
  const r = Effect.runSync(model.chat({ purpose: "agent", messages, tools }))
  const call = r.message.toolCalls[0]
  return call ? { name: call.name, args: JSON.parse(call.arguments) as Record<string, unknown> } : null
}
const windowMessage = (question: string): ChatMessage => {
  const asked = extractTimeWindow(question, NOW)!
  return { role: "user", content: timeWindowMessage(resolveWindow(asked, NOW, { maxLookbackMinutes: 1440 })) }
}
const knowledge = turn(
  "offline-call-1",
  "lookup_knowledge",
  { query: "q" },
  { evidence_status: "NO_EVIDENCE", evidence: [] }
)
const emptyLogs = (id: string, service: string | null) =>
  turn(
    id,
    "query_logs",
    {},
    {
      evidence_status: "NO_EVIDENCE",
      scope: { topic: "application", query: "q", service, start_time: "a", end_time: "b" },
      patterns: [],
      timeline: []
    }
  )

describe("the offline model searches the question's window", () => {
  it("passes the harness's window as start_time/end_time", () => {
    const q = "why did checkout-service fail at 13:10 UTC?"
    const call = next([{ role: "user", content: q }, windowMessage(q), ...knowledge])
    expect(call?.args).toEqual({
      topic: "application",
      query: "level:ERROR OR level:WARN OR level:FATAL",
      service: "checkout-service",
      start_time: "2026-03-15T12:40:00.000Z",
      end_time: "2026-03-15T13:30:00.000Z"
    })
  })

  it("broadens to every service but never widens the asked window", () => {
    const q = "errors on checkout-service between 9 and 10?"
    const call = next([
      { role: "user", content: q },
      windowMessage(q),
      ...knowledge,
      ...emptyLogs("offline-call-2", "checkout-service")
    ])
    expect(call?.args).toEqual({
      topic: "application",
      query: "level:ERROR OR level:WARN OR level:FATAL",
      start_time: "2026-03-15T09:00:00.000Z",
      end_time: "2026-03-15T10:00:00.000Z"
    })
  })

  it("searches no logs at all for a window the tools cannot reach", () => {
    const message: ChatMessage = {
      role: "user",
      content: timeWindowMessage(
        resolveWindow({ phrase: "last week", start: NOW - 8 * 86_400_000, end: NOW - 7 * 86_400_000 }, NOW, {
          maxLookbackMinutes: 1440
        })
      )
    }
    const seen = readConversation([{ role: "user", content: "errors last week?" }, message])
    expect(seen.window).toBe("unreachable")
    expect(seen.question).toBe("errors last week?")
    expect(next([{ role: "user", content: "errors last week?" }, message, ...knowledge])).toBeNull()
  })
})

describe("the windowed database check", () => {
  const sql =
    "SELECT status, COUNT(*) AS order_count FROM orders WHERE updated_at >= '2026-03-15 13:05:00' AND updated_at < '2026-03-15 13:30:00' GROUP BY status ORDER BY order_count DESC LIMIT 20"
  const rows = (r: object[]) =>
    turn(
      "offline-call-5",
      "query_mysql",
      { datasource: "shop", sql },
      {
        evidence_status: r.length > 0 ? "EVIDENCE_FOUND" : "NO_EVIDENCE",
        datasource: "shop",
        columns: [],
        rows: r
      }
    )

  it("states the rows per status over the window and cites each row it names", () => {
    const seen = readConversation(
      rows([
        { status: "PENDING", order_count: 9 },
        { status: "PAID", order_count: 3 }
      ])
    )
    const [claim, ...rest] = windowRowClaims(seen)
    expect(rest).toEqual([])
    expect(claim?.text).toContain(
      "orders written (updated_at) between 2026-03-15 13:05:00 and 2026-03-15 13:30:00 UTC"
    )
    expect(claim?.text).toContain("status=PENDING: 9; status=PAID: 3")
    expect(claim?.citations).toEqual([
      { tool_call_id: "offline-call-5", kind: "row", ref: "rows[0].status=PENDING" },
      { tool_call_id: "offline-call-5", kind: "row", ref: "rows[1].status=PAID" }
    ])
  })

  it("an empty window is a scoped negative claim", () => {
    const [claim] = windowRowClaims(readConversation(rows([])))
    expect(claim).toMatchObject({
      negative: true,
      citations: [{ kind: "no_evidence", tool_call_id: "offline-call-5" }]
    })
    expect(claim?.text).toMatch(/^No orders were written \(updated_at\) between 2026-03-15 13:05:00 and/)
  })

  it("ignores queries it did not write", () => {
    const other = turn(
      "offline-call-5",
      "query_mysql",
      { datasource: "shop", sql: "SELECT 1" },
      {
        evidence_status: "EVIDENCE_FOUND",
        rows: [{ x: 1 }]
      }
    )
    expect(windowRowClaims(readConversation(other))).toEqual([])
  })
})

describe("every affected service", () => {
  const pattern = (id: string, service: string, template: string, count: number) => ({
    pattern_id: id,
    level: "ERROR",
    service,
    template,
    count,
    first_seen: "2026-03-15T13:05:00.000Z",
    last_seen: "2026-03-15T13:29:00.000Z"
  })
  const logs = (id: string, service: string | null, patterns: object[]) =>
    turn(
      id,
      "query_logs",
      {},
      {
        evidence_status: "EVIDENCE_FOUND",
        scope: { topic: "application", query: "q", service, start_time: "a", end_time: "b" },
        patterns,
        timeline: []
      }
    )
  const runbook = turn(
    "offline-call-3",
    "lookup_knowledge",
    {},
    {
      evidence_status: "EVIDENCE_FOUND",
      evidence: [
        {
          document_id: "cache.md#symptoms",
          title: "Cache timeouts",
          breadcrumb: "Cache timeouts > Symptoms",
          excerpt:
            "- `CacheTimeoutException: command timed out` in cart-service.\n- `cache read failed: i/o timeout` in checkout-service.",
          relevance_level: "HIGH"
        }
      ]
    }
  )
  const cart = pattern("pcart", "cart-service", "CacheTimeoutException: command timed out after <*>", 75)
  const messages: ChatMessage[] = [
    { role: "user", content: "why is cart-service timing out?" },
    ...logs("offline-call-2", "cart-service", [cart]),
    ...runbook,
    ...logs("offline-call-4", null, [
      cart,
      pattern(
        "pcheckout",
        "checkout-service",
        "idempotency cache read failed: i/o timeout dial tcp <IP>",
        25
      ),
      pattern("pnoise", "search-service", "suggestion backend returned HTTP <*>", 40)
    ])
  ]

  it("names the services whose own errors the matched runbook describes, each cited", () => {
    const draft = draftFrom(readConversation(messages), 6)
    expect(draft.summary).toMatch(
      /^Most likely cause: Cache timeouts, affecting cart-service and checkout-service\./
    )
    const claim = draft.claims.find((c) => c.text.startsWith("checkout-service is affected too"))
    expect(claim?.citations).toEqual([
      { tool_call_id: "offline-call-4", kind: "pattern", ref: "pcheckout" },
      { tool_call_id: "offline-call-3", kind: "document", ref: "cache.md#symptoms" }
    ])
    // an unrelated error elsewhere is not "affected"; the cause's own signature seen again is not a second signal
    expect(draft.summary).not.toContain("search-service")
    expect(draft.claims.filter((c) => c.citations.some((x) => x.ref === "pcart"))).toHaveLength(1)
  })
})

describe("the released text's framing", () => {
  const check = (over: Partial<CheckedScope>): CheckedScope => ({
    toolCallId: "c",
    tool: "query_logs",
    status: "READY",
    evidenceStatus: "NO_EVIDENCE",
    errorCode: null,
    scope: {},
    ...over
  })
  const release =
    'Cannot conclude: x\n\nChecked:\n- query_logs topic="application" -> NO_EVIDENCE\n\nMissing:\n- positive evidence'

  it("no problem found only when every system check was a successful, empty search", () => {
    expect(
      nothingFound([check({ tool: "lookup_knowledge", evidenceStatus: "EVIDENCE_FOUND" }), check({})])
    ).toBe(true)
    expect(nothingFound([check({ tool: "lookup_knowledge" })])).toBe(false)
    expect(nothingFound([check({}), check({ evidenceStatus: "EVIDENCE_FOUND" })])).toBe(false)
    expect(
      nothingFound([
        check({}),
        check({ status: "ERROR", evidenceStatus: "ERROR", errorCode: "BACKEND_ERROR" })
      ])
    ).toBe(false)
  })

  it("frames the bounded no-problem answer with what was checked, and never a released report", () => {
    const text = frameReleasedContent({
      content: release,
      released: false,
      checked: [check({})],
      window: null
    })
    expect(text.startsWith(NO_PROBLEM_FOUND)).toBe(true)
    expect(text).toContain('- query_logs topic="application" -> NO_EVIDENCE')
    expect(text).not.toContain("Missing:")
    expect(
      frameReleasedContent({ content: "Report", released: true, checked: [check({})], window: null })
    ).toBe("Report")
  })

  it("says when the searched window reaches before the oldest log held (retention)", () => {
    const partly = check({
      scope: {
        start_time: "2026-03-15T11:50:00.000Z",
        end_time: "2026-03-15T12:50:00.000Z",
        available_from: "2026-03-15T12:30:00.000Z"
      }
    })
    const text = frameReleasedContent({ content: release, released: false, checked: [partly], window: null })
    expect(text.startsWith(NO_PROBLEM_FOUND)).toBe(true)
    expect(text.split("\n")[1]).toBe(
      "Retention: the logs start at 2026-03-15T12:30:00.000Z; the part of the searched window before that holds no logs and could not be checked."
    )
    // a window entirely before the oldest log checked nothing: no "no problem found"
    const before = check({
      scope: {
        start_time: "2026-03-15T09:00:00.000Z",
        end_time: "2026-03-15T10:00:00.000Z",
        available_from: "2026-03-15T12:30:00.000Z"
      }
    })
    expect(nothingFound([before])).toBe(false)
    const cannot = frameReleasedContent({
      content: release,
      released: false,
      checked: [before],
      window: null
    })
    expect(cannot.startsWith("Cannot conclude")).toBe(true)
    expect(cannot).toContain(
      "the searched window lies entirely before that, so nothing in it could be checked."
    )
  })

  it("says when the asked window was not honoured, right after the first line", () => {
    const window = resolveWindow(extractTimeWindow("yesterday", NOW)!, NOW, { maxLookbackMinutes: 1440 })
    const text = frameReleasedContent({ content: "Line one\nLine two", released: true, checked: [], window })
    expect(text.split("\n")[1]).toMatch(
      /^Time window: The question asks about "yesterday" .* only .* was searched\.$/
    )
    expect(text.split("\n")[2]).toBe("Line two")
  })
})
