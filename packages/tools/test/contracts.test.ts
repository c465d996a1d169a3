import { describe, expect, it } from "vitest"
import * as Projectors from "@aiops-harness/projectors"
import { z } from "zod"
import {
  LOG_TOPICS,
  KnowledgeRawSchema,
  LogsRawSchema,
  LookupKnowledgeRequestSchema,
  MysqlRawSchema,
  QueryLogsRequestSchema,
  QueryMysqlRequestSchema,
  requestJsonSchema,
  toolSpecs
} from "../src/contracts/index.js"

const accepts = (schema: z.ZodType, value: unknown) =>
  expect(schema.safeParse(value).success, JSON.stringify(value)).toBe(true)
const rejects = (schema: z.ZodType, value: unknown) =>
  expect(schema.safeParse(value).success, JSON.stringify(value)).toBe(false)

describe("contracts and projectors agree", () => {
  it("uses the projectors' raw schemas and topics", () => {
    expect(KnowledgeRawSchema).toBe(Projectors.KnowledgeRawSchema)
    expect(LogsRawSchema).toBe(Projectors.LogsRawSchema)
    expect(MysqlRawSchema).toBe(Projectors.MysqlRawSchema)
    expect(LOG_TOPICS).toEqual(Projectors.LOG_TOPICS)
  })
})

describe("toolSpecs", () => {
  it("declares the three tools in a stable order with generated parameters", () => {
    expect(toolSpecs.map((s) => s.name)).toEqual(["lookup_knowledge", "query_logs", "query_mysql"])
    for (const spec of toolSpecs) {
      expect(spec.description.length).toBeGreaterThan(20)
      expect(spec.parameters).not.toHaveProperty("$schema")
      expect(spec.parameters.additionalProperties).toBe(false)
    }
    expect(toolSpecs[0]?.parameters).toEqual(requestJsonSchema(LookupKnowledgeRequestSchema))
  })

  it("lookup_knowledge JSON Schema", () => {
    expect(requestJsonSchema(LookupKnowledgeRequestSchema)).toMatchInlineSnapshot(`
      {
        "additionalProperties": false,
        "properties": {
          "query": {
            "description": "What to look up in the runbooks and operations knowledge base, in plain words.",
            "maxLength": 500,
            "minLength": 1,
            "type": "string",
          },
          "top_k": {
            "default": 5,
            "description": "How many evidence blocks to return (1-10).",
            "maximum": 10,
            "minimum": 1,
            "type": "integer",
          },
        },
        "required": [
          "query",
        ],
        "type": "object",
      }
    `)
  })

  it("query_logs JSON Schema", () => {
    expect(requestJsonSchema(QueryLogsRequestSchema)).toMatchInlineSnapshot(`
      {
        "additionalProperties": false,
        "properties": {
          "end_time": {
            "description": "End of an absolute window (ISO 8601 with zone); default now, never later than now.",
            "format": "date-time",
            "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z|([+-](?:[01]\\d|2[0-3]):[0-5]\\d)))$",
            "type": "string",
          },
          "lookback_minutes": {
            "default": 60,
            "description": "Time window ending now, in minutes (1-1440). Ignored when start_time is given.",
            "maximum": 1440,
            "minimum": 1,
            "type": "integer",
          },
          "query": {
            "description": "Lucene-like query: field:value, field:"phrase", AND/OR/NOT, -term, parentheses, numeric comparisons (response_time:>3000), value* wildcards, free text matches the message. Use * for everything.",
            "maxLength": 500,
            "minLength": 1,
            "type": "string",
          },
          "service": {
            "description": "Only entries of this service.",
            "maxLength": 128,
            "minLength": 1,
            "type": "string",
          },
          "start_time": {
            "description": "Start of an absolute window (ISO 8601 with zone, e.g. 2026-03-15T12:40:00Z); at most 1440 minutes back.",
            "format": "date-time",
            "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z|([+-](?:[01]\\d|2[0-3]):[0-5]\\d)))$",
            "type": "string",
          },
          "topic": {
            "description": "Which log stream to search.",
            "enum": [
              "application",
              "database_slow_query",
              "system_events",
              "system_metrics",
            ],
            "type": "string",
          },
        },
        "required": [
          "topic",
          "query",
        ],
        "type": "object",
      }
    `)
  })

  it("query_mysql JSON Schema", () => {
    expect(requestJsonSchema(QueryMysqlRequestSchema)).toMatchInlineSnapshot(`
      {
        "additionalProperties": false,
        "properties": {
          "datasource": {
            "description": "Allowlisted datasource name; an empty string selects the configured default.",
            "maxLength": 64,
            "type": "string",
          },
          "sql": {
            "description": "One read-only SELECT over allowlisted tables and columns.",
            "maxLength": 4000,
            "minLength": 1,
            "type": "string",
          },
        },
        "required": [
          "datasource",
          "sql",
        ],
        "type": "object",
      }
    `)
  })
})

describe("lookup_knowledge request", () => {
  it("accepts 0002 shapes and applies top_k = 5", () => {
    expect(LookupKnowledgeRequestSchema.parse({ query: "checkout 500" })).toEqual({
      query: "checkout 500",
      top_k: 5
    })
    accepts(LookupKnowledgeRequestSchema, { query: "x".repeat(500), top_k: 10 })
    accepts(LookupKnowledgeRequestSchema, { query: "a", top_k: 1 })
  })
  it.each([
    [{}],
    [{ query: "" }],
    [{ query: "   " }],
    [{ query: "x".repeat(501) }],
    [{ query: "q", top_k: 0 }],
    [{ query: "q", top_k: 11 }],
    [{ query: "q", top_k: 2.5 }],
    [{ query: "q", top_k: "5" }],
    [{ query: 42 }],
    [{ query: "q", extra: true }]
  ])("rejects %j", (value) => rejects(LookupKnowledgeRequestSchema, value))
})

describe("query_logs request", () => {
  it("accepts 0002 shapes and applies lookback_minutes = 60", () => {
    expect(QueryLogsRequestSchema.parse({ topic: "application", query: "level:ERROR" })).toEqual({
      topic: "application",
      query: "level:ERROR",
      lookback_minutes: 60
    })
    for (const topic of ["application", "database_slow_query", "system_events", "system_metrics"]) {
      accepts(QueryLogsRequestSchema, { topic, query: "*", service: "checkout", lookback_minutes: 1440 })
    }
    accepts(QueryLogsRequestSchema, { topic: "application", query: "x", lookback_minutes: 1 })
  })
  it.each([
    [{ query: "x" }],
    [{ topic: "audit", query: "x" }],
    [{ topic: "application" }],
    [{ topic: "application", query: "" }],
    [{ topic: "application", query: "x".repeat(501) }],
    [{ topic: "application", query: "x", lookback_minutes: 0 }],
    [{ topic: "application", query: "x", lookback_minutes: 1441 }],
    [{ topic: "application", query: "x", lookback_minutes: 1.5 }],
    [{ topic: "application", query: "x", service: "" }],
    [{ topic: "application", query: "x", start_time: "yesterday" }],
    [{ topic: "application", query: "x", end_time: "2025-01-01T00:00:00" }],
    [{ topic: "application", query: "x", limit: 10000 }]
  ])("rejects %j", (value) => rejects(QueryLogsRequestSchema, value))
})

describe("query_mysql request", () => {
  it("accepts 0002 shapes", () => {
    accepts(QueryMysqlRequestSchema, { datasource: "orders", sql: "SELECT 1" })
    accepts(QueryMysqlRequestSchema, { datasource: "", sql: "x".repeat(4000) })
  })
  it.each([
    [{ sql: "SELECT 1" }],
    [{ datasource: "orders" }],
    [{ datasource: "orders", sql: "" }],
    [{ datasource: "orders", sql: "x".repeat(4001) }],
    [{ datasource: "x".repeat(65), sql: "SELECT 1" }],
    [{ datasource: "orders", sql: "SELECT 1", max_rows: 100000 }]
  ])("rejects %j", (value) => rejects(QueryMysqlRequestSchema, value))
})

describe("raw response schemas (0002)", () => {
  it("knowledge / logs / mysql result JSON Schemas", () => {
    const shape = (schema: z.ZodType) => z.toJSONSchema(schema, { unrepresentable: "any" })
    expect(shape(KnowledgeRawSchema)).toMatchInlineSnapshot(`
      {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "additionalProperties": false,
        "properties": {
          "context_pack": {},
          "evidence": {
            "items": {
              "additionalProperties": false,
              "properties": {
                "breadcrumb": {
                  "anyOf": [
                    {
                      "type": "string",
                    },
                    {
                      "items": {
                        "type": "string",
                      },
                      "type": "array",
                    },
                  ],
                },
                "content": {
                  "type": "string",
                },
                "relevanceLevel": {
                  "enum": [
                    "HIGH",
                    "MEDIUM",
                    "LOW",
                    "REFERENCE",
                  ],
                  "type": "string",
                },
                "relevance_level": {
                  "enum": [
                    "HIGH",
                    "MEDIUM",
                    "LOW",
                    "REFERENCE",
                  ],
                  "type": "string",
                },
                "score": {
                  "type": "number",
                },
                "source": {
                  "type": "string",
                },
                "title": {
                  "type": "string",
                },
              },
              "required": [
                "content",
              ],
              "type": "object",
            },
            "type": "array",
          },
          "rerank_trace": {},
          "retrieval_trace": {},
        },
        "required": [
          "evidence",
        ],
        "type": "object",
      }
    `)
    expect(shape(LogsRawSchema)).toMatchInlineSnapshot(`
      {
        "$defs": {
          "__schema0": {
            "anyOf": [
              {
                "type": "string",
              },
              {
                "type": "number",
              },
              {
                "type": "boolean",
              },
              {
                "type": "null",
              },
              {
                "items": {
                  "$ref": "#/$defs/__schema0",
                },
                "type": "array",
              },
              {
                "additionalProperties": {
                  "$ref": "#/$defs/__schema0",
                },
                "propertyNames": {
                  "type": "string",
                },
                "type": "object",
              },
            ],
          },
        },
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "anyOf": [
          {
            "additionalProperties": false,
            "properties": {
              "entries": {
                "items": {
                  "additionalProperties": false,
                  "properties": {
                    "fields": {
                      "additionalProperties": {
                        "$ref": "#/$defs/__schema0",
                      },
                      "propertyNames": {
                        "type": "string",
                      },
                      "type": "object",
                    },
                    "level": {
                      "type": "string",
                    },
                    "message": {
                      "type": "string",
                    },
                    "service": {
                      "type": "string",
                    },
                    "timestamp": {
                      "format": "date-time",
                      "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z|([+-](?:[01]\\d|2[0-3]):[0-5]\\d)))$",
                      "type": "string",
                    },
                  },
                  "required": [
                    "timestamp",
                    "level",
                    "service",
                    "message",
                  ],
                  "type": "object",
                },
                "type": "array",
              },
              "scope": {
                "additionalProperties": false,
                "properties": {
                  "available_from": {
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z|([+-](?:[01]\\d|2[0-3]):[0-5]\\d)))$",
                    "type": "string",
                  },
                  "end_time": {
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z|([+-](?:[01]\\d|2[0-3]):[0-5]\\d)))$",
                    "type": "string",
                  },
                  "query": {
                    "type": "string",
                  },
                  "service": {
                    "type": [
                      "string",
                      "null",
                    ],
                  },
                  "start_time": {
                    "format": "date-time",
                    "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z|([+-](?:[01]\\d|2[0-3]):[0-5]\\d)))$",
                    "type": "string",
                  },
                  "topic": {
                    "enum": [
                      "application",
                      "database_slow_query",
                      "system_events",
                      "system_metrics",
                    ],
                    "type": "string",
                  },
                },
                "required": [
                  "topic",
                  "query",
                  "service",
                  "start_time",
                  "end_time",
                ],
                "type": "object",
              },
              "source_kind": {
                "type": "string",
              },
              "total_matched": {
                "maximum": 9007199254740991,
                "minimum": 0,
                "type": "integer",
              },
            },
            "required": [
              "source_kind",
              "scope",
              "entries",
              "total_matched",
            ],
            "type": "object",
          },
          {
            "additionalProperties": false,
            "properties": {
              "error": {
                "additionalProperties": false,
                "properties": {
                  "code": {
                    "type": "string",
                  },
                  "message": {
                    "type": "string",
                  },
                },
                "required": [
                  "code",
                  "message",
                ],
                "type": "object",
              },
            },
            "required": [
              "error",
            ],
            "type": "object",
          },
        ],
      }
    `)
    expect(shape(MysqlRawSchema)).toMatchInlineSnapshot(`
      {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "additionalProperties": false,
        "properties": {
          "columns": {
            "items": {
              "additionalProperties": false,
              "properties": {
                "name": {
                  "type": "string",
                },
                "origin": {
                  "enum": [
                    "table",
                    "mixed",
                    "literal",
                  ],
                  "type": "string",
                },
                "type": {
                  "type": "string",
                },
              },
              "required": [
                "name",
                "type",
              ],
              "type": "object",
            },
            "type": "array",
          },
          "rowCount": {
            "maximum": 9007199254740991,
            "minimum": 0,
            "type": "integer",
          },
          "rows": {
            "items": {
              "additionalProperties": {
                "type": [
                  "number",
                  "string",
                  "boolean",
                  "null",
                ],
              },
              "propertyNames": {
                "type": "string",
              },
              "type": "object",
            },
            "type": "array",
          },
          "truncated": {
            "type": "boolean",
          },
        },
        "required": [
          "columns",
          "rows",
          "rowCount",
          "truncated",
        ],
        "type": "object",
      }
    `)
  })

  it("knowledge: evidence blocks with either relevance spelling and optional traces", () => {
    accepts(KnowledgeRawSchema, { evidence: [] })
    accepts(KnowledgeRawSchema, {
      evidence: [
        { source: "a.md#x", title: "A", breadcrumb: "A > X", content: "text", relevance_level: "HIGH" },
        { breadcrumb: ["A", "Y"], content: "text", relevanceLevel: "REFERENCE", score: 0.4 }
      ],
      retrieval_trace: { scores: [1] },
      rerank_trace: null,
      context_pack: "x"
    })
    rejects(KnowledgeRawSchema, {})
    rejects(KnowledgeRawSchema, { evidence: [{ source: "a.md" }] })
    rejects(KnowledgeRawSchema, { evidence: [{ content: "x", relevance_level: "CRITICAL" }] })
    rejects(KnowledgeRawSchema, { evidence: [{ content: "x", breadcrumb: 3 }] })
    rejects(KnowledgeRawSchema, { evidence: [], hits: [] })
  })

  it("logs: a result or a backend error report", () => {
    const scope = {
      topic: "application",
      query: "*",
      service: null,
      start_time: "2025-03-14T09:00:00.000Z",
      end_time: "2025-03-14T10:00:00.000Z"
    }
    const entry = { timestamp: "2025-03-14T09:10:00.000Z", level: "ERROR", service: "checkout", message: "m" }
    accepts(LogsRawSchema, { source_kind: "embedded_ndjson", scope, entries: [], total_matched: 0 })
    accepts(LogsRawSchema, {
      source_kind: "x",
      scope: { ...scope, service: "checkout" },
      entries: [entry, { ...entry, fields: { status: 500, tags: ["a"], nested: { ok: true } } }],
      total_matched: 2
    })
    accepts(LogsRawSchema, { error: { code: "UNAVAILABLE", message: "down" } })
    rejects(LogsRawSchema, { source_kind: "x", scope, entries: [] })
    rejects(LogsRawSchema, {
      source_kind: "x",
      scope: { ...scope, start_time: "yesterday" },
      entries: [],
      total_matched: 0
    })
    rejects(LogsRawSchema, {
      source_kind: "x",
      scope,
      entries: [{ ...entry, level: undefined }],
      total_matched: 1
    })
    rejects(LogsRawSchema, { source_kind: "x", scope, entries: [], total_matched: -1 })
    rejects(LogsRawSchema, { error: { code: "X" } })
    rejects(LogsRawSchema, {
      source_kind: "x",
      scope: { ...scope, topic: "audit" },
      entries: [],
      total_matched: 0
    })
  })

  it("mysql: typed columns, scalar cells, counts", () => {
    const columns = ["id", "note", "ok", "s"].map((name) => ({ name, type: "VAR_STRING" }))
    accepts(MysqlRawSchema, {
      columns,
      rows: [{ id: 1, note: null, ok: true, s: "x" }],
      rowCount: 1,
      truncated: false
    })
    rejects(MysqlRawSchema, { columns, rows: [{ id: 1 }], rowCount: 1, truncated: false })
    rejects(MysqlRawSchema, { columns: [], rows: [], rowCount: 0, truncated: false, sql: "SELECT 1" })
    rejects(MysqlRawSchema, { columns: [{ name: "id" }], rows: [], rowCount: 0, truncated: false })
    rejects(MysqlRawSchema, { columns: [], rows: [{ id: { nested: 1 } }], rowCount: 1, truncated: false })
    rejects(MysqlRawSchema, { columns: [], rows: [], rowCount: 0 })
  })
})
