/**
 * Deterministic demo log world: a seeded PRNG (mulberry32, never `Math.random`) produces NDJSON
 * entries for the last N minutes before an injected `now`, with one selectable incident scenario
 * mixed into plenty of background noise. Messages deliberately contain secrets, IPs, host and pod
 * names: the exported `DEMO_*` values let tests prove that none of them ever leaves the harness.
 */

import { LOG_TOPICS, type LogTopic } from "@aiops-harness/tools"

export const SCENARIO_IDS = [
  "db-pool-exhaustion",
  "oom-killed",
  "slow-query-orders",
  "redis-timeouts",
  "calm"
] as const
export type ScenarioId = (typeof SCENARIO_IDS)[number]
export const DEFAULT_SCENARIO: ScenarioId = "db-pool-exhaustion"

// One definition of the topics, in projectors (re-exported by tools).
export { LOG_TOPICS, type LogTopic }

export interface ScenarioInfo {
  readonly id: ScenarioId
  readonly title: string
  readonly description: string
  /** A question a user would ask during this incident. */
  readonly sampleQuestion: string
}

export const SCENARIOS: Readonly<Record<ScenarioId, ScenarioInfo>> = {
  "db-pool-exhaustion": {
    id: "db-pool-exhaustion",
    title: "Database connection pool exhaustion",
    description:
      "checkout-service's HikariCP pool is exhausted (active=max, requests wait 30 s) and POST /api/checkout answers 500.",
    sampleQuestion: "why is checkout returning 500s?"
  },
  "oom-killed": {
    id: "oom-killed",
    title: "OOMKilled pod restarts",
    description:
      "checkout-service pods run out of heap, are OOMKilled (exit code 137) and restart in CrashLoopBackOff.",
    sampleQuestion: "why are checkout pods restarting with OOMKilled?"
  },
  "slow-query-orders": {
    id: "slow-query-orders",
    title: "Slow query on orders",
    description:
      "A query on orders by user_id and status scans the table (missing index) and holds locks; order-service times out.",
    sampleQuestion: "why are slow queries on the orders table timing out?"
  },
  "redis-timeouts": {
    id: "redis-timeouts",
    title: "Downstream Redis timeouts",
    description:
      "cart-service and checkout-service time out on Redis commands (2 s) after Redis latency spikes.",
    sampleQuestion: "why is the cart timing out on redis?"
  },
  calm: {
    id: "calm",
    title: "Calm world",
    description: "No incident: background noise only (INFO and DEBUG lines, no warning, no error).",
    sampleQuestion: "why is the espresso machine printing haikus?"
  }
}

export const isScenarioId = (value: unknown): value is ScenarioId =>
  typeof value === "string" && (SCENARIO_IDS as ReadonlyArray<string>).includes(value)

/** One NDJSON line of the demo world. */
export interface DemoLogEntry {
  readonly timestamp: string
  readonly level: "DEBUG" | "INFO" | "WARN" | "ERROR"
  readonly service: string
  readonly message: string
  readonly topic: LogTopic
  readonly pod: string
  readonly host: string
  readonly [field: string]: string | number | boolean | null
}

// ---------------------------------------------------------------------------------------------
// Sensitive values used by the generator (exported so tests can assert they never leak)
// ---------------------------------------------------------------------------------------------

export const DEMO_PASSWORDS = ["Xk9#mPq2!vR7", "s3cr3t-Redis-pa55", "hunter2-prod-2026"] as const
export const DEMO_BEARER_TOKENS = ["sk_live_51Hx9aQ2eZvKYlo2C8d7f3AbQ"] as const
export const DEMO_JWTS = [
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQ0MTEiLCJyb2xlIjoiY3VzdG9tZXIiLCJpYXQiOjE3NzQwMDAwMDB9.q3Xb7vR1mZ9kTn2LwP0sYc8dHf4gJe6aUo5iKr3Nt1E"
] as const
export const DEMO_AWS_ACCESS_KEYS = ["AKIA4DEMOX7Q2ZP9LK3M"] as const
export const DEMO_AWS_SECRET_KEYS = ["wJalrXUtnFEMI/K7MDENG/bPxRfiCYDEMOKEY9a1"] as const
export const DEMO_API_KEYS = ["pk_demo_93f1c0a7e4b2d8c6"] as const

/** Every secret value the generator writes into messages. */
export const DEMO_SECRETS: ReadonlyArray<string> = [
  ...DEMO_PASSWORDS,
  ...DEMO_BEARER_TOKENS,
  ...DEMO_JWTS,
  ...DEMO_AWS_ACCESS_KEYS,
  ...DEMO_AWS_SECRET_KEYS,
  ...DEMO_API_KEYS
]

export const DEMO_IPS: ReadonlyArray<string> = [
  "10.42.3.17",
  "10.42.7.201",
  "10.42.9.66",
  "10.60.1.12",
  "10.60.2.8",
  "172.20.14.9",
  "203.0.113.45",
  "198.51.100.23"
]

/** Node host names (the `host` field) and the internal DNS names of the backends. */
export const DEMO_HOSTS: ReadonlyArray<string> = [
  "ip-10-42-3-17.eu-west-1.compute.internal",
  "ip-10-42-7-201.eu-west-1.compute.internal",
  "ip-10-42-9-66.eu-west-1.compute.internal",
  "orders-db-primary.shop.svc.cluster.local",
  "redis-master.shop.svc.cluster.local"
]

const NODE_HOSTS = DEMO_HOSTS.slice(0, 3)
const DB_HOST = "orders-db-primary.shop.svc.cluster.local"
const REDIS_HOST = "redis-master.shop.svc.cluster.local"
const DB_IP = "10.60.2.8"
const REDIS_IP = "10.60.1.12"
const CLIENT_IPS = ["203.0.113.45", "198.51.100.23", "172.20.14.9"]

const SERVICES = [
  "api-gateway",
  "catalog-service",
  "cart-service",
  "checkout-service",
  "order-service",
  "payment-gateway",
  "inventory-service",
  "search-service",
  "order-batch"
] as const
type Service = (typeof SERVICES)[number]
/** Services that log background noise (the batch job only appears in incidents). */
const NOISE_SERVICES: ReadonlyArray<Service> = SERVICES.filter((s) => s !== "order-batch")

const POD_SUFFIXES: Readonly<Record<Service, ReadonlyArray<string>>> = {
  "api-gateway": ["6c9d4f7b8-q7l2m", "6c9d4f7b8-vz4wd"],
  "catalog-service": ["58b7c9d6f-h2k8s"],
  "cart-service": ["7f6d5c4b3-mm9tx", "7f6d5c4b3-p4r2z"],
  "checkout-service": ["7d9f8b6c5-x2x9k", "7d9f8b6c5-j8w4n", "7d9f8b6c5-r5t7c"],
  "order-service": ["5b4c8d9e7-kq3vb", "5b4c8d9e7-zt6hp"],
  "payment-gateway": ["84c6b5d7f-fw2jn"],
  "inventory-service": ["9a7b6c5d4-ly8qe"],
  "search-service": ["66d8e7f9a-cn5ug"],
  "order-batch": ["29181740-x7k2p"]
}

/** Every pod name the generator uses. */
export const DEMO_PODS: ReadonlyArray<string> = SERVICES.flatMap((s) =>
  POD_SUFFIXES[s].map((x) => `${s}-${x}`)
)

/** Secrets, IPs and host names: nothing of this may appear anywhere outside the raw logs. */
export const DEMO_LEAK_MARKERS: ReadonlyArray<string> = [
  ...DEMO_SECRETS,
  ...DEMO_IPS,
  ...DEMO_HOSTS,
  ...DEMO_PODS
]

// ---------------------------------------------------------------------------------------------
// PRNG
// ---------------------------------------------------------------------------------------------

/** mulberry32: a small, fast, seeded 32-bit PRNG. Returns floats in [0, 1). */
export const mulberry32 = (seed: number): (() => number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface Rng {
  readonly next: () => number
  readonly int: (min: number, max: number) => number
  readonly pick: <A>(items: ReadonlyArray<A>) => A
  readonly chance: (p: number) => boolean
  readonly hex: (length: number) => string
}

const makeRng = (seed: number): Rng => {
  const next = mulberry32(seed)
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1))
  return {
    next,
    int,
    pick: <A>(items: ReadonlyArray<A>) => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
    hex: (length: number) => {
      let out = ""
      for (let i = 0; i < length; i++) out += "0123456789abcdef"[Math.floor(next() * 16)]
      return out
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Generator
// ---------------------------------------------------------------------------------------------

export interface GenerateOptions {
  readonly scenario?: ScenarioId
  /** Epoch milliseconds of "now": entries cover `[now - minutes, now)`. */
  readonly now: number
  readonly minutes?: number
  readonly seed?: number
  /** Background lines per minute (default 10). */
  readonly noisePerMinute?: number
}

type Level = DemoLogEntry["level"]
type Extra = Record<string, string | number | boolean | null>

interface Emitter {
  readonly rng: Rng
  readonly pod: (service: Service) => string
  readonly hostOf: (pod: string) => string
  readonly emit: (
    at: number,
    topic: LogTopic,
    level: Level,
    service: Service,
    message: string,
    extra?: Extra,
    pod?: string
  ) => void
}

const hostByPod = (pod: string): string => {
  let h = 0
  for (let i = 0; i < pod.length; i++) h = (h * 31 + pod.charCodeAt(i)) >>> 0
  return NODE_HOSTS[h % NODE_HOSTS.length]!
}

const noiseLine = (e: Emitter, at: number): void => {
  const { rng } = e
  const traceId = rng.hex(32)
  const roll = rng.int(0, 99)
  if (roll < 30) {
    const path = rng.pick(["/api/products", "/api/products/search", "/api/cart", "/api/recommendations"])
    const service: Service = path.startsWith("/api/cart")
      ? "cart-service"
      : path === "/api/products/search"
        ? "search-service"
        : "catalog-service"
    const ms = rng.int(8, 120)
    e.emit(at, "application", "INFO", service, `GET ${path} 200 in ${ms}ms trace_id=${traceId}`, {
      response_time: ms,
      status_code: 200,
      trace_id: traceId,
      client_ip: rng.pick(CLIENT_IPS)
    })
  } else if (roll < 40) {
    const ms = rng.int(2, 9)
    e.emit(
      at,
      "application",
      "INFO",
      "api-gateway",
      `upstream ok route=${rng.pick(["catalog", "cart", "search"])} from ${rng.pick(CLIENT_IPS)} in ${ms}ms`,
      { response_time: ms, trace_id: traceId }
    )
  } else if (roll < 48) {
    e.emit(
      at,
      "application",
      "DEBUG",
      rng.pick(NOISE_SERVICES),
      `health probe /readyz ok (${rng.int(1, 4)}ms)`,
      { response_time: rng.int(1, 4) }
    )
  } else if (roll < 54) {
    e.emit(
      at,
      "application",
      "INFO",
      "inventory-service",
      `reserved stock sku=SKU-${rng.pick(["KBD-01", "MSE-02", "MON-27", "SSD-1T"])} qty=${rng.int(1, 3)} warehouse=eu-${rng.int(1, 3)}`,
      { trace_id: traceId }
    )
  } else if (roll < 58) {
    e.emit(
      at,
      "application",
      "INFO",
      "api-gateway",
      `user session refreshed Authorization: Bearer ${DEMO_JWTS[0]} client=${rng.pick(CLIENT_IPS)}`,
      { trace_id: traceId }
    )
  } else if (roll < 61) {
    e.emit(
      at,
      "application",
      "INFO",
      "payment-gateway",
      `provider call ok provider=card-processor ${rng.chance(0.5) ? `api_key=${DEMO_API_KEYS[0]}` : `Authorization: Bearer ${DEMO_BEARER_TOKENS[0]}`} latency=${rng.int(120, 380)}ms`,
      { response_time: rng.int(120, 380), trace_id: traceId }
    )
  } else if (roll < 64) {
    e.emit(
      at,
      "application",
      "DEBUG",
      "order-service",
      `s3 export client configured AWS_ACCESS_KEY_ID=${DEMO_AWS_ACCESS_KEYS[0]} aws_secret_access_key=${DEMO_AWS_SECRET_KEYS[0]} region=eu-west-1`
    )
  } else if (roll < 74) {
    const service = rng.pick(NOISE_SERVICES)
    e.emit(
      at,
      "system_metrics",
      "INFO",
      service,
      `cpu_usage_percent=${rng.int(8, 45)} memory_working_set_mb=${rng.int(300, 700)} memory_limit_mb=1024`,
      { cpu_usage_percent: rng.int(8, 45) }
    )
  } else if (roll < 80) {
    e.emit(
      at,
      "system_metrics",
      "INFO",
      "checkout-service",
      `hikaricp_connections_active=${rng.int(2, 7)} hikaricp_connections_max=20 hikaricp_connections_pending=0`
    )
  } else if (roll < 84) {
    e.emit(
      at,
      "system_metrics",
      "INFO",
      "cart-service",
      `redis_latency_p99_ms=${rng.int(1, 4)} redis_connected_clients=${rng.int(40, 60)}`
    )
  } else if (roll < 88) {
    const ms = rng.int(180, 900)
    e.emit(
      at,
      "database_slow_query",
      "INFO",
      "catalog-service",
      `# Query_time: 0.${String(ms).padStart(3, "0")} Lock_time: 0.000 Rows_sent: 24 Rows_examined: 480 SELECT id, name, price_cents FROM products WHERE category_id = ${rng.int(1, 40)} ORDER BY rank LIMIT 24`,
      { query_time_ms: ms, db_host: DB_HOST }
    )
  } else if (roll < 92) {
    e.emit(
      at,
      "system_events",
      "INFO",
      rng.pick(NOISE_SERVICES),
      `Successfully pulled image; readiness probe passed on node ${rng.pick(NODE_HOSTS)}`
    )
  } else if (roll < 95) {
    e.emit(
      at,
      "application",
      "INFO",
      "search-service",
      `slow suggestion backend response ${rng.int(300, 600)}ms, serving cached suggestions`,
      { response_time: rng.int(300, 600), trace_id: traceId }
    )
  } else {
    const pod = e.pod(rng.pick(NOISE_SERVICES))
    e.emit(
      at,
      "system_events",
      "INFO",
      "api-gateway",
      `Scheduled pod ${pod} on ${hostByPod(pod)} (${rng.pick(["10.42.3.17", "10.42.7.201", "10.42.9.66"])})`
    )
  }
}

/** Emits the incident lines of one minute `m` of the incident (0-based from its start). */
const incidentLines = (scenario: ScenarioId, e: Emitter, start: number, m: number): void => {
  const { rng } = e
  const at = (second: number) => start + m * 60_000 + second * 1000 + rng.int(0, 999)
  switch (scenario) {
    case "calm":
      return
    case "db-pool-exhaustion": {
      const pending = Math.min(80, 5 + m * 4)
      e.emit(
        at(1),
        "system_metrics",
        "WARN",
        "checkout-service",
        `hikaricp_connections_active=20 hikaricp_connections_max=20 hikaricp_connections_pending=${pending}`,
        { hikaricp_connections_pending: pending }
      )
      e.emit(
        at(3),
        "application",
        "WARN",
        "checkout-service",
        `HikariPool-1 - Pool stats (total=20, active=20, idle=0, waiting=${pending})`
      )
      const errors = 3 + rng.int(0, 3)
      for (let i = 0; i < errors; i++) {
        const traceId = rng.hex(32)
        const pod = e.pod("checkout-service")
        e.emit(
          at(5 + i * 9),
          "application",
          "ERROR",
          "checkout-service",
          `HikariPool-1 - Connection is not available, request timed out after 30000ms. (pod=${pod}, db=${DB_HOST}:3306)`,
          { trace_id: traceId },
          pod
        )
        e.emit(
          at(6 + i * 9),
          "application",
          "ERROR",
          "checkout-service",
          `POST /api/checkout 500 Internal Server Error trace_id=${traceId} client=${rng.pick(CLIENT_IPS)}: java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30000ms`,
          { response_time: 30000 + rng.int(5, 80), status_code: 500, trace_id: traceId },
          pod
        )
      }
      if (m % 3 === 0) {
        e.emit(
          at(40),
          "application",
          "ERROR",
          "order-service",
          `Failed to obtain JDBC Connection for jdbc:mysql://${DB_HOST}:3306/shop?user=checkout_app&password=${DEMO_PASSWORDS[0]} after 30000ms`
        )
        e.emit(
          at(44),
          "application",
          "WARN",
          "checkout-service",
          `Connection leak detection triggered for connection to ${DB_IP}:3306 on thread http-nio-8080-exec-${rng.int(1, 200)}, stack trace follows`
        )
      }
      if (m % 4 === 1) {
        e.emit(
          at(50),
          "database_slow_query",
          "WARN",
          "checkout-service",
          `# Query_time: ${rng.int(4, 7)}.${rng.int(100, 999)} Lock_time: 0.002 Rows_sent: 1 Rows_examined: 1 SELECT id, status FROM orders WHERE id = ${100000 + rng.int(45, 60)} FOR UPDATE`,
          { db_host: DB_HOST }
        )
      }
      return
    }
    case "oom-killed": {
      const mem = Math.min(1024, 620 + m * 45)
      e.emit(
        at(2),
        "system_metrics",
        mem > 900 ? "WARN" : "INFO",
        "checkout-service",
        `container_memory_working_set_mb=${mem} memory_limit_mb=1024 jvm_heap_used_mb=${Math.min(768, mem - 200)}`,
        { memory_working_set_mb: mem }
      )
      if (m % 3 === 2) {
        const pod = e.pod("checkout-service")
        e.emit(
          at(10),
          "application",
          "ERROR",
          "checkout-service",
          `java.lang.OutOfMemoryError: Java heap space at com.shop.checkout.PricingCache.load(PricingCache.java:${rng.int(80, 140)}) pod=${pod}`,
          {},
          pod
        )
        e.emit(
          at(12),
          "system_events",
          "WARN",
          "checkout-service",
          `Container checkout-service in pod ${pod} was OOMKilled (exit code 137) on node ${hostByPod(pod)}`,
          {},
          pod
        )
        e.emit(
          at(14),
          "system_events",
          "WARN",
          "checkout-service",
          `Back-off restarting failed container checkout-service in pod ${pod}, CrashLoopBackOff (restart count ${1 + Math.floor(m / 3)})`,
          {},
          pod
        )
        e.emit(
          at(20),
          "application",
          "ERROR",
          "api-gateway",
          `upstream checkout-service ${rng.pick(["10.42.3.17", "10.42.7.201"])}:8080 reset before headers, POST /api/checkout 502`,
          { status_code: 502 }
        )
      }
      return
    }
    case "slow-query-orders": {
      const userId = 4000 + rng.int(0, 999)
      const qt = rng.int(6, 14)
      e.emit(
        at(4),
        "database_slow_query",
        "WARN",
        "order-service",
        `# Query_time: ${qt}.${rng.int(100, 999)} Lock_time: ${rng.int(3, 9)}.${rng.int(100, 999)} Rows_sent: ${rng.int(1, 12)} Rows_examined: ${2_000_000 + rng.int(0, 900_000)} SELECT id, status, total_cents FROM orders WHERE user_id = ${userId} AND status = 'PENDING' ORDER BY created_at DESC`,
        { query_time_ms: qt * 1000, db_host: DB_HOST }
      )
      if (m % 2 === 0) {
        e.emit(
          at(8),
          "database_slow_query",
          "WARN",
          "order-batch",
          `# Query_time: ${rng.int(20, 40)}.${rng.int(100, 999)} Lock_time: 0.001 Rows_sent: 0 Rows_examined: ${1_500_000 + rng.int(0, 400_000)} UPDATE orders SET status = 'EXPIRED' WHERE status = 'PENDING' AND created_at < '2026-03-14 00:00:00'`,
          { db_host: DB_HOST }
        )
      }
      e.emit(
        at(15),
        "application",
        "ERROR",
        "order-service",
        `Lock wait timeout exceeded; try restarting transaction (MySQL error 1205) on orders, db=${DB_IP}:3306 user=orders_rw password=${DEMO_PASSWORDS[2]}`
      )
      e.emit(
        at(22),
        "application",
        "ERROR",
        "checkout-service",
        `call to order-service timed out after 5000ms: GET /internal/orders?user_id=${userId}&status=PENDING`,
        { response_time: 5000, status_code: 504, trace_id: rng.hex(32) }
      )
      return
    }
    case "redis-timeouts": {
      const p99 = rng.int(180, 900)
      e.emit(
        at(1),
        "system_metrics",
        "WARN",
        "cart-service",
        `redis_latency_p99_ms=${p99} redis_connected_clients=${rng.int(900, 1400)} redis_evicted_keys=${rng.int(100, 900)}`,
        { redis_latency_p99_ms: p99 }
      )
      const n = 2 + rng.int(0, 2)
      for (let i = 0; i < n; i++) {
        const traceId = rng.hex(32)
        e.emit(
          at(5 + i * 12),
          "application",
          "ERROR",
          "cart-service",
          `io.lettuce.core.RedisCommandTimeoutException: Command timed out after 2 second(s) on ${REDIS_HOST}:6379 (HGETALL cart:user:${4000 + rng.int(0, 999)})`,
          { trace_id: traceId, response_time: 2000 + rng.int(1, 50) }
        )
      }
      e.emit(
        at(30),
        "application",
        "ERROR",
        "checkout-service",
        `idempotency key read failed: redis: i/o timeout dial tcp ${REDIS_IP}:6379 (redis://:${DEMO_PASSWORDS[1]}@${REDIS_HOST}:6379/0), POST /api/checkout 500`,
        { status_code: 500, trace_id: rng.hex(32) }
      )
      if (m % 5 === 0) {
        e.emit(
          at(45),
          "system_events",
          "WARN",
          "cart-service",
          `redis slowlog: KEYS cart:* took 1840ms on ${REDIS_HOST} (${REDIS_IP})`
        )
      }
      return
    }
  }
}

/**
 * Generates the demo world: background noise over `[now - minutes, now)` plus the incident
 * lines of `scenario` in its last 25 minutes. Deterministic for a given `(scenario, now, seed)`.
 * Entries are sorted by timestamp.
 */
export const generateDemoLogs = (options: GenerateOptions): DemoLogEntry[] => {
  const scenario = options.scenario ?? DEFAULT_SCENARIO
  const minutes = options.minutes ?? 60
  const noisePerMinute = options.noisePerMinute ?? 10
  const seed = options.seed ?? 20260315
  const now = options.now
  const start = now - minutes * 60_000
  const rng = makeRng(seed ^ scenarioSalt(scenario))
  const entries: Array<{ at: number; entry: DemoLogEntry }> = []
  const emitter: Emitter = {
    rng,
    pod: (service) => `${service}-${rng.pick(POD_SUFFIXES[service])}`,
    hostOf: hostByPod,
    emit: (at, topic, level, service, message, extra = {}, pod) => {
      const clamped = Math.min(now - 1, Math.max(start, Math.floor(at)))
      const p = pod ?? emitter.pod(service)
      entries.push({
        at: clamped,
        entry: {
          timestamp: new Date(clamped).toISOString(),
          level,
          service,
          message,
          topic,
          pod: p,
          host: hostByPod(p),
          ...extra
        }
      })
    }
  }
  for (let m = 0; m < minutes; m++) {
    for (let i = 0; i < noisePerMinute; i++) noiseLine(emitter, start + m * 60_000 + rng.int(0, 59_999))
  }
  const incidentMinutes = Math.min(25, minutes)
  const incidentStart = now - incidentMinutes * 60_000
  for (let m = 0; m < incidentMinutes; m++) incidentLines(scenario, emitter, incidentStart, m)
  // Stable sort by time; ties keep generation order.
  return entries
    .map((e, i) => ({ ...e, i }))
    .sort((a, b) => a.at - b.at || a.i - b.i)
    .map((e) => e.entry)
}

const scenarioSalt = (scenario: ScenarioId): number => {
  let h = 2166136261
  for (let i = 0; i < scenario.length; i++) h = Math.imul(h ^ scenario.charCodeAt(i), 16777619) >>> 0
  return h
}

/** NDJSON text of the entries (one JSON object per line, trailing newline). */
export const toNdjson = (entries: ReadonlyArray<DemoLogEntry>): string =>
  entries.map((e) => JSON.stringify(e)).join("\n") + (entries.length > 0 ? "\n" : "")
