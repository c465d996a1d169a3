import { mysqlGate, mysqlUrl } from "@aiops-harness/core/testing"
import mysql from "mysql2/promise"
import { describe } from "vitest"

/** The server the integration suite uses (`MYSQL_URL`, default local MariaDB). */
export const MYSQL_URL = mysqlUrl()

/** core's gate: skips loudly when nothing answers, fails under CI=true. */
export const mysqlAvailable: boolean = await mysqlGate()

/** `describe` that runs only when the MySQL/MariaDB server answers (see `mysqlGate`). */
export const describeMysql = (name: string, body: () => void): void => {
  describe.skipIf(!mysqlAvailable)(name, body)
}

/** A name no concurrent suite uses (several suites share one server). */
export const uniqueName = (prefix: string): string =>
  `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`

/** `MYSQL_URL` with another user, password or database. */
export const urlWith = (parts: {
  user?: string
  password?: string
  database?: string
  port?: string
}): string => {
  const url = new URL(MYSQL_URL)
  if (parts.user !== undefined) url.username = encodeURIComponent(parts.user)
  if (parts.password !== undefined) url.password = encodeURIComponent(parts.password)
  if (parts.database !== undefined) url.pathname = `/${parts.database}`
  if (parts.port !== undefined) url.port = parts.port
  return url.toString()
}

/** Runs administrator statements on `MYSQL_URL`. */
export const admin = async (statements: ReadonlyArray<[string, Array<unknown>?]>): Promise<void> => {
  const conn = await mysql.createConnection({ uri: MYSQL_URL })
  try {
    for (const [sql, values] of statements) await conn.query(sql, values ?? [])
  } finally {
    await conn.end()
  }
}
