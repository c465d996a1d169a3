// SQL validator: statements validated per CPU second (two passes: the input, then the rendered plan,
// which must render identically), for a plain, a join/aggregate and a CTE/window statement.
// Also the parser's share: node-sql-parser's astify + sqlify of the same two statements (input and
// plan) per validation, against the whole; the rest is the validator's own work.
// Printed, never asserted.
//   pnpm --filter @aiops-harness/tools... build && node scripts/bench/tools-mysql-validator.mjs
//   (VALIDATOR_DIST=<another dist/index.js> measures another build the same way)
import { Effect } from "../../packages/tools/node_modules/effect/dist/index.js"
import NodeSqlParser from "../../packages/tools/node_modules/node-sql-parser/build/mysql.js"

const { parseMysqlAllowlist, validateMysqlQuery } = await import(
  process.env.VALIDATOR_DIST ?? "../../packages/tools/dist/index.js"
)
const parser = new NodeSqlParser.Parser()
const OPTIONS = { database: "MySQL" }

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
const N = Number(process.env.BENCH_N ?? 2000)
/**
 * Best of five rounds, in CPU time of this process (ms per call): the machine is shared, and CPU
 * time does not count the time other processes hold the cores.
 */
const timed = (run) => {
  for (let i = 0; i < N / 10; i++) run()
  let best = Number.POSITIVE_INFINITY
  for (let round = 0; round < 5; round++) {
    const start = process.cpuUsage()
    for (let i = 0; i < N / 5; i++) run()
    const used = process.cpuUsage(start)
    best = Math.min(best, (used.user + used.system) / 1000 / (N / 5))
  }
  return best
}
for (const [name, sql] of Object.entries(statements)) {
  const validate = () => Effect.runSync(validateMysqlQuery({ datasource: "shop", sql }, allowlist))
  const plan = validate().sql
  // What the parser does per validation: parse and print the input, then the plan.
  const parse = () => {
    parser.sqlify(parser.astify(sql, OPTIONS), OPTIONS)
    parser.sqlify(parser.astify(plan, OPTIONS), OPTIONS)
  }
  const ms = timed(validate)
  const parserMs = timed(parse)
  const share = (100 * parserMs) / ms
  console.log(
    `validateMysqlQuery ${name.padEnd(5)}: ${(1000 / ms).toFixed(0)} statements/s (${(ms * 1000).toFixed(0)} µs each; parser ${(parserMs * 1000).toFixed(0)} µs = ${share.toFixed(0)}%, validator ${(100 - share).toFixed(0)}%)`
  )
}
