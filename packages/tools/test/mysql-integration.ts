import mysql from "mysql2/promise"
import { describe, it } from "vitest"

/** Integration-test helper: ping MySQL/MariaDB once; skip loudly when absent, fail under CI=true. */
export const MYSQL_URL = process.env.MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test"

const ping = async (url: string): Promise<boolean> => {
  try {
    const conn = await mysql.createConnection({ uri: url, connectTimeout: 2000 })
    try {
      await conn.ping()
      return true
    } finally {
      await conn.end().catch(() => undefined)
    }
  } catch {
    return false
  }
}

export const mysqlAvailable: boolean = await ping(MYSQL_URL)

const START_HINT =
  `MySQL/MariaDB is not reachable at ${MYSQL_URL}. Start one (e.g. \`docker run -p 3306:3306 -e MARIADB_ALLOW_EMPTY_ROOT_PASSWORD=1 mariadb:10.11\`) ` +
  "or set MYSQL_URL."

/** `describe` that runs when the server answers, skips loudly otherwise, and fails under CI=true. */
export const describeMysql = (name: string, body: () => void): void => {
  if (mysqlAvailable) {
    describe(name, body)
    return
  }
  if (process.env.CI === "true") {
    describe(name, () => {
      it("requires a MySQL/MariaDB server", () => {
        throw new Error(`${START_HINT} (CI=true: integration tests must not be skipped)`)
      })
    })
    return
  }
  console.warn(`\n[SKIPPED] ${name}: ${START_HINT}\n`)
  describe.skip(name, body)
}
