// SQL validator: statements validated per second (two passes: the input, then the rendered plan,
// which must render identically), for a plain, a join/aggregate and a CTE/window statement.
// Printed, never asserted.
//   pnpm --filter @aiops-harness/tools... build && node scripts/bench/tools-mysql-validator.mjs
import { parseMysqlAllowlist, validateMysqlQuery } from "../../packages/tools/dist/index.js"
import { Effect } from "../../packages/tools/node_modules/effect/dist/index.js"

const allowlist = Effect.runSync(
  parseMysqlAllowlist({
    datasources: {
      shop: {
        defaultSchema: "shop",
        schemas: {
          shop: {
            tables: {
              orders: { columns: ["id", "user_id", "status", "total", "created_at"] },
              order_items: { columns: ["id", "order_id", "sku", "quantity", "unit_price"] }
            }
          }
        }
      }
    }
  })
)
const statements = {
  plain: "SELECT id, status FROM orders WHERE status = 'paid' ORDER BY id DESC LIMIT 20",
  join: "SELECT o.status, COUNT(*) AS n, SUM(oi.quantity * oi.unit_price) AS amount FROM orders o JOIN order_items oi ON oi.order_id = o.id WHERE o.created_at >= NOW() - INTERVAL 1 DAY GROUP BY o.status HAVING COUNT(*) > 1",
  cte: "WITH t AS (SELECT user_id, total, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY created_at DESC) AS rn FROM orders) SELECT user_id, total FROM t WHERE rn = 1 AND total > (SELECT AVG(total) FROM orders)"
}
for (const [name, sql] of Object.entries(statements)) {
  const run = () => Effect.runSync(validateMysqlQuery({ datasource: "shop", sql }, allowlist))
  for (let i = 0; i < 200; i++) run()
  const n = 2000
  const start = process.hrtime.bigint()
  for (let i = 0; i < n; i++) run()
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  console.log(
    `validateMysqlQuery ${name.padEnd(5)}: ${(n / (ms / 1000)).toFixed(0)} statements/s (${((ms * 1000) / n).toFixed(0)} µs each)`
  )
}
