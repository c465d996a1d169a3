import { mysqlUrl } from "@aiops-harness/core/testing"
import mysql from "mysql2/promise"

/** Creates `database` on the test server and returns a URL that selects it. */
export const databaseUrl = async (database: string, reset = false): Promise<string> => {
  const conn = await mysql.createConnection({ uri: mysqlUrl() })
  try {
    if (reset) await conn.query(`DROP DATABASE IF EXISTS \`${database}\``)
    await conn.query(`CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4`)
  } finally {
    await conn.end()
  }
  const url = new URL(mysqlUrl())
  url.pathname = `/${database}`
  return url.toString()
}

/** Every row of every table of the URL's database, stringified. */
export const dumpDatabase = async (url: string): Promise<string> => {
  const conn = await mysql.createConnection({ uri: url, jsonStrings: true })
  try {
    const [tables] = await conn.query(
      "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = DATABASE()"
    )
    const out: Record<string, unknown> = {}
    for (const { t } of tables as Array<{ t: string }>) {
      const [rows] = await conn.query(`SELECT * FROM \`${t}\``)
      out[t] = rows
    }
    return JSON.stringify(out)
  } finally {
    await conn.end()
  }
}

export const rawConnection = (url: string) => mysql.createConnection({ uri: url })
