import { describe, expect, it } from "vitest"
import { classifyDriverError, connectionReusableAfter, MysqlError } from "../src/index.js"

const driverError = (fields: Record<string, unknown>) => Object.assign(new Error("driver text"), fields)

describe("classifyDriverError", () => {
  it.each([
    [{ code: "ER_STATEMENT_TIMEOUT", errno: 1969 }, "query", "TIMEOUT"],
    [{ code: "ER_UNKNOWN", errno: 3024 }, "query", "TIMEOUT"],
    [{ code: "PROTOCOL_SEQUENCE_TIMEOUT", fatal: true }, "query", "TIMEOUT"],
    [{ code: "ER_ACCESS_DENIED_ERROR", errno: 1045 }, "connect", "ACCESS_DENIED"],
    [{ code: "ER_DBACCESS_DENIED_ERROR", errno: 1044 }, "query", "ACCESS_DENIED"],
    [{ code: "ECONNREFUSED" }, "connect", "CONNECT"],
    [{ code: "ETIMEDOUT" }, "query", "CONNECT"],
    [{ code: "PROTOCOL_CONNECTION_LOST", fatal: true }, "query", "CONNECT"],
    [{ code: "ER_NO_SUCH_TABLE", errno: 1146, sqlState: "42S02" }, "query", "QUERY"],
    [{}, "connect", "CONNECT"],
    [{}, "query", "QUERY"]
  ] as const)("%o while %s -> %s", (fields, phase, reason) => {
    const error = classifyDriverError(driverError(fields), phase)
    expect(error).toBeInstanceOf(MysqlError)
    expect(error.reason).toBe(reason)
    expect(error.message).toBe("driver text")
  })

  it("keeps the server's code, errno and SQLSTATE; a non-Error becomes its text", () => {
    const error = classifyDriverError(
      driverError({ code: "ER_PARSE_ERROR", errno: 1064, sqlState: "42000" }),
      "query"
    )
    expect(error).toMatchObject({ code: "ER_PARSE_ERROR", errno: 1064, sqlState: "42000" })
    expect(classifyDriverError("boom", "query")).toMatchObject({ reason: "QUERY", message: "boom" })
  })

  it("returns a MysqlError unchanged", () => {
    const error = new MysqlError({ reason: "CIRCUIT_OPEN", message: "open" })
    expect(classifyDriverError(error, "connect")).toBe(error)
  })
})

describe("MysqlError", () => {
  it("is retryable for a down, slow or guarded server only", () => {
    const retryable = (reason: MysqlError["reason"]) => new MysqlError({ reason, message: "" }).isRetryable
    expect(["CONNECT", "TIMEOUT", "CIRCUIT_OPEN"].map((r) => retryable(r as MysqlError["reason"]))).toEqual([
      true,
      true,
      true
    ])
    expect(
      ["ACCESS_DENIED", "QUERY", "INVALID_CONFIG"].map((r) => retryable(r as MysqlError["reason"]))
    ).toEqual([false, false, false])
  })

  it("a connection is reused only after a QUERY error", () => {
    expect(connectionReusableAfter(new MysqlError({ reason: "QUERY", message: "" }))).toBe(true)
    for (const reason of ["CONNECT", "TIMEOUT", "ACCESS_DENIED"] as const)
      expect(connectionReusableAfter(new MysqlError({ reason, message: "" }))).toBe(false)
    expect(connectionReusableAfter(new Error("not a MysqlError"))).toBe(false)
  })
})
