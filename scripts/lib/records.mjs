// Record fixtures shared by the store and boundary benches.
import { projectingRecord, readyRecord } from "../../packages/core/dist/testing/fixtures.js"

/** A READY record with a logs raw response of about `kb` KiB (what one run stores per call). */
export const logsRecord = (kb) => {
  const entries = []
  let size = 0
  for (let i = 0; size < kb * 1024; i++) {
    const entry = {
      timestamp: new Date(Date.parse("2026-01-01T00:00:00Z") + i * 997).toISOString(),
      level: ["INFO", "WARN", "ERROR"][i % 3],
      service: ["checkout", "payment", "inventory"][i % 3],
      message: `Connection to 10.0.${i % 250}.${(i * 7) % 250}:3306 timed out after ${(i * 37) % 5000}ms (pool=${i % 8} request=${(i * 2654435761) % 4294967296})`
    }
    entries.push(entry)
    size += JSON.stringify(entry).length + 1
  }
  return { ...readyRecord(projectingRecord({ createdAt: Date.now() })), rawResponse: { entries } }
}
