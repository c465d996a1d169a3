// Decoding a canonical invocation read from a store: JSON.parse alone vs JSON.parse + the
// record schema, on a ~2.7 MB READY record (a large raw logs response). Printed, not asserted.
import { CanonicalInvocationSchema } from "../../packages/core/dist/index.js"
import { projectingRecord, readyRecord } from "../../packages/core/dist/testing/fixtures.js"
const base = projectingRecord()
const entries = Array.from({ length: 20000 }, (_, i) => ({
  timestamp: "2026-11-29T12:00:00Z",
  level: "ERROR",
  service: "checkout",
  message: `line ${i} HikariPool-1 Connection is not available`
}))
const big = { ...readyRecord(base), rawResponse: { source_kind: "x", entries } }
const json = JSON.stringify(big)
let t = performance.now()
for (let i = 0; i < 5; i++) JSON.parse(json)
const parseMs = (performance.now() - t) / 5
t = performance.now()
for (let i = 0; i < 5; i++) CanonicalInvocationSchema.safeParse(JSON.parse(json))
const zodMs = (performance.now() - t) / 5
console.log(
  `canonical_record_decode record_mb=${(json.length / 1e6).toFixed(2)} json_parse_ms=${parseMs.toFixed(1)} decode_ms=${zodMs.toFixed(1)} ratio=${(zodMs / parseMs).toFixed(2)}`
)
