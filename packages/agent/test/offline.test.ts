import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { type ChatMessage, type ChatRequest, makeOfflineRuleModel, toolSpecsFor } from "../src/index.js"
import { DOCS, knowledgeTool, logsTool } from "./helpers.js"

const model = makeOfflineRuleModel()
const ask = (request: ChatRequest) => Effect.runSync(model.chat(request))
const tools = toolSpecsFor([knowledgeTool(DOCS), logsTool([])])
const mysqlSpec = { name: "query_mysql", description: "read-only SQL", parameters: { type: "object" } }

const toolTurn = (id: string, name: string, args: object, observation: object): ChatMessage[] => [
  { role: "assistant", content: null, toolCalls: [{ id, name, arguments: JSON.stringify(args) }] },
  {
    role: "tool",
    toolCallId: id,
    content: JSON.stringify({ tool_call_id: id, tool: name, status: "READY", ...observation })
  }
]

const knowledgeObs = {
  evidence_status: "EVIDENCE_FOUND",
  evidence: [
    {
      document_id: "runbooks/db.md",
      title: "DB pool",
      excerpt: "checkout-service logs HikariPool timeouts when the pool is exhausted. More text.",
      relevance_level: "HIGH"
    }
  ]
}

describe("OfflineRuleModel", () => {
  it("routes by keywords and reports usage", () => {
    const r = ask({ purpose: "router", messages: [{ role: "user", content: "Why is checkout slow?" }] })
    expect(JSON.parse(r.message.content!)).toEqual({ intent: "diagnosis" })
    expect(r.usage!.totalTokens).toBe(r.usage!.promptTokens + r.usage!.completionTokens)
    expect(r.usage!.promptTokens).toBeGreaterThan(0)
    const other = ask({ purpose: "router", messages: [{ role: "user", content: "hello, who are you" }] })
    expect(JSON.parse(other.message.content!)).toEqual({ intent: "other" })
  })

  it("plans knowledge first, then logs with terms and a service from question and runbook", () => {
    const q: ChatMessage = { role: "user", content: "Why is checkout returning 500 errors?" }
    const first = ask({ purpose: "agent", messages: [q], tools })
    expect(first.message.toolCalls).toEqual([
      {
        id: "offline-call-1",
        name: "lookup_knowledge",
        arguments: JSON.stringify({ query: q.content, top_k: 5 })
      }
    ])
    const second = ask({
      purpose: "agent",
      messages: [q, ...toolTurn("offline-call-1", "lookup_knowledge", {}, knowledgeObs)],
      tools
    })
    const args = JSON.parse(second.message.toolCalls[0]!.arguments)
    expect(second.message.toolCalls[0]?.name).toBe("query_logs")
    expect(second.message.toolCalls[0]?.id).toBe("offline-call-2")
    expect(args).toMatchObject({ topic: "application", service: "checkout-service", lookback_minutes: 60 })
    expect(args.query).toContain("500")
    expect(args.query).toContain("error")
    expect(args.query).toContain("timeout")
  })

  it("queries slow-query logs and a safe SELECT over the allowlisted tables for order questions", () => {
    const q: ChatMessage = { role: "user", content: "why are slow queries on the orders table timing out?" }
    const all = [...tools, mysqlSpec]
    const logsCall = ask({
      purpose: "agent",
      messages: [q, ...toolTurn("offline-call-1", "lookup_knowledge", {}, knowledgeObs)],
      tools: all
    })
    expect(JSON.parse(logsCall.message.toolCalls[0]!.arguments)).toMatchObject({
      topic: "database_slow_query",
      query: "orders"
    })
    const history = [
      q,
      ...toolTurn("offline-call-1", "lookup_knowledge", {}, knowledgeObs),
      ...toolTurn(
        "offline-call-2",
        "query_logs",
        {},
        { evidence_status: "EVIDENCE_FOUND", patterns: [{ pattern_id: "p1", count: 3 }] }
      )
    ]
    const sql = ask({ purpose: "agent", messages: history, tools: all })
    expect(sql.message.toolCalls[0]?.name).toBe("query_mysql")
    const { datasource, sql: text } = JSON.parse(sql.message.toolCalls[0]!.arguments)
    expect(datasource).toBe("shop")
    expect(text).toMatch(/^SELECT /)
    expect(text).toContain("FROM orders")
    expect(text).not.toMatch(/password|\*\s+FROM|insert|update|delete/i)
  })

  it("drafts citations only to refs it saw, and no positive claims without evidence", () => {
    const q: ChatMessage = { role: "user", content: "why 500?" }
    const withEvidence = ask({
      purpose: "agent",
      messages: [
        q,
        ...toolTurn("offline-call-1", "lookup_knowledge", {}, knowledgeObs),
        ...toolTurn(
          "offline-call-2",
          "query_logs",
          {},
          {
            evidence_status: "NO_EVIDENCE",
            scope: { topic: "application", query: "x", service: null, start_time: "a", end_time: "b" },
            patterns: []
          }
        )
      ]
    })
    const draft = JSON.parse(withEvidence.message.content!)
    expect(draft.claims.map((c: any) => c.citations[0])).toEqual([
      { tool_call_id: "offline-call-1", kind: "document", ref: "runbooks/db.md" },
      { tool_call_id: "offline-call-2", kind: "no_evidence", ref: "" }
    ])
    expect(draft.claims[1].negative).toBe(true)

    const none = ask({
      purpose: "agent",
      messages: [
        q,
        ...toolTurn(
          "offline-call-1",
          "lookup_knowledge",
          {},
          { evidence_status: "NO_EVIDENCE", evidence: [] }
        )
      ]
    })
    expect(JSON.parse(none.message.content!).claims).toEqual([])
  })

  it("obeys STOP_REQUIRED even when tools are offered", () => {
    const r = ask({
      purpose: "agent",
      messages: [
        { role: "user", content: "why 500?" },
        { role: "user", content: "STOP_REQUIRED: stop. Do not call more tools." }
      ],
      tools
    })
    expect(r.message.toolCalls).toEqual([])
    expect(JSON.parse(r.message.content!).claims).toEqual([])
  })

  it("judges SUPPORTED only when every cited ref is in the evidence given", () => {
    const judge = (claims: object[]) =>
      JSON.parse(
        ask({
          purpose: "semantic_guard",
          messages: [
            { role: "system", content: "judge" },
            {
              role: "user",
              content: JSON.stringify({
                question: "q",
                claims,
                evidence: [
                  {
                    tool_call_id: "c1",
                    tool: "lookup_knowledge",
                    evidence_status: "EVIDENCE_FOUND",
                    observation: knowledgeObs
                  },
                  {
                    tool_call_id: "c2",
                    tool: "query_logs",
                    evidence_status: "NO_EVIDENCE",
                    observation: { patterns: [] }
                  }
                ]
              })
            }
          ]
        }).message.content!
      ).verdicts.map((v: any) => v.verdict)
    expect(
      judge([
        { text: "a", citations: [{ tool_call_id: "c1", kind: "document", ref: "runbooks/db.md" }] },
        { text: "b", citations: [{ tool_call_id: "c1", kind: "document", ref: "runbooks/nope.md" }] },
        { text: "c", negative: true, citations: [{ tool_call_id: "c2", kind: "no_evidence", ref: "" }] },
        { text: "d", citations: [{ tool_call_id: "c2", kind: "no_evidence", ref: "" }] },
        { text: "e", citations: [] }
      ])
    ).toEqual(["SUPPORTED", "UNSUPPORTED", "SUPPORTED", "UNSUPPORTED", "UNSUPPORTED"])
  })
})
