import { mysqlGate, mysqlUrl } from "@aiops-harness/core/testing"
import { describe } from "vitest"

/** The server the MySQL integration suites use (`MYSQL_URL`, default local MariaDB). */
export const MYSQL_URL = mysqlUrl()

/** core's gate: skips loudly when nothing answers, fails under CI=true. */
export const mysqlAvailable: boolean = await mysqlGate()

/** `describe` that runs only when the MySQL/MariaDB server answers (see `mysqlGate`). */
export const describeMysql = (name: string, body: () => void): void => {
  describe.skipIf(!mysqlAvailable)(name, body)
}
