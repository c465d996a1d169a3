import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import {
  collectLogFieldNames,
  type LogQuery,
  type LogQuerySyntaxCode,
  makeLogFieldResolver,
  matchesLogQuery,
  parseLogQuery
} from "../src/logs/index.js"

const record = {
  timestamp: "2025-03-14T09:12:40.000Z",
  level: "ERROR",
  service: "checkout",
  message: "PaymentGatewayTimeout: no answer after 3000 ms",
  topic: "application",
  response_time: 3012,
  status: "500",
  tags: ["payments", "egress"],
  http: { method: "POST", path: "/api/checkout" },
  note: null
}

// The fields this source knows: the wire fields plus those of `record`.
const known = new Set<string>()
collectLogFieldNames(record, known)
const resolveField = makeLogFieldResolver(known)

const parse = (q: string): LogQuery => Effect.runSync(parseLogQuery(q, { resolveField }))
const syntaxCode = (q: string) =>
  Effect.runSync(
    Effect.flip(parseLogQuery(q, { resolveField })).pipe(
      Effect.map((e) => ({ code: e.code, position: e.position }))
    )
  )

describe("parseLogQuery: accepted syntax matches as specified", () => {
  it.each([
    ["*", true],
    ["level:ERROR", true],
    ["level:error", true],
    ["level:WARN", false],
    ['message:"no answer after"', true],
    ['"no ANSWER after"', true],
    ['"answer no"', false],
    ["PaymentGateway", true],
    ["paymentgatewaytimeout", true],
    ["Payment*Timeout", true],
    ["service:check*", true],
    ["service:chec?out", true],
    ["service:check", false],
    ["level:ERROR AND service:checkout", true],
    ["level:ERROR service:checkout", true],
    ["level:ERROR && service:cart", false],
    ["level:WARN OR service:checkout", true],
    ["level:WARN || service:cart", false],
    ["NOT level:ERROR", false],
    ["-level:WARN", true],
    ["!level:ERROR", false],
    ["+level:ERROR -service:cart", true],
    ["(level:WARN OR level:ERROR) AND service:checkout", true],
    ["service:(cart OR checkout)", true],
    ['service:(cart OR "checkout")', true],
    ["response_time:>3000", true],
    ["response_time:>=3012", true],
    ["response_time:<3012", false],
    ["response_time:<=3012.5", true],
    ["status:>499", true],
    ["status:500", true],
    ["tags:egress", true],
    ["http.method:post", true],
    ['http.path:"/api/checkout"', true],
    ["note:*", false],
    ["response_time:*", true],
    ["Level:error", true],
    ["HTTP.Method:post", true],
    ["http:*", true],
    ["topic:application", true],
    ["\\>3000", false],
    ["message:\\>", false],
    ["level:ERROR AND NOT (service:cart OR service:web)", true],
    // lower-case operators are plain terms ("and" is not in the message)
    ["timeout and", false],
    ["timeout or", false],
    ["status\\:500", false],
    ["((level:ERROR))", true]
  ])("%s -> %s", (query, expected) => {
    expect(matchesLogQuery(parse(query), record)).toBe(expected)
  })

  it("builds the expected tree", () => {
    expect(parse("a OR b c")).toEqual({
      kind: "or",
      clauses: [
        { kind: "term", field: null, value: "a", wildcard: false, phrase: false },
        {
          kind: "and",
          clauses: [
            { kind: "term", field: null, value: "b", wildcard: false, phrase: false },
            { kind: "term", field: null, value: "c", wildcard: false, phrase: false }
          ]
        }
      ]
    })
    expect(parse("response_time:>=2.5")).toEqual({
      kind: "compare",
      field: "response_time",
      op: ">=",
      value: 2.5
    })
    expect(parse("Note:*")).toEqual({ kind: "exists", field: "note" })
  })

  it("wildcards do not backtrack catastrophically", () => {
    const q = parse(`message:${"*a".repeat(20)}*b`)
    expect(matchesLogQuery(q, { message: "a".repeat(5000) })).toBe(false)
  })
})

describe("parseLogQuery: unsupported syntax is a typed error, never an empty result", () => {
  it.each<[string, LogQuerySyntaxCode]>([
    ["", "EMPTY_QUERY"],
    ["   ", "EMPTY_QUERY"],
    ["(level:ERROR", "UNBALANCED_PARENS"],
    ["level:ERROR)", "UNBALANCED_PARENS"],
    ["((a) OR b", "UNBALANCED_PARENS"],
    ["()", "EMPTY_GROUP"],
    ["service:()", "EMPTY_GROUP"],
    ["level:ERROR AND", "DANGLING_OPERATOR"],
    ["OR level:ERROR", "DANGLING_OPERATOR"],
    ["a AND OR b", "DANGLING_OPERATOR"],
    ["a NOT", "DANGLING_OPERATOR"],
    ["(a OR)", "DANGLING_OPERATOR"],
    ["a - b", "DANGLING_OPERATOR"],
    ["response_time:>abc", "INVALID_COMPARISON"],
    ["response_time:>", "INVALID_COMPARISON"],
    ["response_time:<=1e3", "INVALID_COMPARISON"],
    ["response_time:>3000ms", "INVALID_COMPARISON"],
    ["timeout~2", "UNSUPPORTED_OPERATOR"],
    ['"no answer"~3', "UNSUPPORTED_OPERATOR"],
    ["level:ERROR^2", "UNSUPPORTED_OPERATOR"],
    ["message:/time.*/", "UNSUPPORTED_OPERATOR"],
    ["response_time:[100 TO 200]", "UNSUPPORTED_RANGE"],
    ["response_time:{100 TO 200}", "UNSUPPORTED_RANGE"],
    ['"unterminated', "UNTERMINATED_QUOTE"],
    ['message:"oops', "UNTERMINATED_QUOTE"],
    ["level:", "EMPTY_FIELD_VALUE"],
    ["level: ERROR", "EMPTY_FIELD_VALUE"],
    [":value", "INVALID_FIELD"],
    ["9field:x", "INVALID_FIELD"],
    // fields the source does not have would otherwise match nothing
    ["missing_field:x", "INVALID_FIELD"],
    ["missing_field:>1", "INVALID_FIELD"],
    ["missing_field:*", "INVALID_FIELD"],
    ["lvel:ERROR", "INVALID_FIELD"],
    ["x:y:z", "INVALID_FIELD"],
    ['nope:"a b"', "INVALID_FIELD"],
    ["nope:(a OR b)", "INVALID_FIELD"],
    ["http.nope:x", "INVALID_FIELD"],
    ["tags.0:egress", "INVALID_FIELD"],
    [">x:1", "INVALID_FIELD"],
    // a comparison needs a field (and no wildcard)
    [">3000", "INVALID_COMPARISON"],
    [">=3000", "INVALID_COMPARISON"],
    ["<3000", "INVALID_COMPARISON"],
    ["timeout AND <=5", "INVALID_COMPARISON"],
    ["response_time:>30*", "INVALID_COMPARISON"],
    ["trailing\\", "TRAILING_ESCAPE"],
    [`${"(".repeat(20)}a${")".repeat(20)}`, "TOO_COMPLEX"],
    [Array.from({ length: 70 }, (_, i) => `t${i}`).join(" OR "), "TOO_COMPLEX"]
  ])("%j -> %s", (query, code) => {
    expect(syntaxCode(query).code).toBe(code)
  })

  it("reports the position of the problem", () => {
    expect(syntaxCode("level:ERROR AND (service:x")).toEqual({ code: "UNBALANCED_PARENS", position: 16 })
    expect(syntaxCode("a status:>x")).toEqual({ code: "INVALID_COMPARISON", position: 2 })
    expect(syntaxCode("level:ERROR lvel:x")).toEqual({ code: "INVALID_FIELD", position: 12 })
    expect(syntaxCode("a >3000")).toEqual({ code: "INVALID_COMPARISON", position: 2 })
  })

  it("without a field resolver only the syntax is checked", () => {
    expect(Effect.runSync(parseLogQuery("anything:x"))).toEqual({
      kind: "term",
      field: "anything",
      value: "x",
      wildcard: false,
      phrase: false
    })
  })

  it("resolves field case only when unambiguous", () => {
    const r = makeLogFieldResolver(["Host", "host", "Pod"])
    expect(r("host")).toBe("host")
    expect(r("Host")).toBe("Host")
    expect(r("HOST")).toBeUndefined()
    expect(r("pod")).toBe("Pod")
    expect(r("LEVEL")).toBe("level")
  })
})
