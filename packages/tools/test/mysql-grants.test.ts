import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { checkGrants, ensureMysqlQueryUser } from "../src/mysql/index.js"

describe("checkGrants (SHOW GRANTS of the query user)", () => {
  it.each([
    [
      "MariaDB SELECT-only user",
      [
        "GRANT USAGE ON *.* TO `ro`@`%` IDENTIFIED BY PASSWORD '*0123456789ABCDEF0123456789ABCDEF01234567'",
        "GRANT SELECT ON `shop`.* TO `ro`@`%`"
      ]
    ],
    [
      "MySQL SELECT-only user",
      ["GRANT USAGE ON *.* TO `ro`@`%`", "GRANT SELECT, SHOW VIEW ON `shop`.* TO `ro`@`%`"]
    ],
    [
      "table and column grants",
      ["GRANT USAGE ON *.* TO 'ro'@'%'", "GRANT SELECT (`id`, `status`) ON `shop`.`orders` TO 'ro'@'%'"]
    ],
    ["escaped underscore", ["GRANT SELECT ON `shop\\_db`.* TO `ro`@`%`"]]
  ])("accepts %s", (_name, lines) => {
    expect(checkGrants(lines)).toEqual([])
  })

  it.each([
    [
      "root",
      ["GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION"],
      "ALL PRIVILEGES privilege"
    ],
    ["proxy", ["GRANT PROXY ON ''@'%' TO 'root'@'localhost' WITH GRANT OPTION"], "PROXY"],
    ["global SELECT", ["GRANT SELECT ON *.* TO `ro`@`%`"], "global SELECT"],
    ["FILE", ["GRANT FILE ON *.* TO `ro`@`%`"], "FILE privilege"],
    ["writes", ["GRANT SELECT, INSERT, UPDATE ON `shop`.* TO `ro`@`%`"], "INSERT privilege"],
    ["mysql.*", ["GRANT SELECT ON `mysql`.* TO `ro`@`%`"], "SELECT on a system schema"],
    ["mysql.user", ["GRANT SELECT ON mysql.user TO `ro`@`%`"], "SELECT on a system schema"],
    [
      "wildcard database matching mysql",
      ["GRANT SELECT ON `m_sql`.* TO `ro`@`%`"],
      "SELECT on a system schema"
    ],
    ["% database", ["GRANT SELECT ON `%`.* TO `ro`@`%`"], "SELECT on a system schema"],
    ["grant option", ["GRANT SELECT ON `shop`.* TO `ro`@`%` WITH GRANT OPTION"], "WITH GRANT OPTION"],
    ["role", ["GRANT `reader` TO `ro`@`%`"], "role or unrecognised grant"],
    ["routine", ["GRANT EXECUTE ON PROCEDURE `shop`.`p` TO `ro`@`%`"], "EXECUTE on a routine"],
    ["dynamic privileges", ["GRANT BACKUP_ADMIN ON *.* TO `ro`@`%`"], "BACKUP_ADMIN privilege"],
    ["nothing visible", [], "no grants visible"]
  ])("refuses %s", (_name, lines, problem) => {
    expect(checkGrants(lines)).toContain(problem)
  })

  it("never reports password hashes", () => {
    const problems = checkGrants([
      "GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` IDENTIFIED BY PASSWORD '*0123456789ABCDEF0123456789ABCDEF01234567' WITH GRANT OPTION"
    ])
    expect(problems.join(" ")).not.toContain("0123456789ABCDEF")
    expect(problems).toContain("WITH GRANT OPTION")
  })
})

describe("ensureMysqlQueryUser configuration errors", () => {
  const run = (options: Parameters<typeof ensureMysqlQueryUser>[0]) =>
    Effect.runPromise(Effect.flip(ensureMysqlQueryUser(options)))

  it.each([
    ["an unparsable URL", { adminUrl: "not a url", queryUrl: "mysql://q:pw@h/db", databases: ["db"] }],
    ["no query user", { adminUrl: "mysql://root@h/db", queryUrl: "mysql://h/db", databases: ["db"] }],
    [
      "the administrator as query user",
      { adminUrl: "mysql://root@h/db", queryUrl: "mysql://root:x@h/db", databases: ["db"] }
    ],
    ["no database", { adminUrl: "mysql://root@h/db", queryUrl: "mysql://q:pw@h/db", databases: [] }]
  ])("refuses %s with INVALID_CONFIG before connecting", async (_name, options) => {
    const error = await run(options)
    expect(error.code).toBe("INVALID_CONFIG")
  })

  it("reports an unreachable server as CONNECTION_FAILED", async () => {
    const error = await run({
      adminUrl: "mysql://root@127.0.0.1:1/db",
      queryUrl: "mysql://q:pw@127.0.0.1:1/db",
      databases: ["db"],
      connectTimeoutMs: 1000
    })
    expect(error.code).toBe("CONNECTION_FAILED")
    expect(error.internalMessage).not.toContain("pw")
  })
})
