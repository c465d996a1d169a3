#!/usr/bin/env node
// Synthetic held-out corpus for the log pattern grouping: 12 made-up systems, Loghub-style CSVs.
// Labeling convention (Loghub-style, applied the same way in every system):
//  - Variables (<*>): numbers, durations, sizes, ids (hex, UUID, request/queue/payment ids), IP
//    addresses and ports, host/user/file/pod/topic/table names, paths, URLs, timestamps, quoted or
//    free-text reasons and SQL/commands/user agents (those may span several tokens), HTTP status
//    codes, and closed sets that do not change what happened (currency, region, grpc method name).
//  - Template constants: words that change the meaning of the event, even from a small closed set:
//    HTTP method (GET vs POST), states (state=open vs closed), outcomes (sent/deferred/bounced,
//    succeeded/failed), probe kinds, checkpoint reasons, firewall actions, protocol (TCP/UDP).
//  - A slot written `@{type}` below is a variable; everything else is template text.
// Usage: node scripts/eval/synthetic/generate.mjs [--seed N] [--out DIR]
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"

// ---------------------------------------------------------------- arguments, PRNG, helpers
const argv = process.argv.slice(2)
const opt = (name, def) => {
  const i = argv.indexOf(name)
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : def
}
const SEED = Number(opt("--seed", "1"))
const OUT = opt("--out", "/tmp/synthetic-logs")
// --set dated: the second, smaller held-out set (dates written with month and weekday names).
const SET = opt("--set", "main")
const LINES = 2000
if (!Number.isInteger(SEED)) fail("--seed must be an integer")
if (SET !== "main" && SET !== "dated") fail("--set must be main or dated")

function mulberry32(a) {
  return () => {
    a |= 0
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
let rnd = mulberry32(SEED)
const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1))
const pick = (arr) => arr[Math.floor(rnd() * arr.length)]
// Skewed pick: early elements much more frequent (values in real logs repeat unevenly).
const zpick = (arr) => arr[Math.floor(arr.length * rnd() ** 2.2)]
const logu = (lo, hi) => Math.exp(Math.log(lo) + rnd() * (Math.log(hi) - Math.log(lo)))
const lint = (lo, hi) => String(Math.floor(logu(lo, hi + 1)))
const fl = (lo, hi, d = 2) => logu(lo, hi).toFixed(d)
const chars = (alphabet, n) =>
  Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join("")
const HEX = "0123456789abcdef"
const hex = (n) => chars(HEX, n)
const ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"
const B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
const K8S = "bcdfghjklmnpqrstvwxz2456789"
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-${pick("89ab")}${hex(3)}-${hex(12)}`
const pad = (n, w = 2) => String(n).padStart(w, "0")
const MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

// Per-system pools: a pool of n values made by gen, picked with skew (created lazily per system).
let pools = new Map()
const pool = (key, n, gen) => {
  if (!pools.has(key)) pools.set(key, Array.from({ length: n }, gen))
  return zpick(pools.get(key))
}

const USERS = [
  "alice",
  "bob",
  "carol",
  "dave",
  "erin",
  "frank",
  "grace",
  "heidi",
  "ivan",
  "judy",
  "mallory",
  "niaj",
  "olivia",
  "peggy",
  "rupert",
  "sybil",
  "trent",
  "victor",
  "walter",
  "xavier",
  "yolanda",
  "zoe",
  "admin",
  "deploy",
  "jenkins",
  "postgres",
  "www-data",
  "backup",
  "svc-report",
  "ubuntu"
]
const DOMAINS = [
  "example.com",
  "corp.internal",
  "acme.io",
  "mail.example.org",
  "svc.cluster.local",
  "eu-west-1.compute.internal"
]
const WORDS = [
  "orders",
  "users",
  "payments",
  "inventory",
  "sessions",
  "carts",
  "events",
  "audit",
  "billing",
  "products",
  "invoices",
  "shipments",
  "accounts",
  "tokens",
  "reports",
  "metrics",
  "notifications"
]

// ---------------------------------------------------------------- slot types
// Every slot type yields a non-empty string; types in MULTI may contain spaces (several tokens).
const MULTI = new Set([
  "ua",
  "sql",
  "reason",
  "cmd",
  "desc",
  "reply",
  "cmdstats",
  "pathsp",
  "errtext",
  "json",
  "title",
  "bank",
  "appname",
  "volumes",
  "sasl",
  "clf",
  "sysdate",
  "probeout",
  "cipher",
  "dreason",
  "scmd",
  "step",
  "mreason",
  "preason",
  "gwjson"
])
const T = {
  int: (a) => {
    if (!a) return lint(1, 100000)
    const [lo, hi] = a.split("-").map(Number)
    return String(int(lo, hi))
  },
  float: (a) => fl(0.01, 500, a ? Number(a) : 2),
  pct: () => (rnd() * 100).toFixed(1),
  ms: () => (rnd() < 0.6 ? `${lint(1, 3000)}ms` : `${fl(0.1, 900, 1)}ms`),
  sec: () => `${fl(0.1, 120, 1)}s`,
  dur: () => {
    const r = rnd()
    if (r < 0.15) return `${lint(20, 999)}µs`
    if (r < 0.6) return `${fl(0.5, 999, 3)}ms`
    if (r < 0.9) return `${fl(1, 59, 3)}s`
    return `${int(1, 9)}m${fl(1, 59, 1)}s`
  },
  size: () => {
    const r = rnd()
    if (r < 0.3) return `${lint(1, 1023)}KB`
    if (r < 0.8) return `${fl(1, 999, 1)}MB`
    return `${fl(1, 40, 2)}GB`
  },
  pid: () => pool("pid", 25, () => lint(300, 4194000)),
  port: () => String(int(1024, 65535)),
  ip: () =>
    pool("ip", 60, () =>
      rnd() < 0.6
        ? `10.${int(0, 255)}.${int(0, 255)}.${int(1, 254)}`
        : `${int(11, 223)}.${int(0, 255)}.${int(0, 255)}.${int(1, 254)}`
    ),
  ipport: () =>
    `${T.ip()}:${rnd() < 0.7 ? int(32768, 60999) : pick(["80", "443", "8080", "5432", "6379", "9092"])}`,
  ipv6: () =>
    pool("ipv6", 15, () =>
      rnd() < 0.5 ? `fe80::${hex(4)}:${hex(4)}:${hex(4)}:${hex(4)}` : `2001:db8:${hex(4)}::${hex(int(1, 4))}`
    ),
  ipv6port: () => `[${T.ipv6()}]:${int(1024, 65535)}`,
  anyip: () => (rnd() < 0.8 ? T.ip() : T.ipv6()),
  host: () =>
    pool(
      "host",
      30,
      () =>
        `${pick(["web", "api", "db", "node", "worker", "mx", "cache", "edge", "ip"])}-${rnd() < 0.5 ? int(1, 40) : `${int(10, 99)}-${int(0, 255)}-${int(0, 255)}`}.${pick(DOMAINS)}`
    ),
  hostshort: () =>
    pool(
      "hostshort",
      12,
      () => `${pick(["ip", "node", "worker", "gke-prod-pool"])}-${int(10, 250)}-${chars(K8S, 4)}`
    ),
  user: () => zpick(USERS),
  email: () =>
    pool(
      "email",
      40,
      () =>
        `${pick(USERS)}${rnd() < 0.3 ? int(1, 99) : ""}@${pick(["example.com", "gmail.com", "acme.io", "outlook.com", "corp.internal"])}`
    ),
  path: () =>
    pool("path", 40, () => {
      const top = pick([
        "/var/lib/app",
        "/etc",
        "/srv/www",
        "/home/" + pick(USERS),
        "/opt/app/data",
        "/tmp",
        "/var/log"
      ])
      return `${top}/${pick(WORDS)}${rnd() < 0.5 ? "/" + pick(WORDS) : ""}/${pick(["index", "config", "data", "part", "v2", "latest"])}${pick([".json", ".yaml", ".log", ".db", ".html", ".conf", "-" + int(1, 999) + ".bin"])}`
    }),
  pathsp: () =>
    pool("pathsp", 20, () => {
      const base = `/home/${pick(USERS)}/${pick(["Documents", "My Documents", "Shared Files", "Downloads", "projects"])}`
      return `${base}/${pick(["report", "Q3 report", "notes", "budget final", "scan"])}${int(1, 99)}.${pick(["pdf", "xlsx", "txt"])}`
    }),
  upath: () => {
    const base = pool("upath", 40, () => {
      const segs = [
        "/api/v1/" + pick(WORDS),
        "/api/v2/" + pick(WORDS),
        "/static/js",
        "/assets/img",
        "/health",
        "/login",
        "/graphql",
        "/v1/" + pick(WORDS)
      ]
      let p = pick(segs)
      if (rnd() < 0.5) p += `/${rnd() < 0.5 ? lint(1, 999999) : hex(12)}`
      if (p.startsWith("/static") || p.startsWith("/assets"))
        p += `/${pick(["main", "vendor", "app", "logo"])}.${hex(8)}.${pick(["js", "css", "png"])}`
      return p
    })
    if (rnd() < 0.35)
      return `${base}?${pick(["page", "limit", "q", "id", "sort", "after"])}=${pick([lint(1, 500), pick(WORDS), hex(6)])}${rnd() < 0.4 ? `&${pick(["expand", "lang", "fields"])}=${pick(["items", "en", "id,name", "true"])}` : ""}`
    return base
  },
  url: () => `https://${T.host()}${T.upath()}`,
  hex: (a) => hex(a ? Number(a) : 8),
  uuid,
  reqid: () => (rnd() < 0.5 ? `req-${chars(B62, 16)}` : `${hex(8)}${hex(8)}`),
  ts: () =>
    `2024-${pad(int(1, 12))}-${pad(int(1, 28))}T${pad(int(0, 23))}:${pad(int(0, 59))}:${pad(int(0, 59))}.${pad(int(0, 999), 3)}Z`,
  clf: () =>
    `${pad(int(1, 28))}/${pick(MON)}/2024:${pad(int(0, 23))}:${pad(int(0, 59))}:${pad(int(0, 59))} +0000`,
  sysdate: () => `${pick(MON)} ${int(1, 28)} ${pad(int(0, 23))}:${pad(int(0, 59))}:${pad(int(0, 59))}`,
  date: () => `2024-${pad(int(1, 12))}-${pad(int(1, 28))}`,
  epochms: () => String(1709000000000 + int(0, 9999999999)),
  semver: () => `${int(0, 4)}.${int(0, 30)}.${int(0, 20)}`,
  status: () =>
    pick([
      "200",
      "200",
      "200",
      "200",
      "201",
      "204",
      "301",
      "302",
      "304",
      "400",
      "401",
      "403",
      "404",
      "404",
      "429",
      "500",
      "502",
      "503"
    ]),
  mac: () => pool("mac", 10, () => Array.from({ length: 6 }, () => hex(2)).join(":")),
  word: () => zpick(WORDS),
  // kubernetes
  ns: () => zpick(["default", "kube-system", "payments", "monitoring", "ingress-nginx", "shop", "data"]),
  pod: () =>
    pool(
      "pod",
      25,
      () =>
        `${pick(["web", "api-gateway", "checkout", "cart-service", "coredns", "prometheus-server", "fluent-bit", "orders-worker", "redis-cache"])}-${chars(K8S, pick([9, 10]))}-${chars(K8S, 5)}`
    ),
  container: () =>
    zpick(["app", "nginx", "sidecar", "istio-proxy", "worker", "coredns", "fluent-bit", "migrate"]),
  image: () =>
    pool(
      "image",
      12,
      () =>
        `${pick(["docker.io/library", "registry.example.com/team", "ghcr.io/acme", "quay.io/prometheus"])}/${pick(["nginx", "node", "api", "worker", "postgres", "redis", "golang", "prometheus"])}:${pick(["latest", "1.25", int(1, 20) + "." + int(0, 9) + "." + int(0, 9), "sha-" + hex(7)])}`
    ),
  vol: () =>
    zpick([
      "kube-api-access-" + chars(K8S, 5),
      "config-volume",
      "data",
      "tmp",
      "secrets",
      "cache-dir",
      "tls-certs"
    ]),
  node: () => pool("node", 8, () => `ip-10-${int(0, 255)}-${int(0, 255)}-${int(1, 254)}.ec2.internal`),
  // misc
  qid: () => chars("0123456789ABCDEF", pick([10, 11, 12])),
  topic: () =>
    pool(
      "topic",
      14,
      () =>
        `${pick(["orders", "payments", "clickstream", "audit-log", "user-events", "inventory", "metrics"])}${pick(["", ".v1", "-dlq", ".compacted", "-retry"])}`
    ),
  group: () =>
    pool(
      "group",
      8,
      () =>
        `${pick(["billing", "search-indexer", "analytics", "fraud", "email-sender", "etl"])}-${pick(["consumer", "group", "cg"])}`
    ),
  token: () => chars(B62, 8),
  table: () => zpick(WORDS),
  db: () => zpick(["app", "shop_prod", "analytics", "postgres", "billing", "auth"]),
  amount: () => logu(0.5, 5000).toFixed(2),
  cur: () => zpick(["USD", "EUR", "GBP", "JPY", "CAD", "AUD", "CHF"]),
  payid: () => `pay_${chars(B62, 14)}`,
  last4: () => String(int(0, 9999)).padStart(4, "0"),
  // free text (multi-token) defaults; systems override with their own pools
  reason: () => pick(["timeout", "connection reset by peer", "EOF", "broken pipe", "no route to host"]),
  errtext: () =>
    pick([
      "context deadline exceeded",
      "EOF",
      "connection refused",
      "i/o timeout",
      "503 Service Unavailable"
    ]),
  title: () =>
    pick([
      "Your order has shipped",
      "Sale!",
      "New message from " + pick(USERS),
      "Reminder",
      "Payment received"
    ]),
  json: () => {
    const j = {
      amount: int(100, 99999),
      currency: pick(["usd", "eur", "gbp"]),
      source: `tok_${chars(B62, 12)}`
    }
    if (rnd() < 0.4) j.metadata = { order_id: `ord_${chars(B62, 10)}` }
    const s = JSON.stringify(j)
    return rnd() < 0.35 ? s.replace(/,"/g, ', "').replace(/":/g, '": ') : s
  },
  bank: () =>
    pick([
      "Chase",
      "Bank of America",
      "HSBC",
      "Barclays",
      "Wells Fargo",
      "BNP Paribas",
      "Monzo",
      "Capital One"
    ])
}

// ---------------------------------------------------------------- the systems
const UNITS = [
  ["apt-daily.service", "Daily apt download activities"],
  ["logrotate.service", "Rotate log files"],
  ["man-db.service", "Daily man-db regeneration"],
  ["fstrim.service", "Discard unused blocks on filesystems"],
  ["certbot.service", "Certbot"],
  ["backup.service", "Nightly backup"],
  ["node-exporter.service", "Prometheus Node Exporter"],
  ["docker.service", "Docker Application Container Engine"],
  ["snapd.service", "Snap Daemon"]
]
let lastUnit = 0
// Each template: [weight, template]; weight "=n" means exactly n lines.
const SYSTEMS = {
  WebServer: {
    vars: {
      user: () => (rnd() < 0.85 ? "-" : zpick(USERS)),
      ua: () =>
        zpick([
          "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.0.0 Safari/537.36",
          "curl/8.4.0",
          "kube-probe/1.28",
          "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1",
          "Go-http-client/1.1",
          "python-requests/2.31.0",
          "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
          "-",
          "Mozilla/5.0 (X11; Linux x86_64; rv:122.0) Gecko/20100101 Firefox/122.0",
          "Prometheus/2.49.1"
        ]),
      ref: () => (rnd() < 0.6 ? "-" : T.url()),
      wpid: () => pool("wpid", 6, () => lint(800, 60000)),
      cid: () => lint(1, 9999999),
      zone: () => pick(["api_limit", "login", "perip"]),
      upstream: () => T.ipport() + T.upath()
    },
    templates: [
      [700, `@{ip} - @{user} [@{clf}] "GET @{upath} HTTP/1.1" @{status} @{int} "@{ref}" "@{ua}"`],
      [160, `@{ip} - @{user} [@{clf}] "POST @{upath} HTTP/1.1" @{status} @{int} "@{ref}" "@{ua}"`],
      [40, `@{ip} - @{user} [@{clf}] "PUT @{upath} HTTP/1.1" @{status} @{int} "@{ref}" "@{ua}"`],
      [25, `@{ip} - @{user} [@{clf}] "DELETE @{upath} HTTP/1.1" @{status} @{int} "@{ref}" "@{ua}"`],
      [30, `@{ip} - @{user} [@{clf}] "HEAD @{upath} HTTP/1.1" @{status} 0 "-" "@{ua}"`],
      [20, `@{ip} - @{user} [@{clf}] "GET @{upath} HTTP/2.0" @{status} @{int} "@{ref}" "@{ua}"`],
      [8, `@{ip} - - [@{clf}] "\\x16\\x03\\x01\\x02\\x00\\x01\\x00\\x01\\xFC\\x03\\x03" 400 157 "-" "-"`],
      [
        60,
        `@{wpid}#@{int:0-3}: *@{cid} open() "@{path}" failed (2: No such file or directory), client: @{ip}, server: @{host}, request: "GET @{upath} HTTP/1.1", host: "@{host}"`
      ],
      [
        35,
        `@{wpid}#@{int:0-3}: *@{cid} upstream timed out (110: Connection timed out) while reading response header from upstream, client: @{ip}, server: @{host}, request: "GET @{upath} HTTP/1.1", upstream: "http://@{upstream}", host: "@{host}"`
      ],
      [
        20,
        `@{wpid}#@{int:0-3}: *@{cid} connect() failed (111: Connection refused) while connecting to upstream, client: @{ip}, server: @{host}, request: "GET @{upath} HTTP/1.1", upstream: "http://@{upstream}", host: "@{host}"`
      ],
      [
        12,
        `@{wpid}#@{int:0-3}: *@{cid} upstream prematurely closed connection while reading response header from upstream, client: @{ip}, server: @{host}, request: "POST @{upath} HTTP/1.1", upstream: "http://@{upstream}", host: "@{host}"`
      ],
      [
        15,
        `@{wpid}#@{int:0-3}: *@{cid} limiting requests, excess: @{float:3} by zone "@{zone}", client: @{ip}, server: @{host}, request: "GET @{upath} HTTP/1.1", host: "@{host}"`
      ],
      [
        6,
        `@{wpid}#@{int:0-3}: *@{cid} client intended to send too large body: @{int} bytes, client: @{ip}, server: @{host}, request: "POST @{upath} HTTP/1.1", host: "@{host}"`
      ],
      [
        10,
        `@{wpid}#@{int:0-3}: *@{cid} SSL_do_handshake() failed (SSL: error:0A00010B:SSL routines::wrong version number) while SSL handshaking, client: @{ip}, server: 0.0.0.0:443`
      ],
      [8, `@{wpid}#@{int:0-3}: *@{cid} client @{ip} closed keepalive connection`],
      [
        5,
        `@{wpid}#@{int:0-3}: *@{cid} a client request body is buffered to a temporary file /var/cache/nginx/client_temp/@{int}, client: @{ip}, server: @{host}, request: "POST @{upath} HTTP/1.1", host: "@{host}"`
      ],
      [4, `@{wpid}#@{int:0-3}: start worker process @{pid}`],
      [3, `@{wpid}#@{int:0-3}: worker process @{pid} exited with code 0`],
      ["=2", `@{wpid}#@{int:0-3}: signal process started`],
      ["=2", `@{wpid}#@{int:0-3}: using the "epoll" event method`],
      ["=1", `@{wpid}#@{int:0-3}: gracefully shutting down`],
      ["=1", `@{wpid}#@{int:0-3}: exiting`],
      ["=1", `@{wpid}#@{int:0-3}: exit`],
      ["=2", `@{wpid}#@{int:0-3}: nginx/1.24.0`],
      ["=1", `@{wpid}#@{int:0-3}: OS: Linux 6.1.0-18-amd64`],
      ["=3", `@{wpid}#@{int:0-3}: getrlimit(RLIMIT_NOFILE): 1048576:1048576`]
    ]
  },

  Postgres: {
    vars: {
      sql: () =>
        zpick([
          "SELECT * FROM orders WHERE id = " + lint(1, 99999),
          "SELECT 1",
          "UPDATE accounts SET balance = balance - " + int(1, 500) + " WHERE id = " + int(1, 9999),
          "INSERT INTO events (kind, payload) VALUES ($1, $2)",
          "COMMIT",
          "BEGIN",
          "select count(*) from sessions where expires_at < now()",
          "DELETE FROM carts WHERE updated_at < now() - interval '7 days'",
          "SELECT u.id, u.email FROM users u JOIN orders o ON o.user_id = u.id WHERE o.status = 'open' LIMIT " +
            int(10, 500)
        ]),
      appname: () =>
        zpick(["psql", "pgAdmin 4 - DB:" + T.db(), "api", "PostgreSQL JDBC Driver", "worker", "metabase"]),
      col: () => pick(["id", "email", "order_id", "sku"]),
      cons: () => `${T.table()}_${pick(["pkey", "email_key", "sku_key", "order_id_idx"])}`,
      stmt: () => (rnd() < 0.5 ? "<unnamed>" : `S_${int(1, 40)}`),
      hms: () => `${int(0, 3)}:${pad(int(0, 59))}:${pad(int(0, 59))}.${pad(int(0, 999), 3)}`,
      sqlword: () => pick(["SELEC", "FORM", "WHER", ")", "ORDER", "LIMIT", '"users"', "$1"])
    },
    templates: [
      [420, `duration: @{float:3} ms statement: @{sql}`],
      [260, `connection received: host=@{ip} port=@{port}`],
      [230, `connection authorized: user=@{user} database=@{db} application_name=@{appname}`],
      [
        90,
        `connection authorized: user=@{user} database=@{db} SSL enabled (protocol=TLSv1.3, cipher=TLS_AES_256_GCM_SHA384, bits=256)`
      ],
      [250, `disconnection: session time: @{hms} user=@{user} database=@{db} host=@{ip} port=@{port}`],
      [160, `duration: @{float:3} ms execute @{stmt}: @{sql}`],
      [40, `duration: @{float:3} ms parse @{stmt}: @{sql}`],
      [40, `duration: @{float:3} ms bind @{stmt}: @{sql}`],
      [35, `checkpoint starting: time`],
      [6, `checkpoint starting: wal`],
      [
        40,
        `checkpoint complete: wrote @{int} buffers (@{pct}%); @{int:0-9} WAL file(s) added, @{int:0-9} removed, @{int:0-20} recycled; write=@{float:3} s, sync=@{float:3} s, total=@{float:3} s; sync files=@{int:0-300}, longest=@{float:3} s, average=@{float:3} s; distance=@{int} kB, estimate=@{int} kB`
      ],
      [60, `automatic vacuum of table "@{db}.public.@{table}": index scans: @{int:0-3}`],
      [
        45,
        `automatic analyze of table "@{db}.public.@{table}" system usage: CPU: user: @{float} s, system: @{float} s, elapsed: @{float} s`
      ],
      [35, `duplicate key value violates unique constraint "@{cons}"`],
      [35, `Key (@{col})=(@{int}) already exists.`],
      [25, `relation "@{table}" does not exist`],
      [15, `syntax error at or near "@{sqlword}"`],
      [30, `statement: @{sql}`],
      [22, `could not receive data from client: Connection reset by peer`],
      [12, `unexpected EOF on client connection with an open transaction`],
      [14, `password authentication failed for user "@{user}"`],
      [10, `Connection matched pg_hba.conf line @{int:80-120}: "host all all 0.0.0.0/0 scram-sha-256"`],
      [8, `no pg_hba.conf entry for host "@{ip}", user "@{user}", database "@{db}", SSL off`],
      [5, `no pg_hba.conf entry for host "@{ip}", user "@{user}", database "@{db}", SSL on`],
      [9, `canceling statement due to statement timeout`],
      [6, `canceling statement due to lock timeout`],
      [7, `process @{pid} still waiting for ShareLock on transaction @{int} after @{float:3} ms`],
      [4, `deadlock detected`],
      [4, `Process @{pid} waits for ShareLock on transaction @{int}; blocked by process @{pid}.`],
      [6, `temporary file: path "base/pgsql_tmp/pgsql_tmp@{pid}.@{int:0-40}", size @{int}`],
      [3, `could not serialize access due to concurrent update`],
      ["=2", `database system is ready to accept connections`],
      ["=1", `database system was shut down at @{date} @{int:10-23}:@{int:10-59}:@{int:10-59} UTC`],
      ["=1", `received fast shutdown request`],
      ["=1", `aborting any active transactions`],
      ["=3", `terminating connection due to administrator command`],
      ["=1", `listening on IPv4 address "0.0.0.0", port 5432`],
      ["=1", `listening on IPv6 address "::", port 5432`],
      ["=1", `listening on Unix socket "/var/run/postgresql/.s.PGSQL.5432"`],
      ["=1", `database system is shut down`]
    ]
  },

  Kubelet: {
    vars: {
      evtype: () => pick(["ContainerStarted", "ContainerDied"]),
      probeout: () =>
        pick([
          `Get \\"http://${T.ip()}:${pick(["8080", "9090", "3000"])}/healthz\\": dial tcp ${T.ip()}:8080: connect: connection refused`,
          `Get \\"http://${T.ip()}:8080/ready\\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
          "HTTP probe failed with statuscode: 503"
        ]),
      unit: () =>
        zpick([
          "docker.service",
          "containerd.service",
          "kubelet.service",
          "systemd-journald.service",
          "cron.service"
        ]),
      volumes: () => Array.from({ length: int(1, 3) }, () => T.vol()).join(" "),
      cfg: () => pick(["MemoryPressure", "DiskPressure", "PIDPressure"])
    },
    templates: [
      [
        330,
        `"SyncLoop (PLEG): event for pod" pod="@{ns}/@{pod}" event={"ID":"@{uuid}","Type":"ContainerStarted","Data":"@{hex:64}"}`
      ],
      [
        120,
        `"SyncLoop (PLEG): event for pod" pod="@{ns}/@{pod}" event={"ID":"@{uuid}","Type":"ContainerDied","Data":"@{hex:64}"}`
      ],
      [200, `"SyncLoop UPDATE" source="api" pods=["@{ns}/@{pod}"]`],
      [70, `"SyncLoop ADD" source="api" pods=["@{ns}/@{pod}"]`],
      [60, `"SyncLoop DELETE" source="api" pods=["@{ns}/@{pod}"]`],
      [60, `"SyncLoop REMOVE" source="api" pods=["@{ns}/@{pod}"]`],
      [
        150,
        `"Probe failed" probeType="Readiness" pod="@{ns}/@{pod}" podUID="@{uuid}" containerName="@{container}" probeResult="failure" output="@{probeout}"`
      ],
      [
        50,
        `"Probe failed" probeType="Liveness" pod="@{ns}/@{pod}" podUID="@{uuid}" containerName="@{container}" probeResult="failure" output="@{probeout}"`
      ],
      [
        90,
        `"Killing container with a grace period" pod="@{ns}/@{pod}" podUID="@{uuid}" containerName="@{container}" containerID="containerd://@{hex:64}" gracePeriod=@{int:1-60}`
      ],
      [
        110,
        `"Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"@{container}\\" with CrashLoopBackOff: \\"back-off @{int:10-300}s restarting failed container=@{container} pod=@{pod}_@{ns}(@{uuid})\\"" pod="@{ns}/@{pod}" podUID="@{uuid}"`
      ],
      [80, `"RemoveContainer" containerID="@{hex:64}"`],
      [
        70,
        `"MountVolume.SetUp succeeded for volume \\"@{vol}\\" (UniqueName: \\"kubernetes.io/projected/@{uuid}-@{vol}\\") pod \\"@{pod}\\" (UID: \\"@{uuid}\\") "`
      ],
      [
        60,
        `"Volume detached for volume \\"@{vol}\\" (UniqueName: \\"kubernetes.io/configmap/@{uuid}-@{vol}\\") on node \\"@{node}\\" DevicePath \\"\\""`
      ],
      [
        60,
        `"Observed pod startup duration" pod="@{ns}/@{pod}" podStartSLOduration=@{float:6} podStartE2EDuration="@{dur}"`
      ],
      [
        40,
        `"Failed to get system container stats" err="failed to get cgroup stats for \\"/system.slice/@{unit}\\": failed to get container info for \\"/system.slice/@{unit}\\": unknown container \\"/system.slice/@{unit}\\"" containerName="/system.slice/@{unit}"`
      ],
      [
        25,
        `"Unable to attach or mount volumes for pod; skipping pod" err="unmounted volumes=[@{volumes}], unattached volumes=[@{volumes}]: timed out waiting for the condition" pod="@{ns}/@{pod}"`
      ],
      [20, `"Eviction manager: attempting to reclaim" resourceName="memory"`],
      [8, `"Eviction manager: attempting to reclaim" resourceName="ephemeral-storage"`],
      [12, `"Eviction manager: pods ranked for eviction" pods=["@{ns}/@{pod}","@{ns}/@{pod}"]`],
      [15, `"Image garbage collection succeeded"`],
      [10, `"Orphaned pod found, but volume paths are still present on disk" podUID="@{uuid}"`],
      [
        6,
        `"Node became not ready" node="@{node}" condition={"type":"Ready","status":"False","lastHeartbeatTime":"@{ts}","reason":"KubeletNotReady","message":"container runtime is down"}`
      ],
      [5, `"Updated node condition" node="@{node}" condition="@{cfg}" status="True"`],
      ["=2", `"Started kubelet"`],
      ["=2", `"Starting to sync pod status with apiserver"`],
      ["=2", `"Successfully registered node" node="@{node}"`],
      ["=1", `"Kubelet version" kubeletVersion="v1.28.5"`],
      [
        "=3",
        `"Container runtime status" status="Runtime Conditions: RuntimeReady=true reason: message:, NetworkReady=true reason: message:"`
      ]
    ]
  },

  Cache: {
    vars: {
      changes: () => pick(["1", "100", "10000", lint(1, 99999)]),
      flags: () => pick(["N", "S", "M", "P", "b"]),
      cmdname: () => pick(["get", "set", "hgetall", "psync", "client|list", "subscribe", "NULL"])
    },
    templates: [
      [380, `@{changes} changes in @{int:1-900} seconds. Saving...`],
      [380, `Background saving started by pid @{pid}`],
      [360, `Background saving terminated with success`],
      [360, `DB saved on disk`],
      [120, `Fork CoW for RDB: current @{int:0-200} MB, peak @{int:0-200} MB, average @{int:0-100} MB`],
      [40, `RDB: @{int:0-500} MB of memory used by copy-on-write`],
      [60, `Connection with replica @{ipport} lost.`],
      [50, `Replica @{ipport} asks for synchronization`],
      [25, `Full resync requested by replica @{ipport}`],
      [25, `Starting BGSAVE for SYNC with target: disk`],
      [25, `Synchronization with replica @{ipport} succeeded`],
      [
        30,
        `Partial resynchronization request from @{ipport} accepted. Sending @{int} bytes of backlog starting from offset @{int}.`
      ],
      [
        20,
        `Client id=@{int} addr=@{ipport} laddr=@{ipport} fd=@{int:5-900} name= age=@{int:0-9999} idle=@{int:0-99} flags=@{flags} db=@{int:0-15} sub=0 psub=0 ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=@{int:1024-65536} rbp=@{int:0-65536} obl=0 oll=@{int} omem=@{int} tot-mem=@{int} events=rw cmd=@{cmdname} user=default redir=-1 resp=2 lib-name= lib-ver= closed for overcoming of output buffer limits.`
      ],
      [
        14,
        `Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF buffer without waiting for fsync to complete, this may slow down Redis.`
      ],
      [12, `Background AOF rewrite started by pid @{pid}`],
      [12, `Background AOF rewrite terminated with success`],
      [12, `Background AOF rewrite finished successfully`],
      [10, `Residual parent diff successfully flushed to the rewritten AOF (@{float} MB)`],
      [6, `Background saving error`],
      [
        8,
        `Error accepting a client connection: error:0A000126:SSL routines::unexpected eof while reading (addr=@{ipport} laddr=@{ipport})`
      ],
      [
        5,
        `Possible SECURITY ATTACK detected. It looks like somebody is sending POST or Host: commands to Redis. This is likely due to an attacker attempting to use Cross Protocol Scripting to compromise your Redis instance. Connection from @{ipport} aborted.`
      ],
      ["=3", `DB loaded from disk: @{float:3} seconds`],
      ["=2", `Done loading RDB, keys loaded: @{int}, keys expired: @{int:0-999}.`],
      ["=2", `Server initialized`],
      ["=2", `Ready to accept connections tcp`],
      ["=1", `Redis version=7.2.4, bits=64, commit=00000000, modified=0, pid=@{pid}, just started`],
      ["=1", `Configuration loaded`],
      ["=1", `Running mode=standalone, port=6379.`],
      ["=1", `User requested shutdown...`],
      ["=1", `Saving the final RDB snapshot before exiting.`],
      ["=1", `Redis is now ready to exit, bye bye...`],
      [
        "=2",
        `WARNING Memory overcommit must be enabled! Without it, a background save or replication may fail under low memory condition.`
      ]
    ]
  },

  Mail: {
    vars: {
      cmdstats: () => {
        const parts = ["ehlo=" + pick(["1", "2"])]
        if (rnd() < 0.6) parts.push("starttls=1")
        if (rnd() < 0.3) parts.push("auth=" + pick(["0/1", "1"]))
        if (rnd() < 0.7) parts.push("mail=1", "rcpt=" + pick(["1", "1", "2", "0/1"]), "data=1")
        parts.push("quit=1", "commands=" + int(2, 9))
        return parts.join(" ")
      },
      reply: () =>
        pick([
          `250 2.0.0 OK ${lint(1600000000, 1799999999)} ${chars(ALNUM, 12)}.${int(100, 999)} - gsmtp`,
          `250 2.0.0 Ok: queued as ${T.qid()}`,
          `250 OK id=${chars(B62, 6)}-${chars(B62, 6)}-${chars(B62, 2)}`,
          "250 Message accepted"
        ]),
      dreason: () =>
        pick([
          `connect to ${T.host()}[${T.ip()}]:25: Connection timed out`,
          "host not found",
          "lost connection with mx.example.org[203.0.113.9] while receiving the initial server greeting",
          "Name service error for name=example.net type=MX: Host not found, try again"
        ]),
      delays: () => `${fl(0.01, 3, 2)}/${fl(0.01, 3, 2)}/${fl(0.01, 5, 2)}/${fl(0.01, 3, 2)}`,
      msgid: () => `${hex(8)}.${hex(6)}@${T.host()}`,
      dsn4: () => pick(["4.4.1", "4.4.2", "4.7.0", "4.4.3"]),
      dsn5: () => pick(["5.1.1", "5.7.1", "5.2.2"]),
      sasl: () => pick(["UGFzc3dvcmQ6", "authentication failure", "VXNlcm5hbWU6"]),
      cipher: () =>
        pick([
          "TLS_AES_256_GCM_SHA384 (256/256 bits)",
          "ECDHE-RSA-AES128-GCM-SHA256 (128/128 bits)",
          "TLS_AES_128_GCM_SHA256 (128/128 bits)"
        ])
    },
    templates: [
      [210, `connect from @{host}[@{ip}]`],
      [200, `disconnect from @{host}[@{ip}] @{cmdstats}`],
      [160, `@{qid}: client=@{host}[@{ip}]`],
      [170, `@{qid}: message-id=<@{msgid}>`],
      [170, `@{qid}: from=<@{email}>, size=@{int}, nrcpt=@{int:1-5} (queue active)`],
      [
        230,
        `@{qid}: to=<@{email}>, relay=@{host}[@{ip}]:25, delay=@{float}, delays=@{delays}, dsn=2.0.0, status=sent (@{reply})`
      ],
      [
        45,
        `@{qid}: to=<@{email}>, relay=@{host}[@{ip}]:25, delay=@{float}, delays=@{delays}, dsn=@{dsn4}, status=deferred (@{dreason})`
      ],
      [
        20,
        `@{qid}: to=<@{email}>, relay=@{host}[@{ip}]:25, delay=@{float}, delays=@{delays}, dsn=@{dsn5}, status=bounced (host @{host}[@{ip}] said: 550 @{dsn5} <@{email}>: Recipient address rejected: User unknown in virtual mailbox table (in reply to RCPT TO command))`
      ],
      [
        50,
        `@{qid}: to=<@{email}>, relay=local, delay=@{float}, delays=@{delays}, dsn=2.0.0, status=sent (delivered to mailbox)`
      ],
      [160, `@{qid}: removed`],
      [40, `@{qid}: client=@{host}[@{ip}], sasl_method=PLAIN, sasl_username=@{email}`],
      [60, `Anonymous TLS connection established from @{host}[@{ip}]: TLSv1.3 with cipher @{cipher}`],
      [25, `Trusted TLS connection established to @{host}[@{ip}]:25: TLSv1.3 with cipher @{cipher}`],
      [40, `lost connection after AUTH from unknown[@{ip}]`],
      [25, `lost connection after CONNECT from unknown[@{ip}]`],
      [12, `lost connection after EHLO from unknown[@{ip}]`],
      [35, `warning: unknown[@{ip}]: SASL LOGIN authentication failed: @{sasl}`],
      [12, `warning: unknown[@{ip}]: SASL PLAIN authentication failed: @{sasl}`],
      [25, `warning: hostname @{host} does not resolve to address @{ip}: Name or service not known`],
      [
        20,
        `NOQUEUE: reject: RCPT from unknown[@{ip}]: 554 5.7.1 <@{email}>: Relay access denied; from=<@{email}> to=<@{email}> proto=ESMTP helo=<@{host}>`
      ],
      [
        8,
        `@{qid}: milter-reject: END-OF-MESSAGE from @{host}[@{ip}]: 5.7.1 Spam message rejected; from=<@{email}> to=<@{email}> proto=ESMTP helo=<@{host}>`
      ],
      [10, `timeout after DATA from @{host}[@{ip}]`],
      [6, `too many errors after RCPT from unknown[@{ip}]`],
      [10, `@{qid}: sender non-delivery notification: @{qid}`],
      [5, `statistics: max connection rate @{int:1-60}/60s for (smtp:@{ip}) at @{sysdate}`],
      [4, `statistics: max cache size @{int:1-40} at @{sysdate}`],
      ["=2", `daemon started -- version 3.7.6, configuration /etc/postfix`],
      ["=1", `reload -- version 3.7.6, configuration /etc/postfix`],
      ["=1", `terminating on signal 15`]
    ]
  },

  HostDaemons: {
    vars: {
      // a unit and its description come together: desc repeats the description of the last unit drawn
      unit: () => {
        lastUnit = Math.floor(UNITS.length * rnd() ** 2.2)
        return UNITS[lastUnit][0]
      },
      desc: () => UNITS[lastUnit][1],
      cmd: () =>
        zpick([
          "cd / && run-parts --report /etc/cron.hourly",
          "/usr/local/bin/backup.sh",
          "[ -x /usr/lib/php/sessionclean ] && /usr/lib/php/sessionclean",
          "test -x /usr/sbin/anacron || ( cd / && run-parts --report /etc/cron.daily )",
          "/opt/app/bin/rotate",
          "php /var/www/html/cron.php"
        ]),
      scmd: () =>
        zpick([
          "/usr/bin/systemctl restart nginx",
          "/usr/bin/apt-get update",
          "/bin/cat /var/log/syslog",
          "/usr/bin/docker ps -a",
          "/bin/bash",
          "/usr/bin/journalctl -u kubelet --since today"
        ]),
      proc: () => zpick(["java", "node", "postgres", "chrome", "python3", "mysqld"]),
      iface: () => pick(["eth0", "ens5"])
    },
    templates: [
      [170, `(@{user}) CMD (@{cmd})`],
      [170, `pam_unix(cron:session): session opened for user @{user}(uid=@{int:0-1100}) by (uid=0)`],
      [170, `pam_unix(cron:session): session closed for user @{user}`],
      [120, `Started @{unit} - @{desc}.`],
      [110, `Starting @{unit} - @{desc}...`],
      [100, `@{unit}: Deactivated successfully.`],
      [90, `Finished @{unit} - @{desc}.`],
      [90, `@{unit}: Consumed @{float:3}s CPU time.`],
      [80, `@{user} : TTY=pts/@{int:0-9} ; PWD=@{path} ; USER=root ; COMMAND=@{scmd}`],
      [80, `pam_unix(sudo:session): session opened for user root(uid=0) by @{user}(uid=@{int:1000-1100})`],
      [80, `pam_unix(sudo:session): session closed for user root`],
      [70, `New session @{int} of user @{user}.`],
      [60, `Removed session @{int}.`],
      [40, `Session @{int} logged out. Waiting for processes to exit.`],
      [50, `DHCPREQUEST for @{ip} on @{iface} to @{ip} port 67`],
      [50, `DHCPACK of @{ip} from @{ip}`],
      [45, `bound to @{ip} -- renewal in @{int:100-3600} seconds.`],
      [20, `@{unit}: Main process exited, code=exited, status=1/FAILURE`],
      [20, `@{unit}: Failed with result 'exit-code'.`],
      [12, `@{unit}: Scheduled restart job, restart counter is at @{int:1-30}.`],
      [
        10,
        `@{user} : @{int:1-3} incorrect password attempts ; TTY=pts/@{int:0-9} ; PWD=@{path} ; USER=root ; COMMAND=@{scmd}`
      ],
      [5, `@{user} : user NOT in sudoers ; TTY=pts/@{int:0-9} ; PWD=@{path} ; USER=root ; COMMAND=@{scmd}`],
      [
        6,
        `Out of memory: Killed process @{pid} (@{proc}) total-vm:@{int}kB, anon-rss:@{int}kB, file-rss:@{int}kB, shmem-rss:@{int:0-999}kB, UID:@{int:0-1100} pgtables:@{int}kB oom_score_adj:@{int:0-1000}`
      ],
      [
        6,
        `@{proc} invoked oom-killer: gfp_mask=0x@{hex:6}(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=@{int:0-1000}`
      ],
      [8, `Reloading.`],
      ["=3", `Reached target timers.target - Timer Units.`],
      ["=2", `Stopped target timers.target - Timer Units.`],
      ["=1", `Startup finished in @{float:3}s (kernel) + @{float:3}s (userspace) = @{float:3}s.`],
      ["=2", `Received SIGHUP, reloading.`]
    ]
  },

  Broker: {
    vars: {
      mreason: () =>
        pick([
          `Adding new member ${chars(ALNUM, 8)}-${uuid()} with group instance id None; client reason: rebalance failed due to MemberIdRequiredException`,
          "removing member " + chars(ALNUM, 8) + "-" + uuid() + " on heartbeat expiration",
          `Leader ${chars(ALNUM, 8)}-${uuid()} re-joining group during Stable; client reason: need to revoke partitions and re-join`
        ]),
      member: () =>
        pool(
          "member",
          12,
          () => `${pick(["consumer-" + T.group() + "-" + int(1, 9), "producer-" + int(1, 40)])}-${uuid()}`
        ),
      isr: () => Array.from({ length: int(1, 4) }, () => int(1, 6)).join(","),
      dir: () => pick(["/var/lib/kafka/data", "/data/kafka-logs"]),
      clientid: () => `consumer-${T.group()}-${int(1, 9)}`,
      frame: () =>
        zpick([
          "org.apache.kafka.clients.NetworkClientUtils.sendAndReceive(NetworkClientUtils.java:110)",
          "kafka.server.ReplicaFetcherBlockingSend.sendRequest(ReplicaFetcherBlockingSend.scala:114)",
          "kafka.server.RemoteLeaderEndPoint.fetch(RemoteLeaderEndPoint.scala:79)",
          "kafka.server.AbstractFetcherThread.processFetchRequest(AbstractFetcherThread.scala:316)",
          "kafka.server.AbstractFetcherThread.doWork(AbstractFetcherThread.scala:105)",
          "org.apache.kafka.server.util.ShutdownableThread.run(ShutdownableThread.java:130)",
          "scala.Option.foreach(Option.scala:437)",
          "java.base/java.lang.Thread.run(Thread.java:833)"
        ])
    },
    templates: [
      [200, `at @{frame}`],
      [
        160,
        `[Log partition=@{topic}-@{int:0-31}, dir=@{dir}] Rolled new log segment at offset @{int} in @{int:0-40} ms. (kafka.log.LocalLog)`
      ],
      [
        140,
        `[ProducerStateManager partition=@{topic}-@{int:0-31}] Wrote producer snapshot at offset @{int} with @{int:0-50} producer ids in @{int:0-30} ms. (kafka.log.ProducerStateManager)`
      ],
      [
        130,
        `[LocalLog partition=@{topic}-@{int:0-31}, dir=@{dir}] Deleting segment files LogSegment(baseOffset=@{int}, size=@{int}, lastModifiedTime=@{epochms}, largestRecordTimestamp=Some(@{epochms})) (kafka.log.LocalLog$)`
      ],
      [
        120,
        `[UnifiedLog partition=@{topic}-@{int:0-31}, dir=@{dir}] Incremented log start offset to @{int} due to segment deletion (kafka.log.UnifiedLog)`
      ],
      [
        30,
        `[UnifiedLog partition=@{topic}-@{int:0-31}, dir=@{dir}] Incremented log start offset to @{int} due to leader offset increment (kafka.log.UnifiedLog)`
      ],
      [
        110,
        `[UnifiedLog partition=@{topic}-@{int:0-31}, dir=@{dir}] Deleting segment LogSegment(baseOffset=@{int}, size=@{int}, lastModifiedTime=@{epochms}, largestRecordTimestamp=Some(@{epochms})) due to retention time 604800000ms breach based on the largest record timestamp in the segment (kafka.log.UnifiedLog)`
      ],
      [
        90,
        `[GroupCoordinator @{int:1-6}]: Preparing to rebalance group @{group} in state PreparingRebalance with old generation @{int:1-900} (__consumer_offsets-@{int:0-49}) (reason: @{mreason}) (kafka.coordinator.group.GroupCoordinator)`
      ],
      [
        90,
        `[GroupCoordinator @{int:1-6}]: Stabilized group @{group} generation @{int:1-900} (__consumer_offsets-@{int:0-49}) with @{int:1-12} members (kafka.coordinator.group.GroupCoordinator)`
      ],
      [
        80,
        `[GroupCoordinator @{int:1-6}]: Assignment received from leader @{member} for group @{group} for generation @{int:1-900}. The group has @{int:1-12} members, 0 of which are static. (kafka.coordinator.group.GroupCoordinator)`
      ],
      [
        40,
        `[GroupCoordinator @{int:1-6}]: Member @{member} in group @{group} has failed, removing it from the group (kafka.coordinator.group.GroupCoordinator)`
      ],
      [
        60,
        `[ReplicaFetcher replicaId=@{int:1-6}, leaderId=@{int:1-6}, fetcherId=@{int:0-3}] Error sending fetch request (sessionId=@{int}, epoch=@{int}) to node @{int:1-6}: (org.apache.kafka.clients.FetchSessionHandler)`
      ],
      [50, `java.io.IOException: Connection to @{int:1-6} was disconnected before the response was read`],
      [12, `java.net.SocketTimeoutException: Failed to connect within 30000 ms`],
      [
        30,
        `[Partition @{topic}-@{int:0-31} broker=@{int:1-6}] Shrinking ISR from @{isr} to @{isr}. Leader: (highWatermark: @{int}, endOffset: @{int}). Out of sync replicas: (brokerId: @{int:1-6}, endOffset: @{int}, lastCaughtUpTimeMs: @{epochms}). (kafka.cluster.Partition)`
      ],
      [
        30,
        `[Partition @{topic}-@{int:0-31} broker=@{int:1-6}] Expanding ISR from @{isr} to @{isr} (kafka.cluster.Partition)`
      ],
      [
        25,
        `[Controller id=@{int:1-6}] Processing automatic preferred replica leader election (kafka.controller.KafkaController)`
      ],
      [
        20,
        `[SocketServer listenerType=ZK_BROKER, nodeId=@{int:1-6}] Failed authentication with /@{ip} (channelId=@{ip}:9093-@{ipport}-@{int:0-99}) (SSL handshake failed) (org.apache.kafka.common.network.Selector)`
      ],
      [
        12,
        `[Consumer clientId=@{clientid}, groupId=@{group}] Resetting offset for partition @{topic}-@{int:0-31} to position FetchPosition{offset=@{int}, offsetEpoch=Optional.empty, currentLeader=LeaderAndEpoch{leader=Optional[@{host}:9092 (id: @{int:1-6} rack: null)], epoch=@{int:0-99}}}. (org.apache.kafka.clients.consumer.internals.SubscriptionState)`
      ],
      [
        8,
        `[Admin Manager on Broker @{int:1-6}]: Error processing create topic request CreatableTopic(name='@{topic}', numPartitions=@{int:1-32}, replicationFactor=@{int:1-3}, assignments=[], configs=[]) (kafka.server.ZkAdminManager)`
      ],
      [8, `org.apache.kafka.common.errors.TopicExistsException: Topic '@{topic}' already exists.`],
      ["=2", `[KafkaServer id=@{int:1-6}] started (kafka.server.KafkaServer)`],
      ["=1", `[KafkaServer id=@{int:1-6}] shutting down (kafka.server.KafkaServer)`],
      ["=1", `[KafkaServer id=@{int:1-6}] shut down completed (kafka.server.KafkaServer)`],
      ["=2", `Kafka version: 3.6.1 (org.apache.kafka.common.utils.AppInfoParser)`],
      ["=2", `Kafka commitId: @{hex:16} (org.apache.kafka.common.utils.AppInfoParser)`],
      ["=2", `Kafka startTimeMs: @{epochms} (org.apache.kafka.common.utils.AppInfoParser)`]
    ]
  },

  GoService: {
    vars: {
      svc: () => zpick(["inventory", "pricing", "users", "auth", "shipping", "search"]),
      ckey: () => `${pick(["user", "product", "price", "session"])}:${lint(1, 999999)}`,
      qname: () => zpick(["GetOrderByID", "ListOrders", "InsertOrder", "UpdateStock", "GetUser"]),
      errtext: () =>
        pick([
          "context deadline exceeded",
          "EOF",
          `dial tcp ${T.ip()}:8080: connect: connection refused`,
          "rpc error: code = Unavailable desc = connection closed",
          `unexpected status 503`
        ]),
      reason: () => pick(["expired", "signature invalid", "audience mismatch", "token used before issued"]),
      queue: () => zpick(["default", "emails", "exports", "webhooks", "low"]),
      grpcm: () =>
        zpick([
          "/orders.v1.OrderService/GetOrder",
          "/orders.v1.OrderService/ListOrders",
          "/users.v1.UserService/GetUser",
          "/grpc.health.v1.Health/Check"
        ]),
      clientid: () => pool("clientid", 10, () => `cli_${chars(B62, 10)}`)
    },
    templates: [
      [
        420,
        `msg="request completed" method=GET path=@{upath} status=@{status} duration=@{dur} bytes=@{int} request_id=@{reqid} remote_addr=@{ipport}`
      ],
      [
        160,
        `msg="request completed" method=POST path=@{upath} status=@{status} duration=@{dur} bytes=@{int} request_id=@{reqid} remote_addr=@{ipport}`
      ],
      [
        30,
        `msg="request completed" method=PUT path=@{upath} status=@{status} duration=@{dur} bytes=@{int} request_id=@{reqid} remote_addr=@{ipport}`
      ],
      [
        20,
        `msg="request completed" method=DELETE path=@{upath} status=@{status} duration=@{dur} bytes=@{int} request_id=@{reqid} remote_addr=@{ipport}`
      ],
      [200, `msg="cache hit" key=@{ckey} ttl=@{dur}`],
      [110, `msg="cache miss" key=@{ckey} ttl=@{dur}`],
      [180, `msg="db query" query_name=@{qname} rows=@{int:0-500} duration=@{dur}`],
      [
        150,
        `msg="grpc call" grpc.method=@{grpcm} grpc.code=OK grpc.time_ms=@{float:3} peer.address=@{ipport}`
      ],
      [
        25,
        `msg="grpc call" grpc.method=@{grpcm} grpc.code=Unavailable grpc.time_ms=@{float:3} peer.address=@{ipport}`
      ],
      [120, `msg=heartbeat seq=@{int}`],
      [70, `msg="job enqueued" job_id=@{uuid} queue=@{queue} priority=@{int:0-9}`],
      [60, `msg="job finished" job_id=@{uuid} queue=@{queue} duration=@{dur} result=success`],
      [12, `msg="job finished" job_id=@{uuid} queue=@{queue} duration=@{dur} result=failure`],
      [50, `msg="upstream call failed" service=@{svc} endpoint=@{url} attempt=@{int:1-5} err="@{errtext}"`],
      [45, `msg="retrying request" service=@{svc} attempt=@{int:1-5} backoff=@{dur}`],
      [40, `msg="consumer lag" topic=@{topic} partition=@{int:0-31} lag=@{int}`],
      [30, `msg="rate limited" client_ip=@{ip} limit=@{int:10-1000} window=@{dur}`],
      [25, `msg="token validation failed" reason="@{reason}" client_id=@{clientid}`],
      [30, `msg="health check" status=ok uptime=@{dur}`],
      [5, `msg="health check" status=degraded uptime=@{dur}`],
      [20, `msg="metrics flushed" count=@{int} duration=@{dur}`],
      [6, `msg="circuit breaker state changed" name=@{svc} from=closed to=open`],
      [5, `msg="circuit breaker state changed" name=@{svc} from=open to=half-open`],
      [4, `msg="circuit breaker state changed" name=@{svc} from=half-open to=closed`],
      [5, `msg="config reloaded" source=@{path} keys=@{int:1-200}`],
      [
        "=1",
        `msg="panic recovered" err="runtime error: invalid memory address or nil pointer dereference" request_id=@{reqid}`
      ],
      ["=2", `msg="starting server" addr=:8080 version=@{semver} commit=@{hex:7}`],
      ["=1", `msg="shutting down" signal=SIGTERM`],
      ["=1", `msg="server stopped"`]
    ]
  },

  CIRunner: {
    vars: {
      cmd: () =>
        zpick([
          "npm ci",
          "npm test",
          "npm run build",
          "docker build -t " + T.image() + " .",
          "make lint",
          "go test ./... -race -count=1",
          "cargo build --release",
          "pytest -q tests/",
          'echo "deploying to staging"',
          "ls -la"
        ]),
      crate: () =>
        zpick(["serde", "tokio", "hyper", "libc", "syn", "quote", "proc-macro2", "regex", "log", "rand"]),
      pkg: () => zpick(["inflight", "glob", "rimraf", "uuid", "querystring", "request", "har-validator"]),
      reason: () =>
        pick([
          "This module is not supported, and leaks memory.",
          "Glob versions prior to v9 are no longer supported",
          "Rimraf versions prior to v4 are no longer supported",
          "Please upgrade",
          "use the URLSearchParams API instead"
        ]),
      tfile: () => `src/${pick(WORDS)}/${pick(["index", "service", "handler", "utils", "model"])}`,
      ckey: () => pick(["default", "node-modules", "cargo", "go-mod", "pip"]),
      proj: () =>
        `${pick(["platform", "web", "infra"])}/${pick(["api", "frontend", "billing", "terraform", "worker"])}`,
      target: () => zpick(["core", "net", "storage", "app", "tests"]),
      cfile: () => `${pick(["main", "server", "client", "buffer", "parser", "util"])}`,
      step: () =>
        pick([
          "apt-get update && apt-get install -y curl",
          "npm ci --omit=dev",
          "go build -o /out/app ./cmd/app",
          "adduser -D app"
        ]),
      branch: () => pick(["main", "develop", "feature/" + pick(WORDS), "fix/" + int(100, 999)])
    },
    templates: [
      [330, `[@{int:1-400}/@{int:400-900}] Building CXX object src/CMakeFiles/@{target}.dir/@{cfile}.cpp.o`],
      [200, `Compiling @{crate} v@{semver}`],
      [200, `PASS @{tfile}.test.ts (@{float:3} s)`],
      [30, `FAIL @{tfile}.test.ts (@{float:3} s)`],
      [150, `$ @{cmd}`],
      [60, `Step @{int:1-20}/@{int:20-25} : RUN @{step}`],
      [60, `---> Running in @{hex:12}`],
      [60, `Removing intermediate container @{hex:12}`],
      [60, `---> @{hex:12}`],
      [50, `npm WARN deprecated @{pkg}@@{semver}: @{reason}`],
      [50, `Checking out @{hex:8} as detached HEAD (ref is @{branch})...`],
      [50, `Running with gitlab-runner 16.8.0 (c72a09b6)`],
      [50, `on @{host} @{token}, system ID: s_@{hex:12}`],
      [50, `Preparing the "docker" executor`],
      [50, `Using Docker executor with image @{image} ...`],
      [45, `Pulling docker image @{image} ...`],
      [45, `Fetching changes with git depth set to @{int:1-50}...`],
      [40, `Initialized empty Git repository in /builds/@{proj}/.git/`],
      [40, `Created fresh repository.`],
      [40, `Checking cache for @{ckey}-@{int:1-20}...`],
      [30, `Successfully extracted cache`],
      [40, `Executing "step_script" stage of the job script`],
      [30, `Uploading artifacts...`],
      [30, `@{path}: found @{int:1-500} matching artifact files and directories`],
      [40, `Cleaning up project directory and file based variables`],
      [40, `Job succeeded`],
      [10, `ERROR: Job failed: exit code @{int:1-2}`],
      [20, `Tests: @{int:1-400} passed, @{int:1-400} total`],
      [5, `Tests: @{int:1-9} failed, @{int:1-400} passed, @{int:1-400} total`],
      [20, `added @{int:10-1500} packages, and audited @{int:10-1500} packages in @{sec}`],
      [15, `found 0 vulnerabilities`],
      [15, `Successfully built @{hex:12}`],
      [15, `Successfully tagged @{image}`],
      [
        "=3",
        `WARNING: Failed to pull image with policy "always": context deadline exceeded (manager.go:237:0s)`
      ],
      ["=2", `Finished release [optimized] target(s) in @{float:2}s`]
    ]
  },

  Firewall: {
    vars: {
      macs: () => `${T.mac()}:${T.mac()}:08:00`,
      veth: () => pool("veth", 12, () => `veth${hex(7)}`),
      profile: () =>
        zpick([
          "/usr/sbin/cupsd",
          "snap.firefox.firefox",
          "docker-default",
          "/usr/bin/man",
          "nvidia_modprobe"
        ]),
      proc: () => zpick(["cupsd", "firefox", "nginx", "man", "modprobe"]),
      op: () => pick(["open", "file_mmap", "capable", "exec"])
    },
    templates: [
      [
        600,
        `[UFW BLOCK] IN=eth0 OUT= MAC=@{macs} SRC=@{ip} DST=@{ip} LEN=@{int:40-1500} TOS=0x00 PREC=0x00 TTL=@{int:30-255} ID=@{int:0-65535} DF PROTO=TCP SPT=@{port} DPT=@{int:1-65535} WINDOW=@{int:1024-65535} RES=0x00 SYN URGP=0`
      ],
      [
        230,
        `[UFW BLOCK] IN=eth0 OUT= MAC=@{macs} SRC=@{ip} DST=@{ip} LEN=@{int:40-1500} TOS=0x00 PREC=0x00 TTL=@{int:30-255} ID=@{int:0-65535} PROTO=UDP SPT=@{port} DPT=@{int:1-65535} LEN=@{int:8-1480}`
      ],
      [
        150,
        `[UFW ALLOW] IN=eth0 OUT= MAC=@{macs} SRC=@{ip} DST=@{ip} LEN=@{int:40-1500} TOS=0x00 PREC=0x00 TTL=@{int:30-255} ID=@{int:0-65535} DF PROTO=TCP SPT=@{port} DPT=@{int:1-65535} WINDOW=@{int:1024-65535} RES=0x00 SYN URGP=0`
      ],
      [
        100,
        `[UFW AUDIT] IN=eth0 OUT= MAC=@{macs} SRC=@{ip} DST=@{ip} LEN=@{int:40-1500} TOS=0x00 PREC=0x00 TTL=@{int:30-255} ID=@{int:0-65535} DF PROTO=TCP SPT=@{port} DPT=@{int:1-65535} WINDOW=@{int:1024-65535} RES=0x00 SYN URGP=0`
      ],
      [
        60,
        `[UFW BLOCK] IN=eth0 OUT= MAC=@{macs} SRC=@{ip} DST=@{ip} LEN=@{int:28-100} TOS=0x00 PREC=0x00 TTL=@{int:30-255} ID=@{int:0-65535} PROTO=ICMP TYPE=8 CODE=0 ID=@{int:0-65535} SEQ=@{int:0-9999}`
      ],
      [
        60,
        `[UFW BLOCK] IN=eth0 OUT= MAC=@{macs} SRC=@{ipv6} DST=ff02:0000:0000:0000:0000:0000:0000:00fb LEN=@{int:40-1500} TC=0 HOPLIMIT=255 FLOWLBL=@{int} PROTO=UDP SPT=5353 DPT=5353 LEN=@{int:8-1480}`
      ],
      [
        50,
        `IPTables-Dropped: IN=eth0 OUT= MAC=@{macs} SRC=@{ip} DST=@{ip} LEN=@{int:40-1500} TOS=0x00 PREC=0x00 TTL=@{int:30-255} ID=@{int:0-65535} DF PROTO=TCP SPT=@{port} DPT=@{int:1-65535} WINDOW=@{int:1024-65535} RES=0x00 ACK FIN URGP=0`
      ],
      [70, `docker0: port @{int:1-30}(@{veth}) entered blocking state`],
      [70, `docker0: port @{int:1-30}(@{veth}) entered disabled state`],
      [60, `docker0: port @{int:1-30}(@{veth}) entered forwarding state`],
      [60, `device @{veth} entered promiscuous mode`],
      [55, `device @{veth} left promiscuous mode`],
      [50, `eth0: renamed from @{veth}`],
      [45, `IPv6: ADDRCONF(NETDEV_CHANGE): @{veth}: link becomes ready`],
      [
        40,
        `audit: type=1400 audit(@{float:3}:@{int}): apparmor="DENIED" operation="@{op}" profile="@{profile}" name="@{path}" pid=@{pid} comm="@{proc}" requested_mask="r" denied_mask="r" fsuid=@{int:0-1100} ouid=@{int:0-1100}`
      ],
      [30, `net_ratelimit: @{int:1-900} callbacks suppressed`],
      [15, `nf_conntrack: nf_conntrack: table full, dropping packet`],
      [
        10,
        `TCP: request_sock_TCP: Possible SYN flooding on port @{int:1-65535}. Sending cookies. Check SNMP counters.`
      ],
      [5, `e1000e: eth0 NIC Link is Up 1000 Mbps Full Duplex, Flow Control: Rx/Tx`],
      [5, `e1000e: eth0 NIC Link is Down`],
      [
        "=2",
        `nf_conntrack: default automatic helper assignment has been turned off for security reasons and CT-based firewall rule not found. Use the iptables CT target to attach helpers instead.`
      ],
      ["=1", `Bridge firewalling registered`],
      ["=3", `TCP: eth0: Driver has suspect GRO implementation, TCP performance may be compromised.`]
    ]
  },

  WebClient: {
    vars: {
      evt: () => zpick(["page_view", "add_to_cart", "checkout_started", "search", "sign_up", "video_play"]),
      json: () =>
        JSON.stringify(
          pick([
            { screen: pick(["Home", "Cart", "Product"]), duration_ms: int(10, 9000) },
            { query: pick(["red shoes", "laptop", "gift"]), results: int(0, 300) },
            { sku: `SKU-${int(1000, 9999)}`, qty: int(1, 5) }
          ])
        ),
      route: () =>
        zpick([
          "/",
          "/cart",
          "/checkout",
          "/products/" + int(1, 9999),
          "/account/orders",
          "/search?q=" + pick(WORDS)
        ]),
      comp: () =>
        zpick(["ProductList", "CartDrawer", "Header", "CheckoutForm", "OrderHistory", "SearchBar", "App"]),
      errtext: () =>
        pick([
          "Network Error",
          "Request failed with status code 500",
          "Cannot read properties of undefined (reading 'map')",
          "Loading chunk 42 failed.",
          "AbortError: The user aborted a request."
        ]),
      reason: () => pick(["going away", "server restart", "idle timeout", "ping_timeout"]),
      exc: () => pick(["TypeError", "ReferenceError", "RangeError", "SyntaxError"]),
      jsfile: () =>
        `https://${pick(["app.acme.io", "cdn.acme.io"])}/static/js/${pick(["main", "vendor", "chunk-42"])}.${hex(8)}.js`
    },
    templates: [
      [380, `[Network] GET @{url} -> @{status} (@{ms})`],
      [150, `[Network] POST @{url} -> @{status} (@{ms})`],
      [250, `[Analytics] track event "@{evt}" props=@{json}`],
      [200, `[Render] @{comp} rendered in @{float:1}ms`],
      [150, `[Router] navigate @{route} -> @{route}`],
      [90, `[Perf] FCP=@{ms} LCP=@{ms} CLS=@{float:3} TTFB=@{ms}`],
      [80, `[Sync] uploaded @{int:1-200} items in @{ms}`],
      [60, `[Player] buffering started at @{float:1}s`],
      [60, `[Player] buffering ended after @{ms}`],
      [50, `[Player] bitrate switched to @{int:200-8000}kbps`],
      [60, `[Auth] token refreshed, expires in @{int:60-3600}s`],
      [25, `[Auth] session expired for user @{user}`],
      [40, `[Auth] login succeeded for @{email}`],
      [15, `[Auth] login failed for @{email}`],
      [40, `[WebSocket] connected to wss://@{host}/ws?token=@{hex:24}`],
      [35, `[WebSocket] disconnected (code=@{int:1000-1015}, reason="@{reason}")`],
      [35, `[WebSocket] reconnecting in @{ms} (attempt @{int:1-10})`],
      [30, `[Network] request failed: TypeError: Failed to fetch (@{url})`],
      [25, `[Cache] evicted @{int:1-500} entries (@{size})`],
      [20, `[Storage] quota used @{size} of @{size}`],
      [20, `[Push] notification received id=@{uuid} title="@{title}"`],
      [15, `[Sync] conflict on item @{uuid}, keeping server version`],
      [6, `[Sync] conflict on item @{uuid}, keeping local version`],
      [15, `Uncaught (in promise) Error: @{errtext}`],
      [
        12,
        `Warning: Each child in a list should have a unique "key" prop. Check the render method of \`@{comp}\`.`
      ],
      [8, `[Crash] @{exc}: @{errtext} at @{jsfile}:@{int:1-9}:@{int:1-99999}`],
      ["=2", `[ServiceWorker] installed version @{semver}`],
      ["=2", `[ServiceWorker] activated`],
      ["=1", `[ServiceWorker] update found`],
      [
        "=1",
        `Download the React DevTools for a better development experience: https://reactjs.org/link/react-devtools`
      ]
    ]
  },

  Payments: {
    vars: {
      score: () => rnd().toFixed(3),
      merchant: () => pool("merchant", 15, () => `acct_${chars(B62, 16)}`),
      code: () =>
        zpick([
          "insufficient_funds",
          "card_declined",
          "expired_card",
          "incorrect_cvc",
          "do_not_honor",
          "fraudulent"
        ]),
      whevt: () =>
        zpick([
          "payment_intent.succeeded",
          "charge.refunded",
          "invoice.paid",
          "customer.subscription.updated",
          "payout.paid"
        ]),
      rules: () =>
        Array.from({ length: int(1, 3) }, () =>
          pick(["velocity_1h", "ip_country_mismatch", "new_device", "high_amount", "bin_risk"])
        ).join(","),
      idem: () => `idem_${uuid()}`,
      batch: () => `bat_${int(20240101, 20241231)}_${int(1, 9)}`,
      gateway: () => zpick(["adyen", "stripe", "worldpay", "braintree"]),
      po: () => `po_${chars(B62, 14)}`,
      dp: () => `dp_${chars(B62, 14)}`,
      acct: () => pick(["cash", "receivables", "fees", "merchant_balance", "refunds"]),
      reason: () =>
        pick([
          "fraudulent",
          "product not received",
          "duplicate",
          "subscription canceled",
          "credit not processed"
        ]),
      preason: () =>
        pick(["account_closed", "could not reach bank", "invalid account number", "insufficient_funds"]),
      errtext: () =>
        pick([
          "timeout",
          "connect ECONNREFUSED " + T.ip() + ":443",
          "HTTP 500 Internal Server Error",
          "certificate has expired"
        ]),
      gwjson: () =>
        JSON.stringify({
          error: {
            code: pick(["rate_limit", "api_error", "card_declined"]),
            message: pick(["Too many requests", "An error occurred"])
          }
        })
    },
    templates: [
      [380, `Payment @{payid} authorized amount=@{amount} currency=@{cur} merchant=@{merchant}`],
      [300, `Payment @{payid} captured amount=@{amount} currency=@{cur} merchant=@{merchant}`],
      [60, `Payment @{payid} refunded amount=@{amount} currency=@{cur} merchant=@{merchant}`],
      [120, `Payment @{payid} declined reason=@{code} merchant=@{merchant}`],
      [200, `Received request body: @{json}`],
      [160, `Fraud check payment=@{payid} score=@{score} decision=approve rules=[@{rules}]`],
      [30, `Fraud check payment=@{payid} score=@{score} decision=review rules=[@{rules}]`],
      [15, `Fraud check payment=@{payid} score=@{score} decision=decline rules=[@{rules}]`],
      [150, `Webhook delivered to @{url} event=@{whevt} attempt=@{int:1-5} status=@{status}`],
      [40, `Webhook delivery failed for endpoint @{url}: @{errtext}; will retry in @{dur}`],
      [
        80,
        `Ledger entry posted: {"entry_id":"@{uuid}","debit":"@{acct}","credit":"@{acct}","amount":@{int}}`
      ],
      [70, `Idempotency key @{idem} replayed, returning cached response`],
      [50, `3DS challenge required for card ****@{last4} (issuer=@{bank})`],
      [40, `Currency conversion @{cur}->@{cur} rate=@{float:6}`],
      [30, `Gateway @{gateway} responded @{status} in @{ms}: @{gwjson}`],
      [25, `Gateway timeout after @{ms} calling @{gateway} /v1/charges`],
      [20, `Payout @{po} scheduled for @{date} amount=@{amount} @{cur}`],
      [15, `Payout @{po} paid`],
      [4, `Payout @{po} failed: @{preason}`],
      [12, `Reconciliation mismatch for @{payid}: expected @{amount} got @{amount}`],
      [10, `Settlement batch @{batch} closed: @{int:1-9999} transactions, total @{amount} @{cur}`],
      [6, `Dispute @{dp} opened by cardholder, reason "@{reason}"`],
      ["=2", `Dispute @{dp} won`],
      ["=1", `Dispute @{dp} lost`],
      ["=2", `Card network tokens refreshed: @{int:1-999} updated, @{int:0-99} failed`],
      ["=1", `Payment service started on port 8443 (build @{hex:7}, region=@{word})`]
    ]
  }
}

// ---------------------------------------------------------------- generation and checks

// ---------------------------------------------------------------- the "dated" set (--set dated)
// Written before the grouping had any rule for month or weekday names, never tuned on: dates as C
// (ctime), Java (DateFormat MEDIUM), RFC 1123 and syslog print them inside messages, each one
// variable (Loghub's convention); a weekday or month name that is not part of a date stays text.
const DAY = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
const FULLMON = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December"
]
const hms = () => `${pad(int(0, 23))}:${pad(int(0, 59))}:${pad(int(0, 59))}`
const D = {
  ctime: () =>
    `${pick(DAY)} ${pick(MON)} ${String(int(1, 28)).padStart(2, " ")} ${hms()} 2024`.replace(/ {2,}/g, " "),
  javadate: () =>
    `${pick(MON)} ${int(1, 28)}, 2024 ${int(1, 12)}:${pad(int(0, 59))}:${pad(int(0, 59))} ${pick(["AM", "PM"])}`,
  rfc1123: () => `${pick(DAY)}, ${pad(int(1, 28))} ${pick(MON)} 2024 ${hms()} GMT`,
  longdate: () => `${pick(FULLMON)} ${int(1, 28)}, 2024`,
  dayhm: () => `${pick(DAY)} ${pad(int(0, 23))}:${pad(int(0, 59))}`,
  job: () =>
    zpick([
      "nightly-backup",
      "reindex",
      "invoice-run",
      "cleanup-tmp",
      "sync-ldap",
      "rotate-keys",
      "export-metrics",
      "purge-sessions",
      "warm-cache",
      "report-daily",
      "vacuum",
      "mail-digest"
    ]),
  hm: () => `${pad(int(0, 23))}:${pad(int(0, 59))}`
}
for (const k of ["ctime", "javadate", "rfc1123", "longdate", "dayhm"]) MULTI.add(k)
const DATED = {
  Scheduler: {
    vars: D,
    templates: [
      [300, `job @{job} started at @{javadate}`],
      [280, `job @{job} finished at @{javadate} in @{ms}`],
      [60, `job @{job} failed at @{javadate}: exit code @{int:1-255}`],
      [90, `next run of @{job} scheduled for @{javadate}`],
      [40, `job @{job} skipped: previous run still active since @{javadate}`],
      [30, `maintenance window opens every Sun at @{hm}`],
      [25, `maintenance window closes every Sun at @{hm}`],
      [50, `lock @{hex:16} acquired by worker-@{int:1-12}`],
      [50, `lock @{hex:16} released by worker-@{int:1-12}`],
      [20, `calendar loaded: @{int:1-40} holidays until @{longdate}`],
      [15, `job @{job} is paused until @{longdate}`],
      [70, `worker-@{int:1-12} heartbeat at @{javadate}`],
      [12, `clock skew of @{ms} detected on worker-@{int:1-12}`],
      [10, `retention: deleted @{int} runs older than @{longdate}`],
      [8, `job @{job} window is @{dayhm} to @{dayhm}`],
      [5, `scheduler started, @{int:1-80} jobs registered`],
      [3, `scheduler stopping: received SIGTERM`],
      [20, `trigger @{job} fired @{int:1-500} ms late`]
    ]
  },
  LegacyDaemon: {
    vars: { ...D, user: () => zpick(USERS) },
    templates: [
      [320, `connection from @{ip} (@{ip}) at @{ctime}`],
      [200, `session for @{user} closed at @{ctime}`],
      [120, `session for @{user} opened at @{ctime}`],
      [90, `alarm set to @{ctime} for pid @{pid}`],
      [80, `HTTP/1.1 @{status} sent to @{ip}, Date: @{rfc1123}`],
      [60, `If-Modified-Since @{rfc1123} matched, 304 for @{ip}`],
      [60, `cache entry @{hex:12} expires @{rfc1123}`],
      [40, `config reloaded at @{ctime} by pid @{pid}`],
      [40, `daemon started at @{ctime}, version @{semver}`],
      [30, `daemon exiting at @{ctime} on signal @{int:1-31}`],
      [30, `log rotated at @{ctime}: @{size} archived`],
      [25, `backup window: every Sat from @{hm} to @{hm}`],
      [20, `license valid until @{longdate}`],
      [20, `spool @{int} bytes at @{ctime}`],
      [15, `peer @{ip} last seen @{ctime}, marking down`],
      [10, `queue run started at @{ctime} with @{int:1-900} messages`],
      [6, `ALERT disk full at @{ctime}`]
    ]
  }
}

const SLOT = /@\{(\w+)(?::([^}]*))?\}/g
const escRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

function compile(system, tpl) {
  const parts = tpl.split(SLOT) // literal, type, arg, literal, type, arg, ...
  const lits = []
  const slots = []
  for (let i = 0; i < parts.length; i += 3) {
    lits.push(parts[i])
    if (i + 1 < parts.length) slots.push({ type: parts[i + 1], arg: parts[i + 2] })
  }
  for (const s of slots) {
    if (!system.vars?.[s.type] && !T[s.type]) fail(`unknown slot type @{${s.type}} in: ${tpl}`)
  }
  const eventTemplate = lits.join("<*>")
  if (eventTemplate.includes("<*><*>")) fail(`two adjacent slots in: ${tpl}`)
  const loose = new RegExp(`^${lits.map(escRe).join("(.+)")}$`, "s")
  const typed = new RegExp(
    `^${lits.map(escRe).reduce((acc, l, i) => acc + (MULTI.has(slots[i - 1].type) ? "(.+)" : "(\\S+)") + l)}$`,
    "s"
  )
  const gen = () => {
    let out = lits[0]
    slots.forEach((s, i) => {
      const v = (system.vars?.[s.type] ?? T[s.type])(s.arg)
      if (typeof v !== "string" || v.length === 0)
        fail(`slot @{${s.type}} produced an empty value in: ${tpl}`)
      if (!MULTI.has(s.type) && /\s/.test(v)) fail(`single-token slot @{${s.type}} produced "${v}"`)
      out += v + lits[i + 1]
    })
    return out
  }
  return { eventTemplate, loose, typed, gen }
}

function counts(templates) {
  const n = new Array(templates.length).fill(0)
  let left = LINES
  templates.forEach(([w], i) => {
    if (typeof w === "string") {
      n[i] = Number(w.slice(1))
      left -= n[i]
    }
  })
  const free = templates.map(([w], i) => (typeof w === "number" ? i : -1)).filter((i) => i >= 0)
  const total = free.reduce((a, i) => a + templates[i][0], 0)
  for (let k = 0; k < left; k++) {
    let r = rnd() * total
    for (const i of free) {
      r -= templates[i][0]
      if (r < 0) {
        n[i]++
        break
      }
    }
  }
  for (const i of free) {
    // every weighted template appears at least once: take a line from the largest
    if (n[i] === 0) {
      const big = n.indexOf(Math.max(...n))
      n[big]--
      n[i]++
    }
  }
  return n
}

const csvField = (s) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s)

function fail(message) {
  console.error(`generate: ${message}`)
  process.exit(1)
}

mkdirSync(OUT, { recursive: true })
const SELECTED = SET === "dated" ? DATED : SYSTEMS
const names = Object.keys(SELECTED)
names.forEach((name, sysIndex) => {
  const system = SELECTED[name]
  rnd = mulberry32((SEED * 1000003 + sysIndex * 7919) >>> 0)
  pools = new Map()
  const tpls = system.templates.map(([, t]) => compile(system, t))
  if (tpls.length < 15 || tpls.length > 40) fail(`${name}: ${tpls.length} templates (want 15-40)`)
  const seen = new Set()
  for (const t of tpls) {
    if (seen.has(t.eventTemplate)) fail(`${name}: duplicate template ${t.eventTemplate}`)
    seen.add(t.eventTemplate)
  }
  // Static overlap check: template A with its slots filled by a neutral token must not fit B.
  tpls.forEach((a, i) => {
    const probe = a.eventTemplate.split("<*>").join("Zq9")
    tpls.forEach((b, j) => {
      if (i !== j && b.typed.test(probe))
        fail(
          `${name}: template E${i + 1} can be produced by E${j + 1}:\n  ${a.eventTemplate}\n  ${b.eventTemplate}`
        )
    })
  })
  const n = counts(system.templates)
  const lines = []
  tpls.forEach((t, i) => {
    for (let k = 0; k < n[i]; k++) lines.push({ content: t.gen(), event: i })
  })
  for (let i = lines.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1))
    ;[lines[i], lines[j]] = [lines[j], lines[i]]
  }
  // Per-line checks: own template matches with <*> read as "one or more characters"; no other
  // template of the system (slots typed: one token, or several for free-text slots) matches.
  for (const l of lines) {
    const own = tpls[l.event]
    if (!own.loose.test(l.content))
      fail(
        `${name}: content does not match its template E${l.event + 1}:\n  ${l.content}\n  ${own.eventTemplate}`
      )
    if (/[\r\n]/.test(l.content)) fail(`${name}: newline in content: ${l.content}`)
    if (l.content !== l.content.trim()) fail(`${name}: untrimmed content: ${l.content}`)
    tpls.forEach((t, j) => {
      if (j !== l.event && t.typed.test(l.content))
        fail(`${name}: content of E${l.event + 1} also fits E${j + 1}:\n  ${l.content}\n  ${t.eventTemplate}`)
    })
  }
  const rows = ["LineId,Content,EventId,EventTemplate"]
  for (const [k, l] of lines.entries()) {
    rows.push(
      [String(k + 1), l.content, `E${l.event + 1}`, tpls[l.event].eventTemplate].map(csvField).join(",")
    )
  }
  const file = join(OUT, `${name}_2k.log_structured.csv`)
  writeFileSync(file, `${rows.join("\n")}\n`)
  const used = n.filter((c) => c > 0).length
  const rare = n.filter((c) => c > 0 && c <= 3).length
  console.log(
    `${name}: ${lines.length} lines, ${used} templates (${rare} with <=3 lines, top ${Math.max(...n)}) -> ${file}`
  )
})
