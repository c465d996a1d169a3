import { describe, expect, it } from "vitest"
import { z } from "zod"
import { jsonBytes, requestJsonSchema, utf8Bytes } from "../src/index.js"

describe("utf8Bytes / jsonBytes (the one byte counter)", () => {
  it("counts UTF-8 bytes as TextEncoder writes them, lone surrogates as 3", () => {
    const encoder = new TextEncoder()
    for (const text of ["", "abc", "é", "€", "😀", "\ud83d", "a\udc00b", "\ud83d\ud83d"]) {
      expect(utf8Bytes(text)).toBe(encoder.encode(text).length)
    }
  })

  it("counts the bytes of JSON.stringify, 0 for what has no JSON text", () => {
    expect(jsonBytes({ a: "é" })).toBe(utf8Bytes('{"a":"é"}'))
    expect(jsonBytes(undefined)).toBe(0)
  })
})

describe("requestJsonSchema (the one tool JSON-schema generator)", () => {
  it("describes the input side without $schema: defaulted fields are optional", () => {
    const schema = requestJsonSchema(z.object({ q: z.string(), limit: z.number().default(5) }))
    expect(schema.$schema).toBeUndefined()
    expect(schema.type).toBe("object")
    expect(schema.required).toEqual(["q"])
  })

  it("turns a type JSON Schema cannot express into an unconstrained field instead of throwing", () => {
    const schema = requestJsonSchema(z.object({ at: z.date() }))
    expect(schema.properties).toEqual({ at: {} })
  })
})
