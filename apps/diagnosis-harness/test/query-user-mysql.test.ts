import { mysqlGate, mysqlUrl } from "@aiops-harness/core/testing"
import mysql from "mysql2/promise"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { main } from "../src/main.js"
import { captureIo } from "./helpers.js"

const hasMysql = await mysqlGate()

/** A user that can read every schema (mysql.* included): query_mysql must refuse to run as it. */
const WIDE_USER = "aiops_app_wide_reader"
const WIDE_PASSWORD = "aiops-app-wide-pw"

const wideUrl = () => {
  const u = new URL(mysqlUrl())
  u.username = WIDE_USER
  u.password = WIDE_PASSWORD
  return u.toString()
}

describe.runIf(hasMysql)("startup refuses a MYSQL_QUERY_URL user that is not read-only", () => {
  let admin: mysql.Connection
  beforeAll(async () => {
    admin = await mysql.createConnection({ uri: mysqlUrl(), connectTimeout: 3000 })
    for (const host of ["%", "localhost"]) {
      await admin.query("CREATE USER IF NOT EXISTS ?@? IDENTIFIED BY ?", [WIDE_USER, host, WIDE_PASSWORD])
      await admin.query("GRANT SELECT ON *.* TO ?@?", [WIDE_USER, host])
    }
  })
  afterAll(async () => {
    for (const host of ["%", "localhost"]) await admin?.query("DROP USER IF EXISTS ?@?", [WIDE_USER, host])
    await admin?.end()
  })

  it("exits 1 with a message naming the problem, never the password", async () => {
    const { io, out, err } = captureIo({ MYSQL_URL: mysqlUrl(), MYSQL_QUERY_URL: wideUrl() })
    const code = await main(["diagnose", "why is checkout returning 500s?"], io)
    const text = err.join("\n")
    expect(code).toBe(1)
    const address = `${new URL(mysqlUrl()).hostname}:${new URL(mysqlUrl()).port || 3306}`
    expect(text).toContain(
      `error: cannot start: business datasource: the MYSQL_QUERY_URL user at ${address} is not read-only (global SELECT`
    )
    expect(text).toContain("migrate creates one")
    expect(text + out.join("\n")).not.toContain(WIDE_PASSWORD)
  })
})
