// Development redaction corpus: the one the detector is tuned on (the held-out corpus in
// ../heldout is never tuned on). Different seed, templates, key names and contexts.
// Usage: node packages/projectors/test/dev/generate.mjs
import { writeFileSync } from "node:fs"
import { join } from "node:path"

let s = 0xdeb0
const rand = () => {
  s = (s + 0x6d2b79f5) | 0
  let t = Math.imul(s ^ (s >>> 15), 1 | s)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const int = (n) => Math.floor(rand() * n)
const pick = (xs) => xs[int(xs.length)]
const UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
const LO = "abcdefghijklmnopqrstuvwxyz"
const DG = "0123456789"
const HEX = "0123456789abcdef"
const AN = UP + LO + DG
const B64U = `${AN}_-`
const str = (a, n) => Array.from({ length: n }, () => a[int(a.length)]).join("")
const mixed = (a, n) => {
  for (;;) {
    const v = str(a, n)
    if (
      (!/\d/.test(a) || /\d/.test(v)) &&
      (!/[A-Z]/.test(a) || /[A-Z]/.test(v)) &&
      (!/[a-z]/.test(a) || /[a-z]/.test(v))
    )
      return v
  }
}

const TOKENS = [
  () => `glrt-${mixed(B64U, 20)}`,
  () => `dop_v1_${str(HEX, 64)}`,
  () => `hf_${mixed(UP + LO, 34)}`,
  () => `xapp-1-A${str(UP + DG, 10)}-${str(DG, 13)}-${str(HEX, 64)}`,
  () => `shpat_${str(HEX, 32)}`,
  () => `sq0csp-${mixed(B64U, 43)}`,
  () => `pypi-AgEIcHlwaS5vcmc${mixed(B64U, 60)}`,
  () => `glsa_${mixed(AN, 32)}_${str(HEX, 8)}`,
  () => `rk_prod_${mixed(AN, 30)}`,
  () => `ghu_${mixed(AN, 36)}`,
  () => `xoxb-${str(DG, 11)}-${str(DG, 12)}-${mixed(AN, 24)}`,
  () => `sk_test_${mixed(AN, 40)}`,
  () => `AKIA${str(UP + DG, 16)}`,
  () => `npm_${mixed(AN, 36)}`,
  () => `SG.${mixed(B64U, 22)}.${mixed(B64U, 43)}`,
  () => `glpat-${mixed(B64U, 20)}`,
  () => `AIza${mixed(B64U, 35)}`,
  () => `dckr_pat_${mixed(B64U, 27)}`,
  () => `lin_api_${mixed(AN, 40)}`,
  () => `hvs.${mixed(B64U, 90)}`,
  () => `gsk_${mixed(AN, 52)}`,
  () => `shpss_${str(HEX, 32)}`,
  () => `sntrys_eyJpYXQiO${mixed(B64U, 80)}`,
  () => `figd_${mixed(B64U, 40)}`,
  () => `nfp_${mixed(AN, 36)}`,
  () => `ntn_${str(DG, 11)}${mixed(AN, 35)}`
]
const KEYS = [
  "token",
  "db_pass",
  "SECRET_KEY",
  "apiToken",
  "AWS_SECRET_ACCESS_KEY",
  "client-secret",
  "AccessKey",
  "bot_token",
  "PGPASSWORD",
  "auth_token",
  "credentials",
  "private_key",
  "SESSION_SECRET",
  "appKey",
  "password_hash"
]
const val = () =>
  pick([
    () => mixed(AN, 20),
    () => str(HEX, 32),
    () => `${mixed(AN, 9)}#${mixed(AN, 4)}`,
    () => `Spring${2020 + int(9)}!`
  ])()

const out = []
const add = (form, line, secrets, keep = []) => out.push({ form, line, secrets, keep })

for (let i = 0; i < 60; i++) {
  const t = pick(TOKENS)()
  const ctx = pick([
    (x) => `INFO sync job authenticated as ${x}`,
    (x) => `error: remote rejected ${x} (expired?)`,
    (x) => `env CI_TOKEN_OVERRIDE=${x}`,
    (x) => `"cred": "${x}"`,
    (x) => `Using ${x}`
  ])
  add("vendor", ctx(t), [t])
}
const FORMS = [
  ["assign", (k, v) => `${k} := ${v}`],
  ["assign", (k, v) => `${k} ::= "${v}"`],
  ["assign", (k, v) => `:${k} => "${v}"`],
  ["assign", (k, v) => `${k} -> '${v}'`],
  ["assign", (k, v) => `${k}:"${v}"`],
  ["assign", (k, v) => `let ${k} = "${v}";`],
  ["pair", (k, v) => `{"name": "${k}", "value": "${v}"}`],
  ["pair", (k, v) => `{"Key":"${k}","Value":"${v}"}`],
  ["pair", (k, v) => `[{"key": "${k}", "value": "${v}"}]`],
  ["xml", (k, v) => `<${k}>${v}</${k}>`],
  ["xml", (k, v) => `<setting name="${k}" value="${v}"/>`],
  ["xml", (k, v) => `<db ${k}="${v}"/>`],
  ["csv", (k, v) => `'${k}','${v}'`],
  ["csv", (k, v) => `${k};${v};ok`],
  ["yaml", (k, v) => `spec:\n    ${k}: ${v}`],
  ["env", (k, v) => `export ${k.toUpperCase()}=${v}`],
  ["env", (k, v) => `setenv ${k.toUpperCase()} ${v}`],
  ["flag", (k, v) => `java -jar app.jar --${k.toLowerCase()}=${v}`],
  ["header", (_k, v) => `headers: map[X-Api-Key:[${v}]]`],
  ["header", (_k, v) => `Ocp-Apim-Subscription-Key=${v}`],
  ["dsn", (_k, v) => `user:${v}@tcp(mysql.internal:3306)/app`],
  ["url", (k, v) => `next=%2Fhome%3F${k}%3D${v}`],
  ["json", (k, v) => `"data":"{\\"${k}\\":\\"${v}\\"}"`],
  ["shell", (k, v) => `${k.toUpperCase()}='${v.slice(0, 5)}'"'"'${v.slice(5)}'`]
]
for (const [form, fmt] of FORMS) {
  for (let i = 0; i < 8; i++) {
    const k = pick(KEYS)
    const v = val()
    add(form, fmt(k, v), form === "shell" ? [v.slice(0, 5), v.slice(5)] : [v])
  }
}
for (const vendor of [
  "stripe",
  "algolia",
  "pagerduty",
  "honeycomb",
  "opsgenie",
  "statuspage",
  "circleci",
  "travis",
  "snyk",
  "vercel"
]) {
  for (let i = 0; i < 3; i++) {
    const v = pick([() => str(HEX, 32), () => mixed(AN, 28)])()
    add("vendor-name", `${vendor}=${v} configured`, [v], ["configured"])
  }
}
for (let i = 0; i < 6; i++) {
  const pid = String(100 + int(90000))
  add(
    "pid",
    pick([
      `server with PID ${pid} started`,
      `pid: ${pid}`,
      `worker ${pid} booted`,
      `starting as process ${pid}`,
      `${pid}#${pid}: *7 upstream`
    ]),
    [pid]
  )
  const host = `app-${String(int(90)).padStart(2, "0")}`
  add("host", `Jun  3 08:01:02 ${host} kernel: eth0 link up`, [host], ["kernel", "link"])
}
// Second batch (added while tuning): symbol-rich CSV values, shell splices, vendor-name
// separators and flag spellings.
for (let i = 0; i < 6; i++) {
  const v = `${mixed(AN + "!#%&$", 12)}`
  add("csv", `"secret","${v}"`, [v])
  add("csv", `'pwd';'${v}x'`, [`${v}x`])
  const enc = `Qx${mixed(AN, 4)}%2F${mixed(AN, 5)}%3D`
  add("csv", `"db_password","${enc}"`, [enc])
  add("assign", `api_token=${enc} ok`, [enc], ["ok"])
  const a = mixed(AN, 7)
  const b = mixed(AN, 7)
  add("shell", `bash -c 'DB_PASS='"'"'${a}'"'"'${b} ./migrate'`, [a, b])
  add("shell", `--secret '${a}x'"'"'${b}y'`, [`${a}x`, `${b}y`])
  for (const vendor of ["honeybadger", "rollbar", "pusher", "twilio", "mixpanel"]) {
    const v2 = pick([() => str(HEX, 32), () => mixed(AN, 30), () => str(LO + DG, 32)])()
    const f = pick([
      (n, x) => `${n}: ${x}`,
      (n, x) => `"${n}": "${x}"`,
      (n, x) => `${n.toUpperCase()}=${x}`,
      (n, x) => `cfg.${n}=${x}`
    ])
    add("vendor-name", `init ${f(vendor, v2)} done`, [v2], ["done"])
  }
  const v3 = val()
  add("flag", `run.sh -${pick(["pass", "apikey", "secret", "auth-token"])} ${v3} -q`, [v3])
}
const ORD = [
  "llm call prompt_tokens=920 completion_tokens=88",
  "active_sessions=17 idle_sessions=3",
  "trace_id=0af7651916cd43dd8448eb211c80319c span_id=b7ad6b7169203331",
  "certificate rotation scheduled",
  "topic payments.v2-3 lag 40",
  "Authorization: Bearer abc.def.ghi path=/x status=401",
  "cache-token-01:6379 connected",
  "version=1.4.2 build=20260301",
  "took 120ms",
  "tokens used 1200 of 8000",
  "db pool exhausted waiting 30s",
  "user logged out",
  "monkeypatch applied",
  "keyring unlocked for session",
  "passenger count 4",
  'ETag W/"5e8f-17a2" matched',
  "x-request-id: 7f3e2a10-1c2d-4e5f-8a9b-0c1d2e3f4a5b",
  "jwt verification failed: exp claim in the past",
  "password complexity check passed",
  "secret rotation job finished in 4s"
]
for (const l of ORD)
  add(
    "ordinary",
    l,
    [],
    l
      .split(/\s+/)
      .filter((w) => /^[A-Za-z][A-Za-z_]*:?$/.test(w) || /_tokens=|_sessions=|path=|status=/.test(w))
      .map((w) => w.replace(/:$/, ""))
  )

// ---- passwords given to command-line tools (tuning lines for the command table, Dec 1) ----
const q = (v) => pick([v, `'${v}'`, `"${v}"`])
const cliValue = () => pick([() => mixed(AN, 12), () => `${mixed(LO + DG, 8)}_${mixed(UP + DG, 5)}`])()
const CLI = [
  (v) => `sshpass -p ${q(v)} scp build.tgz ops@jump:/tmp`,
  (v) => `sshpass -p${v} rsync -a dist/ web:/srv`,
  (v) => `docker login registry.gitlab.com -u gitlab-ci-token -p ${v}`,
  (v) => `redis-cli -a ${q(v)} info replication`,
  (v) => `redis-cli -n 2 -a ${v} keys 'sess:*'`,
  (v) => `curl -s -u deploy:${q(v)} https://nexus.internal/repository/raw/`,
  (v) => `curl --proxy-user proxy:${v} -x http://proxy:3128 https://example.org`,
  (v) => `mongo admin -u root -p ${q(v)} --eval 'db.serverStatus()'`,
  (v) => `bcp dbo.orders out orders.dat -S sql02 -U loader -P ${v} -c`,
  (v) => `ldapwhoami -x -D uid=svc,ou=apps,dc=corp -w ${q(v)}`,
  (v) => `7z a -p${v} secrets.7z secrets/`,
  (v) => `rpcclient -U admin%${v} 10.1.2.3 -c enumdomusers`,
  (v) => `expdp scott/${v}@orclpdb directory=DUMP dumpfile=s.dmp`,
  (v) => `printf '%s' '${v}' | helm registry login ghcr.io -u bot --password-stdin`
]
for (const fmt of CLI) {
  for (let k = 0; k < 2; k++) {
    const v = cliValue()
    add("cli", fmt(v), [v])
  }
}
const CLI_ORD = [
  ["scp -P 2200 build.tgz ops@jump:/tmp", ["2200"]],
  ["docker run --rm -p 9090:9090 prom/prometheus", ["9090:9090", "prom/prometheus"]],
  ["redis-cli -p 6381 -n 3 dbsize", ["6381", "dbsize"]],
  ["curl -u deploy https://nexus.internal/service/rest/v1/status", ["deploy"]],
  ["mongo --port 27019 admin --eval 'rs.status()'", ["27019", "admin"]],
  ["unzip -o -q release.zip -d /opt/app", ["release.zip"]],
  ["ldapwhoami -x -H ldaps://ldap.corp", ["ldapwhoami"]],
  ["useradd -m -s /bin/bash -p '!' builder", ["builder", "useradd"]],
  ["netstat -anp | grep 8080", ["8080", "netstat"]],
  ["nc -zv db 5432", ["5432"]]
]
for (const [line, keep] of CLI_ORD) add("cli-ordinary", line, [], keep)

// ---- passwords inside SQL and Redis commands, more tools (tuning lines, Dec 1) ---------------
const STATEMENTS = [
  (v) => `GRANT SELECT ON *.* TO 'ro'@'%' IDENTIFIED BY '${v}' WITH GRANT OPTION`,
  (v) => `create user ro identified by ${v} default tablespace users`,
  (v) => `ALTER USER postgres PASSWORD '${v}';`,
  (v) => `SET PASSWORD = PASSWORD('${v}')`,
  (v) => `CREATE USER IF NOT EXISTS 'etl'@'localhost' IDENTIFIED WITH mysql_native_password BY "${v}"`,
  (v) => `1712000000.000001 [3 unix:/run/redis.sock] "AUTH" "${v}"`,
  (v) => `redis 10.0.0.9:6379> AUTH svc ${v}`,
  (v) => `CONFIG SET masterauth "${v}"`,
  (v) => `requirepass "${v}"`,
  (v) => `rabbitmqctl add_user svc_orders "${v}"`,
  (v) => `net user Administrator ${v}`,
  (v) => `printf 'app:${v}\\n' | chpasswd`,
  (v) => `echo ${v} | passwd --stdin app`,
  (v) => `usermod -p ${v} app`
]
for (const fmt of STATEMENTS) {
  for (let k = 0; k < 2; k++) {
    const v = cliValue()
    add("statement", fmt(v), [v])
  }
}
const STATEMENT_ORD = [
  [
    "ERR AUTH <password> called without any password configured for the default user",
    ["configured", "default"]
  ],
  ["CREATE USER statement failed: user already exists", ["already", "exists"]],
  ["requirepass changed, clients must re-authenticate", ["changed", "clients"]],
  ["net user guest /active:no", ["/active:no", "guest"]],
  ["SET PASSWORD requires the UPDATE privilege", ["requires", "privilege"]],
  ["rabbitmqctl delete_user guest", ["delete_user", "guest"]]
]
for (const [line, keep] of STATEMENT_ORD) add("statement-ordinary", line, [], keep)

// ---- SQL literals in account statements (tuning lines, Dec 1) ------------------------------
for (let k = 0; k < 2; k++) {
  const u = `svc${str(LO, 5)}`
  add("sql-literal", `CREATE USER IF NOT EXISTS '${u}'@'%'`, [u])
  add("sql-literal", `GRANT ALL PRIVILEGES ON *.* TO '${u}x'@'localhost' WITH GRANT OPTION`, [`${u}x`])
  add("sql-literal", `REVOKE INSERT ON app.* FROM '${u}y'@'%'`, [`${u}y`])
  add("sql-literal", `RENAME USER '${u}z'@'%' TO 'ops_${u}'@'%'`, [`${u}z`, `ops_${u}`])
  add("sql-literal", `ALTER USER '${u}w'@'%' PASSWORD EXPIRE INTERVAL 90 DAY`, [`${u}w`])
  add("sql-literal", `merge into t using s on (t.k = s.k) when not matched then insert values ('${u}v')`, [
    `${u}v`
  ])
}
for (const [line, keep] of [
  ["revoke list holds 5 tokens", ["5", "tokens"]],
  ["rename user profile field after 2 attempts", ["2", "attempts"]],
  ["create user journey dashboards for 3 teams", ["3", "teams"]]
])
  add("sql-literal-ordinary", line, [], keep)

// ---- quoted value after a secret key word (tuning lines, Dec 1) -----------------------------
for (let k = 0; k < 3; k++) {
  const v = mixed(AN, 22)
  add("quoted-after-key-word", `auth ok: api token '${v}' accepted`, [v])
  const w = mixed(AN, 17)
  add("quoted-after-key-word", `client secret "${w}"`, [w])
}
add(
  "quoted-after-key-word-ordinary",
  'secret "payments-tls" synced to namespace shop',
  [],
  ["payments-tls", "namespace"]
)
add("quoted-after-key-word-ordinary", "token 'EOF' unexpected in config", [], ["EOF", "unexpected"])

// ---- host names in path positions (tuning lines, Dec 1) -------------------------------------
for (let k = 0; k < 2; k++) {
  const a = `dc${str(DG, 2)}`
  add("host-position", `GPO read from \\\\${a}\\SYSVOL\\corp.local\\Policies failed`, [a])
  const b = `files${str(DG, 2)}`
  add("host-position", `smbclient //${b}/public -U guest%`, [b])
  const c = `db${str(DG, 1)}-replica`
  add("host-position", `rsync -az /var/backups/ backup@${c}:/srv/backups/`, [c])
}
add("host-position-ordinary", "ratio 1//2 rounded", [], ["rounded"])
add("host-position-ordinary", "path \\\\?\\C:\\long\\path accepted", [], ["accepted"])

const file = join(import.meta.dirname, "corpus.jsonl")
writeFileSync(file, out.map((c, i) => JSON.stringify({ id: i, ...c })).join("\n") + "\n")
console.log(`wrote ${out.length} lines to ${file}`)
