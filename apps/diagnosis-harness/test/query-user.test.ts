import { describe, expect, it } from "vitest"
import { revealed } from "@aiops-harness/core"
import { describeBackends, InvalidConfig, loadConfig } from "../src/config.js"

const ADMIN = "mysql://root@127.0.0.1:3306/test"
const QUERY = "mysql://aiops_query:pw@127.0.0.1:3306/test"

describe("MYSQL_QUERY_URL (query_mysql runs as a SELECT-only user)", () => {
  it("is read with MYSQL_URL and enables the business datasource", () => {
    const config = loadConfig({ MYSQL_URL: ADMIN, MYSQL_QUERY_URL: QUERY })
    expect(revealed(config.mysqlQueryUrl!)).toBe(QUERY)
    expect(String(config.mysqlQueryUrl)).not.toContain("pw")
    expect(describeBackends(config).business_datasource).toBe("mysql")
  })

  it("without it, query_mysql is not offered (the administrator URL is never used for queries)", () => {
    const config = loadConfig({ MYSQL_URL: ADMIN })
    expect(config.mysqlQueryUrl).toBeNull()
    expect(describeBackends(config).business_datasource).toBe("disabled")
  })

  it.each([
    [{ MYSQL_QUERY_URL: QUERY }, "MYSQL_URL to be set too"],
    [
      { MYSQL_URL: ADMIN, MYSQL_QUERY_URL: "mysql://root:x@127.0.0.1:3306/test" },
      "not the MYSQL_URL administrator"
    ],
    [{ MYSQL_URL: ADMIN, MYSQL_QUERY_URL: "mysql://127.0.0.1:3306/test" }, "a URL naming a SELECT-only user"],
    [{ MYSQL_URL: ADMIN, MYSQL_QUERY_URL: "http://x@127.0.0.1/test" }, "MYSQL_QUERY_URL"]
  ])("refuses %j", (env, message) => {
    let error: unknown
    try {
      loadConfig(env)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(InvalidConfig)
    expect((error as InvalidConfig).variable).toBe("MYSQL_QUERY_URL")
    expect((error as InvalidConfig).message).toContain(message)
    expect((error as InvalidConfig).message).toContain('got "<redacted>"')
  })
})
