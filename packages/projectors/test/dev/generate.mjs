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
/** Fixed lines, one secret each: `[form, line, secret]`. */
const addRows = (rows) => {
  for (const [form, line, secret] of rows) add(form, line, [secret])
}
/** Fixed lines with no secret and the strings that must stay: `[line, keep]`. */
const addKeeps = (form, rows) => {
  for (const [line, keep] of rows) add(form, line, [], keep)
}

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
addKeeps("sql-literal-ordinary", [
  ["revoke list holds 5 tokens", ["5", "tokens"]],
  ["rename user profile field after 2 attempts", ["2", "attempts"]],
  ["create user journey dashboards for 3 teams", ["3", "teams"]]
])

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

// Two blind batches (Dec 1) that found the YAML tag, foreign-language, quoted passphrase, one-time
// code, credential pair and HMAC gaps: tuned on since.
addRows([
  [
    "batch:dec1",
    "ssh-ed25519 private: -----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACBkZXZfa2V5X29ubHlfZm9yX3Rlc3RzX25vdF9yZWFs\\n-----END OPENSSH PRIVATE KEY-----",
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQy"
  ],
  [
    "batch:dec1",
    "connecting with mongodb+srv://svc_orders:Xk9#mP2vL8qR@cluster0.ab12c.mongodb.net/orders?retryWrites=true",
    "Xk9#mP2vL8qR"
  ],
  ["batch:dec1", "amqp://guest:Rb7TqW2nZp@rabbit-prod:5672/vhost", "Rb7TqW2nZp"],
  ["batch:dec1", "JDBC url jdbc:mysql://db1:3306/shop?user=app&password=Tz8vQm2Lp9xW", "Tz8vQm2Lp9xW"],
  [
    "batch:dec1",
    "jdbc:sqlserver://sql01:1433;databaseName=Shop;user=sa;password=Qw3rTy7UiOp9;",
    "Qw3rTy7UiOp9"
  ],
  [
    "batch:dec1",
    "Server=tcp:shop.database.windows.net,1433;Initial Catalog=shop;User ID=admin;Password=Lm4Nb8Vc2Xz6;",
    "Lm4Nb8Vc2Xz6"
  ],
  [
    "batch:dec1",
    "DefaultEndpointsProtocol=https;AccountName=shopstore;AccountKey=q2W3e4R5t6Y7u8I9o0P1a2S3d4F5g6H7j8K9l0Z1x2C3v4B5n6M7q8W9e0R1t2Y3u4I5o6P7a8S9d0F1g2==;EndpointSuffix=core.windows.net",
    "q2W3e4R5t6Y7u8I9o0P1a2S3d4F5g6H7j8K9l0Z1x2C3v4B5n6M7q8W9e0R1t2Y3u4I5o6P7a8S9d0F1g2=="
  ],
  [
    "batch:dec1",
    "https://shopstore.blob.core.windows.net/c/file.csv?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-31&sig=Zk3pQ9vL2mN8xR4tW7yB1cD5fG0hJ6kM3nP9qS2uV4w%3D",
    "Zk3pQ9vL2mN8xR4tW7yB1cD5fG0hJ6kM3nP9qS2uV4w"
  ],
  [
    "batch:dec1",
    "presigned https://bucket.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAQ3EGUOAB7EXAMPLE%2F20261201%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=4f1c3a9e8b7d6c5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a",
    "4f1c3a9e8b7d6c5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a"
  ],
  [
    "batch:dec1",
    '"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\\n-----END PRIVATE KEY-----\\n", "client_email": "svc@proj.iam.gserviceaccount.com"',
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
  ],
  [
    "batch:dec1",
    "Cookie: session_id=9f8e7d6c5b4a39281706f5e4d3c2b1a0; theme=dark",
    "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
  ],
  [
    "batch:dec1",
    "Set-Cookie: JSESSIONID=8A3F5C2E9B1D7F4A6C0E2B8D5F1A3C7E; Path=/; HttpOnly",
    "8A3F5C2E9B1D7F4A6C0E2B8D5F1A3C7E"
  ],
  ["batch:dec1", "X-Auth-Token: 7d9f2a4c6e8b0d1f3a5c7e9b2d4f6a8c", "7d9f2a4c6e8b0d1f3a5c7e9b2d4f6a8c"],
  ["batch:dec1", "Proxy-Authorization: Basic YWRtaW46U3VwM3JTM2NyM3Q=", "YWRtaW46U3VwM3JTM2NyM3Q="],
  [
    "batch:dec1",
    "vault login token=hvs.CAESIJ3kQmZ8pL2vN7xR9tW4yB6cD1fG5hJ0kM8nP3qS2uV7",
    "hvs.CAESIJ3kQmZ8pL2vN7xR9tW4yB6cD1fG5hJ0kM8nP3qS2uV7"
  ],
  [
    "batch:dec1",
    "export KUBECONFIG_TOKEN=eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50In0.c2lnbmF0dXJlX25vdF9yZWFsX2Zvcl90ZXN0aW5n",
    "c2lnbmF0dXJlX25vdF9yZWFsX2Zvcl90ZXN0aW5n"
  ],
  [
    "batch:dec1",
    "client_secret: 8Q~xYz1AbC2dEf3GhI4jKl5MnO6pQr7StU8vWx",
    "8Q~xYz1AbC2dEf3GhI4jKl5MnO6pQr7StU8vWx"
  ],
  ["batch:dec1", "--set auth.rootPassword=Hj6Kl9Mn2Bv5 --set image.tag=7.0", "Hj6Kl9Mn2Bv5"],
  ["batch:dec1", "helm install x --set-string postgresql.auth.password='Pq8Wr3Et6Ty1'", "Pq8Wr3Et6Ty1"],
  ["batch:dec1", "mysqldump -uroot -pSq1Lp4Ss9Wd shop > dump.sql", "Sq1Lp4Ss9Wd"],
  ["batch:dec1", "PGPASSWORD=Pg7Xw2Qz5Lm psql -h db -U app shop", "Pg7Xw2Qz5Lm"],
  ["batch:dec1", 'psql "host=db user=app password=Ab3Cd6Ef9Gh dbname=shop"', "Ab3Cd6Ef9Gh"],
  ["batch:dec1", "wget --http-user=deploy --http-password=Wg4Et7Ht0Pq https://x/y", "Wg4Et7Ht0Pq"],
  [
    "batch:dec1",
    "git clone https://oauth2:glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn@gitlab.example.com/g/r.git",
    "glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn"
  ],
  [
    "batch:dec1",
    "git clone https://x-access-token:ghs_16C7e42F292c6912E7710c838347Ae178B4a@github.com/o/r",
    "ghs_16C7e42F292c6912E7710c838347Ae178B4a"
  ],
  [
    "batch:dec1",
    "pip install --index-url https://__token__:pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0@pypi.example/simple pkg",
    "pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0"
  ],
  [
    "batch:dec1",
    "//registry.npmjs.org/:_authToken=npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2",
    "npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"
  ],
  [
    "batch:dec1",
    '"auths":{"registry.example.com":{"auth":"ZGVwbG95OlJlZzFzdHJ5UGFzcw=="}}',
    "ZGVwbG95OlJlZzFzdHJ5UGFzcw=="
  ],
  ["batch:dec1", "smtp: user=alerts@example.com pass=Sm7Tp2Ps5Wd", "Sm7Tp2Ps5Wd"],
  ["batch:dec1", "login failed for user bob with password 'Hunter2Hunter2'", "Hunter2Hunter2"],
  ["batch:dec1", "passwd=Pw9Xz3Qa6 retries=3", "Pw9Xz3Qa6"],
  [
    "batch:dec1",
    "secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
  ],
  [
    "batch:dec1",
    "aws_session_token=IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQDexampletokenvalue1234567890abcdef",
    "IQoJb3JpZ2luX2VjEJr"
  ],
  [
    "batch:dec1",
    "SLACK_WEBHOOK=https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "XXXXXXXXXXXXXXXXXXXXXXXX"
  ],
  [
    "batch:dec1",
    "https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz01",
    "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEf"
  ],
  [
    "batch:dec1",
    'api_key: "sk-proj-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3"',
    "sk-proj-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3"
  ],
  ["batch:dec1", 'Authorization: Token token="Tk5Lm8Np1Qr4St7Uv0"', "Tk5Lm8Np1Qr4St7Uv0"],
  [
    "batch:dec1",
    'Authorization: Digest username="app", realm="x", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", response="6629fae49393a05397450978507c4ef1"',
    "6629fae49393a05397450978507c4ef1"
  ],
  [
    "batch:dec1",
    "?access_token=EAAGm0PX4ZCpsBAKZCZAZBz3example0token0value0123",
    "EAAGm0PX4ZCpsBAKZCZAZBz3example0token0value0123"
  ],
  ["batch:dec1", "redis://:Rd5Ps8Wd1Xy@cache-prod:6379/0", "Rd5Ps8Wd1Xy"],
  ["batch:dec1", "ldap://cn=admin,dc=example,dc=org:Ld7Ap2Pw9@ldap01:389", "Ld7Ap2Pw9"],
  ["batch:dec1", "-Djavax.net.ssl.keyStorePassword=Ks4Pw7Sd0Lm -Xmx2g", "Ks4Pw7Sd0Lm"],
  ["batch:dec1", "spring.datasource.password=Sp3Ds6Pw9Qx", "Sp3Ds6Pw9Qx"],
  ["batch:dec1", "<password>Mv2Np5Qr8St</password>", "Mv2Np5Qr8St"],
  ["batch:dec1", "password: !!binary UGFzc3dvcmQxMjM0NTY=", "UGFzc3dvcmQxMjM0NTY="],
  ["batch:dec1", 'level=info msg="using credentials" user=deploy password="Qz8!mW3#pL"', "Qz8!mW3#pL"],
  [
    "batch:dec1",
    '{"level":"debug","event":"auth","headers":{"authorization":"Bearer ya29.a0AfH6SMBxExampleTokenValue1234567890"}}',
    "ya29.a0AfH6SMBxExampleTokenValue1234567890"
  ],
  ["batch:dec1", '{"db":{"user":"app","pass":"Nv5Bq8Wx2Kz"}}', "Nv5Bq8Wx2Kz"],
  [
    "batch:dec1",
    'curl -H "X-API-KEY: 3f9a7c1e5b2d8f4a6c0e9b7d5f3a1c8e" https://api.example.com',
    "3f9a7c1e5b2d8f4a6c0e9b7d5f3a1c8e"
  ],
  [
    "batch:dec1",
    "curl -H 'PRIVATE-TOKEN: glpat-Zx9Yw8Vu7Ts6Rq5Po4Nm' https://gitlab/api",
    "glpat-Zx9Yw8Vu7Ts6Rq5Po4Nm"
  ],
  [
    "batch:dec1",
    "the api key is 9c2f7e1a4b8d3f6a0e5c9b2d7f1a4e8c, rotate it",
    "9c2f7e1a4b8d3f6a0e5c9b2d7f1a4e8c"
  ],
  [
    "batch:dec1",
    'used passphrase "correct horse battery staple" for the keystore',
    "correct horse battery staple"
  ],
  ["batch:dec1", 'MYSQL_ROOT_PASSWORD: "R0otPw!2026"', "R0otPw!2026"],
  ["batch:dec1", '- name: DB_PASSWORD\\n  value: "Kd8Lm3Np6Qr"', "Kd8Lm3Np6Qr"],
  ["batch:dec1", "env: [{name: API_TOKEN, value: Tq4Wr7Ey0Ui}]", "Tq4Wr7Ey0Ui"],
  ["batch:dec1", "docker run -e POSTGRES_PASSWORD=Ps6Gr9Ql2Xw postgres:16", "Ps6Gr9Ql2Xw"],
  ["batch:dec1", "kubectl create secret generic db --from-literal=password=Kc3Vb6Nm9Qw", "Kc3Vb6Nm9Qw"],
  ["batch:dec1", "echo 'cGFzc3dvcmQ9U3VwM3JTM2NyM3Q=' | base64 -d", "cGFzc3dvcmQ9U3VwM3JTM2NyM3Q="],
  [
    "batch:dec1",
    "Received webhook with signature sha256=5d41402abc4b2a76b9719d911017c592ae8f2b1c3d4e5f60718293a4b5c6d7e8",
    "5d41402abc4b2a76b9719d911017c592ae8f2b1c3d4e5f60718293a4b5c6d7e8"
  ],
  ["batch:dec1", "OTP code 482913 sent to user", "482913"],
  [
    "batch:dec1",
    "reset link https://app.example.com/reset?token=Rt7Yu2Io5Pa8Sd1Fg4Hj",
    "Rt7Yu2Io5Pa8Sd1Fg4Hj"
  ],
  [
    "batch:dec1",
    "https://app.example.com/callback#access_token=At3Ks6Lp9Qw2Er5Ty8Ui&token_type=bearer",
    "At3Ks6Lp9Qw2Er5Ty8Ui"
  ],
  ["batch:dec1", "password%3DPe4Rc7Nt0Xq%26user%3Dbob", "Pe4Rc7Nt0Xq"],
  ["batch:dec1", "user:bob pass:Bp5Qs8Tu1Vw", "Bp5Qs8Tu1Vw"],
  ["batch:dec1", "credentials bob/Cr9Ed2Nt5Ls for the ftp drop", "Cr9Ed2Nt5Ls"],
  ["batch:dec1", "ftp://backup:Fb3Kp6Up9Zx@ftp.example.com/dumps", "Fb3Kp6Up9Zx"],
  ["batch:dec1", "sftp user backup password Sf4Tp7Pw0Qr", "Sf4Tp7Pw0Qr"],
  [
    "batch:dec1",
    '"apiKey":"AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"',
    "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
  ],
  ["batch:dec1", "stripe.api_key = 'rk_live_51HxYzAbCdEfGhIjKlMnOpQr'", "rk_live_51HxYzAbCdEfGhIjKlMnOpQr"],
  ["batch:dec1", "TWILIO_AUTH_TOKEN=4c8f2a6e0b9d7f3a5c1e8b4d2f6a0c9e", "4c8f2a6e0b9d7f3a5c1e8b4d2f6a0c9e"],
  [
    "batch:dec1",
    "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnX2V4YW1wbGVfdmFsdWVfMTIzNDU2",
    "c2lnX2V4YW1wbGVfdmFsdWVfMTIzNDU2"
  ],
  ["batch:dec1", "secret=Sc/7+Kp2=Wq9", "Sc/7+Kp2=Wq9"],
  ["batch:dec1", "pwd='P@$$w0rd!'", "P@$$w0rd!"],
  ["batch:dec1", '"password" : "with spaces inside 2026"', "with spaces inside 2026"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell default in a config line, not a template
  ["batch:dec1", "password = ${DB_PASS:-Df3Lt6Pw9Xz}", "Df3Lt6Pw9Xz"],
  ["batch:dec1", "jdbc:postgresql://db:5432/shop?user=app&password=Jp8Gq1Rs4Tv&ssl=true", "Jp8Gq1Rs4Tv"],
  ["batch:dec1", "mongodb://admin:Mg2Db5Ad8Qw@mongo-0.mongo:27017/?authSource=admin", "Mg2Db5Ad8Qw"],
  [
    "batch:dec1",
    "Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261201/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024",
    "fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024"
  ],
  [
    "batch:dec1",
    "aws configure set aws_secret_access_key Wj4Kl7Mn0Pq3Rs6Tu9Vw2Xy5Za8Bc1De4Fg7Hi0",
    "Wj4Kl7Mn0Pq3Rs6Tu9Vw2Xy5Za8Bc1De4Fg7Hi0"
  ],
  [
    "batch:dec1",
    "gcloud auth activate-service-account --key-file=/tmp/k.json; private_key_id: 8f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e",
    "8f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e"
  ],
  [
    "batch:dec1",
    'ssh -i ~/.ssh/id_rsa -o "ProxyCommand sshpass -p Sh5Pr8Ox1Yq ssh jump" host',
    "Sh5Pr8Ox1Yq"
  ],
  ["batch:dec1", "mysql --password=My6Sq9Lp2Wd -h db", "My6Sq9Lp2Wd"],
  ["batch:dec1", "PASSWORD: Cap5Lk8Pw1Zx", "Cap5Lk8Pw1Zx"],
  ["batch:dec1", "Passwort: Gr3Mn6Pw9Xy", "Gr3Mn6Pw9Xy"],
  ["batch:dec1", "mot de passe: Fr4Mo7Dp0Zq", "Fr4Mo7Dp0Zq"],
  ["batch:dec1", "contraseña=Es5Co8Nt1Ra", "Es5Co8Nt1Ra"],
  ["batch:dec1", "密码: Zh6Mi9Ma2Qw", "Zh6Mi9Ma2Qw"]
])

// A third blind batch (Dec 1): found the `pw` key, code literals, auth pairs and `openssl -k`; tuned on since.
// (`db.connect("postgres", "app", "X")`, a positional password with no key word, is left out.)
addRows([
  ["batch:dec1b", 'WARN  [auth] bad login for "ops" (pw=Lw3Ks8Qa1Zp)', "Lw3Ks8Qa1Zp"],
  [
    "batch:dec1b",
    "2026-12-01T10:00:00Z app[web.1]: DATABASE_URL=postgres://u8a9:p4ss5W0rdX@ec2-1-2-3-4.compute-1.amazonaws.com:5432/d1",
    "p4ss5W0rdX"
  ],
  ["batch:dec1b", "Using api-key: 5f4dcc3b5aa765d61d8327deb882cf99", "5f4dcc3b5aa765d61d8327deb882cf99"],
  ["batch:dec1b", "Connecting to broker with sasl.password=Kf6Sa9Sl2Pw", "Kf6Sa9Sl2Pw"],
  [
    "batch:dec1b",
    'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="app" password="Kj4Aa7Ss0Cf";',
    "Kj4Aa7Ss0Cf"
  ],
  ["batch:dec1b", "ssl.key.password = Sk5Ey8Pw1Qx", "Sk5Ey8Pw1Qx"],
  [
    "batch:dec1b",
    '{"type":"service_account","private_key_id":"1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b","private_key":"-----BEGIN PRIVATE KEY-----\\\\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASC\\\\n-----END PRIVATE KEY-----\\\\n"}',
    "MIIEvgIBADANBgkqhkiG9w0BAQEFAASC"
  ],
  ["batch:dec1b", "[client]\\npassword=My7Cn0Fg3Qz\\nuser=root", "My7Cn0Fg3Qz"],
  [
    "batch:dec1b",
    "machine api.heroku.com login me@example.com password 7c4a8d09ca3762af61e59520943dc26494f8941b",
    "7c4a8d09ca3762af61e59520943dc26494f8941b"
  ],
  ["batch:dec1b", "auth: { user: 'mailer', pass: 'Ml8Pr3Ss6Wx' }", "Ml8Pr3Ss6Wx"],
  ["batch:dec1b", "new Client({ password: process.env.X || 'Fb9Ck2Pw5Lm' })", "Fb9Ck2Pw5Lm"],
  ["batch:dec1b", "createConnection({host:'db',user:'root',password:'Cr1Cn4Pw7Qy'})", "Cr1Cn4Pw7Qy"],
  ["batch:dec1b", "requests.get(url, auth=('admin', 'Rq2Au5Th8Zx'))", "Rq2Au5Th8Zx"],
  ["batch:dec1b", 'HTTPBasicAuth("svc", "Hb3As6Ic9Wy")', "Hb3As6Ic9Wy"],
  [
    "batch:dec1b",
    'conn = psycopg2.connect(dbname="shop", user="app", password="Pg0Ps3Cn6Vt")',
    "Pg0Ps3Cn6Vt"
  ],
  ["batch:dec1b", "ansible_become_pass: Ab4Bp7Ss0Qw", "Ab4Bp7Ss0Qw"],
  [
    "batch:dec1b",
    "ansible-vault view --vault-password-file=/x secrets.yml; vault_pass=Av5Lt8Pw1Ex",
    "Av5Lt8Pw1Ex"
  ],
  ["batch:dec1b", 'terraform apply -var "db_password=Tf6Va9Rp2Wd"', "Tf6Va9Rp2Wd"],
  ["batch:dec1b", "TF_VAR_admin_password=Tv7Ar0Ad3Mn", "Tv7Ar0Ad3Mn"],
  [
    "batch:dec1b",
    "git config --global credential.helper store; https://bob:Gc8Rd1St4Ze@git.example.com",
    "Gc8Rd1St4Ze"
  ],
  ["batch:dec1b", "[Credential]\\nusername = bob\\npassword = Wc9Rd2Pw5Nx", "Wc9Rd2Pw5Nx"],
  ["batch:dec1b", "keytool -genkey -storepass Kt0St3Pw6Ry -keypass Kp1Ss4Pw7Tz", "Kt0St3Pw6Ry"],
  ["batch:dec1b", "openssl pkcs12 -export -passout pass:Os2Pk5Ex8Ua -out x.p12", "Os2Pk5Ex8Ua"],
  ["batch:dec1b", "openssl enc -aes-256-cbc -k Oe3Nc6Kk9Vb -in a", "Oe3Nc6Kk9Vb"],
  ["batch:dec1b", "gpg --batch --passphrase Gp4Bt7Ch0Wc -d x.gpg", "Gp4Bt7Ch0Wc"],
  ["batch:dec1b", "unzip -P Uz5Ip8Pw1Xd a.zip", "Uz5Ip8Pw1Xd"],
  ["batch:dec1b", "rclone config: pass = Rc6Ln9Ps2Ye", "Rc6Ln9Ps2Ye"],
  ["batch:dec1b", "s3cmd --secret_key=S3c7Md0Sk3Zf ls", "S3c7Md0Sk3Zf"],
  ["batch:dec1b", "az storage blob list --account-key Az8Ac1Ky4Ag==", "Az8Ac1Ky4Ag=="],
  ["batch:dec1b", "export VAULT_TOKEN=s.Vt9Ok2En5Bh7Ck0Dl3Em", "s.Vt9Ok2En5Bh7Ck0Dl3Em"],
  [
    "batch:dec1b",
    "export GITHUB_TOKEN=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV",
    "github_pat_11ABCDEFG0123456789_abcdefghij"
  ],
  ["batch:dec1b", "glpat-Xy7Zw3Vu9Ts1Rq5Po2Nm in CI logs", "glpat-Xy7Zw3Vu9Ts1Rq5Po2Nm"],
  [
    "batch:dec1b",
    "Found key AKIA2OGYBAH6STMMNXNN with secret 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",
    "2p6Zm9Qr4Vx8Ty1Bn5Mc3Lk7Jh0Gf2Ds6Ap9Wx4E"
  ],
  ["batch:dec1b", "dd_api_key: 0a1b2c3d4e5f60718293a4b5c6d7e8f9", "0a1b2c3d4e5f60718293a4b5c6d7e8f9"],
  [
    "batch:dec1b",
    "NEW_RELIC_LICENSE_KEY=eu01xx0a1b2c3d4e5f60718293a4b5c6d7e8NRAL",
    "eu01xx0a1b2c3d4e5f60718293a4b5c6d7e8NRAL"
  ],
  [
    "batch:dec1b",
    "sentry dsn https://0a1b2c3d4e5f60718293a4b5c6d7e8f9@o123.ingest.sentry.io/456",
    "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
  ],
  ["batch:dec1b", "pusher://app_key:Pu0Sh3Er6Sc@api.pusherapp.com/apps/1", "Pu0Sh3Er6Sc"],
  [
    "batch:dec1b",
    "encryption_key=base64:Zx1Cv2Bn3Mm4Ll5Kk6Jj7Hh8Gg9Ff0Dd1Ss2Aa3Qq4W=",
    "Zx1Cv2Bn3Mm4Ll5Kk6Jj7Hh8Gg9Ff0Dd1Ss2Aa3Qq4W="
  ],
  [
    "batch:dec1b",
    "APP_KEY=base64:Lk8Jh7Gf6Ds5Ap4Oi3Uy2Tr1Ew0Qz9Xc8Vb7Nm6Ml5=",
    "Lk8Jh7Gf6Ds5Ap4Oi3Uy2Tr1Ew0Qz9Xc8Vb7Nm6Ml5="
  ],
  [
    "batch:dec1b",
    "rails secret_key_base: 8f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a6978",
    "8f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a6978"
  ],
  [
    "batch:dec1b",
    "DJANGO_SECRET_KEY='django-insecure-q9w8e7r6t5y4u3i2o1p0a9s8d7f6g5h4j3k2l1'",
    "django-insecure-q9w8e7r6t5y4u3i2o1p0a9s8d7f6g5h4j3k2l1"
  ],
  ["batch:dec1b", "JWT_SECRET=Js4Wt7Sc0Rt3Qp6Ns9Lm2", "Js4Wt7Sc0Rt3Qp6Ns9Lm2"],
  ["batch:dec1b", "webhook secret whsec_Wh5Sc8Rt1Yz4Xa7Bc0De3Fg", "whsec_Wh5Sc8Rt1Yz4Xa7Bc0De3Fg"],
  ["batch:dec1b", "cookie: remember_token=Rm6Tk9Tn2Ca5Db8Ec1Fd; path=/", "Rm6Tk9Tn2Ca5Db8Ec1Fd"]
])

// A blind batch of SQL-bearing lines (Dec 1): found bound values and dollar quotes; tuned on since.
addRows([
  [
    "batch:dec1-sql",
    "# Query_time: 2.3 SELECT * FROM users WHERE email = 'alice@example.com' AND status='active'",
    "alice@example.com"
  ],
  [
    "batch:dec1-sql",
    "slow query: select id from orders where customer_name like '%Smith%' limit 10",
    "Smith"
  ],
  [
    "batch:dec1-sql",
    "Executing: UPDATE accounts SET balance = 1000 WHERE iban = 'DE89370400440532013000'",
    "DE89370400440532013000"
  ],
  [
    "batch:dec1-sql",
    "statement: INSERT INTO payments (card, amount) VALUES ('4111111111111111', 12.50)",
    "4111111111111111"
  ],
  [
    "batch:dec1-sql",
    "ERROR 1062 (23000): Duplicate entry 'bob@corp.io' for key 'users.email'",
    "bob@corp.io"
  ],
  [
    "batch:dec1-sql",
    "LOG:  duration: 1500 ms  statement: SELECT * FROM patients WHERE ssn = '123-45-6789'",
    "123-45-6789"
  ],
  ["batch:dec1-sql", "DETAIL:  Key (email)=(carol@example.org) already exists.", "carol@example.org"],
  ["batch:dec1-sql", 'Query: DELETE FROM sessions WHERE token = "abc123def456ghi789"', "abc123def456ghi789"],
  ["batch:dec1-sql", "select * from t where name = N'Müller' and city = 'Zürich'", "Müller"],
  [
    "batch:dec1-sql",
    "WITH x AS (SELECT * FROM users WHERE phone = '+1-555-0100') SELECT * FROM x",
    "+1-555-0100"
  ],
  ["batch:dec1-sql", "SELECT id FROM users WHERE name IN ('Dave', 'Erin', 'Frank')", "Erin"],
  [
    "batch:dec1-sql",
    "SELECT * FROM orders WHERE created_at > '2026-11-30' AND note = 'call me at 555 0199'",
    "call me at 555 0199"
  ],
  [
    "batch:dec1-sql",
    "Hibernate: select u.id from users u where u.username=? [binding parameter [1] as [VARCHAR] - [gwen.stacy]]",
    "gwen.stacy"
  ],
  ["batch:dec1-sql", "sql: SELECT * FROM users WHERE address = $$221B Baker Street$$", "221B Baker Street"],
  [
    "batch:dec1-sql",
    "update users set password_hash = '$2b$12$KIXQJ4p1b8y7x6w5v4u3tO' where id = 7",
    "$2b$12$KIXQJ4p1b8y7x6w5v4u3tO"
  ]
])

// A blind batch of network identities (Dec 1): found tcpdump's address.port; tuned on since.
addRows([
  ["batch:dec1-net", "upstream timed out connecting to 172.16.4.21:8080", "172.16.4.21"],
  ["batch:dec1-net", "dial tcp [2001:db8::1]:443: connect: connection refused", "2001:db8::1"],
  ["batch:dec1-net", "resolved payments.internal.corp to 10.1.1.1", "payments.internal.corp"],
  [
    "batch:dec1-net",
    "GET http://inventory-svc.prod.svc.cluster.local:8080/items 503",
    "inventory-svc.prod.svc.cluster.local"
  ],
  [
    "batch:dec1-net",
    "ssh: connect to host bastion-03.eu-west-1.compute.internal port 22: Connection timed out",
    "bastion-03.eu-west-1.compute.internal"
  ],
  ["batch:dec1-net", "X-Forwarded-For: 203.0.113.7, 198.51.100.23", "203.0.113.7"],
  ["batch:dec1-net", "client 192.0.2.44#53211: query: example.com IN A", "192.0.2.44"],
  ["batch:dec1-net", "peer=db-replica-2 lag=12s", "db-replica-2"],
  ["batch:dec1-net", "Connecting to mysql-primary.shop.svc:3306", "mysql-primary.shop.svc"],
  [
    "batch:dec1-net",
    "kafka broker kafka-1.kafka-headless.default.svc.cluster.local:9092 unreachable",
    "kafka-1.kafka-headless.default.svc.cluster.local"
  ],
  ["batch:dec1-net", 'remote_addr=100.64.12.9 request="GET /"', "100.64.12.9"],
  ["batch:dec1-net", "tcpdump: 10.2.3.4.51512 > 10.2.3.5.443: Flags [S]", "10.2.3.4"],
  ["batch:dec1-net", "node ip-10-0-12-34.ec2.internal NotReady", "ip-10-0-12-34"],
  ["batch:dec1-net", "src=fe80::1ff:fe23:4567:890a%eth0", "fe80::1ff:fe23:4567:890a"],
  ["batch:dec1-net", "Redis master at redis-master-0.redis:6379 is down", "redis-master-0.redis"],
  ["batch:dec1-net", "nameserver 8.8.8.8 failed", "8.8.8.8"],
  ["batch:dec1-net", "connect ECONNREFUSED ::ffff:127.0.0.1:5432", "127.0.0.1"],
  ["batch:dec1-net", "jdbc:postgresql://pg-ha.db.example.net:5432/app timeout", "pg-ha.db.example.net"],
  ["batch:dec1-net", "smtp relay mail01.corp.example.com rejected", "mail01.corp.example.com"],
  ["batch:dec1-net", "hostname=web-7f9c4 pid=1234", "web-7f9c4"]
])

// A fourth blind batch (Dec 1): found YAML block scalars, Sentinel's auth-pass and HTML entities; tuned on since.
addRows([
  [
    "batch:dec1c",
    '2026-12-01 10:00:00 DEBUG HttpClient - >> "Authorization: Basic dXNlcjpQYXNzdzByZCE=[\\r][\\n]"',
    "dXNlcjpQYXNzdzByZCE="
  ],
  ["batch:dec1c", 'wire: >> "Cookie: sid=s%3AAbCdEf12345.XyZsignature789[\\r][\\n]"', "AbCdEf12345"],
  [
    "batch:dec1c",
    "redirecting to https://idp.example.com/callback?code=4/0AfJohXk9Lm2Np3Qr4St5Uv6Wx7Yz&state=xyz",
    "4/0AfJohXk9Lm2Np3Qr4St5Uv6Wx7Yz"
  ],
  [
    "batch:dec1c",
    "grpc metadata: authorization=[Bearer eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.Zm9vYmFyYmF6]",
    "Zm9vYmFyYmF6"
  ],
  [
    "batch:dec1c",
    "env: AWS_SECRET_ACCESS_KEY=je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
    "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY"
  ],
  ["batch:dec1c", "kubectl get secret db -o yaml -> data: password: cGFzc3dvcmQxMjM=", "cGFzc3dvcmQxMjM="],
  [
    "batch:dec1c",
    '"env":[{"name":"STRIPE_KEY","value":"sk_live_51Hq2W3e4R5t6Y7u8I9o0PaSdFgHjKl"}]',
    "sk_live_51Hq2W3e4R5t6Y7u8I9o0PaSdFgHjKl"
  ],
  [
    "batch:dec1c",
    "Connection string: Host=pg;Username=app;Password=Np4Gs7Ql0Wz;Database=shop",
    "Np4Gs7Ql0Wz"
  ],
  ["batch:dec1c", "Data Source=db;User Id=sa;Pwd=Sq9Ls2Rv5Tx;", "Sq9Ls2Rv5Tx"],
  ["batch:dec1c", "redis-sentinel auth-pass mymaster Rs3Nt6Ln9Qp", "Rs3Nt6Ln9Qp"],
  ["batch:dec1c", "nats://svc:Nt7Sv0Cr3Ds@nats:4222", "Nt7Sv0Cr3Ds"],
  ["batch:dec1c", "elasticsearch: http://elastic:El4St7Cs0Ea@es01:9200", "El4St7Cs0Ea"],
  ["batch:dec1c", "SMTP AUTH PLAIN AGFsZXJ0cwBTbXRwUGFzczEyMw==", "AGFsZXJ0cwBTbXRwUGFzczEyMw=="],
  [
    "batch:dec1c",
    '"Authorization": ["AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261201/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"]',
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
  ],
  [
    "batch:dec1c",
    "x-amz-security-token: FwoGZXIvYXdzEBYaDExampleSessionTokenValue1234567890abcdefghij",
    "FwoGZXIvYXdzEBYaDExampleSessionTokenValue1234567890abcdefghij"
  ],
  [
    "batch:dec1c",
    "Ocp-Apim-Subscription-Key: 0a1b2c3d4e5f60718293a4b5c6d7e8f9",
    "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
  ],
  [
    "batch:dec1c",
    "X-Vault-Token: hvs.CAESIAbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "hvs.CAESIAbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
  ],
  ["batch:dec1c", "api_secret%3DAs8Ec1Rt4Yu%26", "As8Ec1Rt4Yu"],
  ["batch:dec1c", '\\"password\\":\\"Jp2Wq5Er8Ty\\"', "Jp2Wq5Er8Ty"],
  ["batch:dec1c", "password&#61;Ht3Ml6En9Tq", "Ht3Ml6En9Tq"],
  ["batch:dec1c", "secret: |\\n  Ml5Li7Ne9Sc3Rt", "Ml5Li7Ne9Sc3Rt"],
  ["batch:dec1c", "token: >-\\n  Fo2Ld4Ed6Tk8Nv", "Fo2Ld4Ed6Tk8Nv"]
])

// A fifth blind batch (Dec 1): found .pgpass lines, ::add-mask:: and \\u escapes; tuned on since.
addRows([
  ["batch:dec1d", "db.example.com:5432:shop:app:Pg5Ps8Fl1Qz", "Pg5Ps8Fl1Qz"],
  ["batch:dec1d", "https://bob:Gt6Cr9St2Rp@github.com", "Gt6Cr9St2Rp"],
  [
    "batch:dec1d",
    "[default]\\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\\naws_secret_access_key = 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",
    "Aw7Sc0Rt3Ky6Lm9Np2Qr5St8Uv1Wx4Yz7Ab0Cd3E"
  ],
  [
    "batch:dec1d",
    "users:\\n- name: admin\\n  user:\\n    token: kT8mZ2pQ9xR4vL7nW1sY5bC3",
    "kT8mZ2pQ9xR4vL7nW1sY5bC3"
  ],
  [
    "batch:dec1d",
    "client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBd2l0aA==",
    "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ"
  ],
  ["batch:dec1d", "::add-mask::Gh8Ac9Ms1Kx", "Gh8Ac9Ms1Kx"],
  ["batch:dec1d", 'echo "::add-mask::$TOKEN" ; token=Tk9Ad2Mk5Sx', "Tk9Ad2Mk5Sx"],
  ["batch:dec1d", '"Env": ["PATH=/usr/bin", "DB_PASSWORD=Dk4Ev7Ar0Ry"]', "Dk4Ev7Ar0Ry"],
  [
    "batch:dec1d",
    '{"access_token":"ya29.A0ARrdaM-ExampleTokenValue-0123456789","refresh_token":"1//0gExampleRefreshToken-ABCDEFG","expires_in":3599}',
    "1//0gExampleRefreshToken-ABCDEFG"
  ],
  ["batch:dec1d", '"attributes": {"password": "Tf5St7At9Ex", "username": "admin"}', "Tf5St7At9Ex"],
  ["batch:dec1d", 'level=error msg="login failed" user=bob pass=Lf2Mt4Pw6Xq', "Lf2Mt4Pw6Xq"],
  [
    "batch:dec1d",
    'Warning  Failed  pod/x  Error: secret "db-pass" not found; using fallback password Fb3Pw6Ld9Zx',
    "Fb3Pw6Ld9Zx"
  ],
  [
    "batch:dec1d",
    '<add key="ConnectionString" value="Server=db;Database=shop;User Id=sa;Password=Cs5Ns8Tr1Gw;" />',
    "Cs5Ns8Tr1Gw"
  ],
  ["batch:dec1d", "<property name=\"password\" value='Xp2Rp4Pv6Ty'/>", "Xp2Rp4Pv6Ty"],
  ["batch:dec1d", "smtp.password=Sp\\u0061ss7Wd9Zq", "Sp\\u0061ss7Wd9Zq"],
  ["batch:dec1d", '[database]\\npassword = "Tm3Ml5Db7Pw"', "Tm3Ml5Db7Pw"],
  [
    "batch:dec1d",
    "Host bastion\\n  IdentityFile ~/.ssh/id_ed25519\\n  # passphrase: Ss4Hp6Pp8Qw",
    "Ss4Hp6Pp8Qw"
  ],
  ["batch:dec1d", "data:\\n  password: UGFzc3cwcmQhMjAyNg==", "UGFzc3cwcmQhMjAyNg=="],
  ["batch:dec1d", '/api/login?username=bob&password=Ql8Pw1Ur4Lq HTTP/1.1" 200', "Ql8Pw1Ur4Lq"],
  ["batch:dec1d", "ws://localhost:8080/socket?token=Ws5Tk8Sc1Kt", "Ws5Tk8Sc1Kt"],
  ["batch:dec1d", "wss://stream.example.com/v1?api_key=Aa6Pk9Ey2Qr", "Aa6Pk9Ey2Qr"],
  ["batch:dec1d", "git clone https://x-token-auth:Bb7Tk0Au3Th@bitbucket.org/o/r.git", "Bb7Tk0Au3Th"],
  ["batch:dec1d", "Proxy: http://user:Px8Pr1Ox4Yp@proxy.corp:3128", "Px8Pr1Ox4Yp"],
  [
    "batch:dec1d",
    "docker login -u _json_key --password-stdin < key.json; _auth: ZGVwbG95OlJlZzFzdHJ5UGFzcw==",
    "ZGVwbG95OlJlZzFzdHJ5UGFzcw=="
  ]
])

// A sixth blind batch (Dec 1, shapes with no key word): found Zapier/Teams webhooks; tuned on since.
// Left: a 40-hex path segment (a commit id as often as a capability token), an escaped PuTTY file.
addRows([
  [
    "batch:dec1e",
    "invite link https://app.example.com/join/Qk7Zp2Lx9Wm4Rt8Yv3Ns6Bc1 expires soon",
    "Qk7Zp2Lx9Wm4Rt8Yv3Ns6Bc1"
  ],
  ["batch:dec1e", "https://hooks.zapier.com/hooks/catch/1234567/abcde12/", "abcde12"],
  [
    "batch:dec1e",
    "https://outlook.office.com/webhook/a1b2c3d4-e5f6-7890-abcd-ef1234567890@tenant/IncomingWebhook/0123456789abcdef0123456789abcdef/a1b2c3d4-e5f6-7890-abcd-ef1234567890",
    "0123456789abcdef0123456789abcdef"
  ],
  [
    "batch:dec1e",
    "https://api.telegram.org/bot123456789:AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0/sendMessage",
    "AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0"
  ],
  [
    "batch:dec1e",
    "https://maps.googleapis.com/maps/api/geocode/json?address=x&key=AIzaSyB1c2D3e4F5g6H7i8J9k0L1m2N3o4P5q6R",
    "AIzaSyB1c2D3e4F5g6H7i8J9k0L1m2N3o4P5q6R"
  ],
  [
    "batch:dec1e",
    "s3://backups/db.sql?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Signature=Zx9Cv8Bn7Mm6%2BLk5Jh4Gf3Ds2%3D",
    "Zx9Cv8Bn7Mm6"
  ],
  [
    "batch:dec1e",
    "Received: from mail by x with ESMTPSA id 9f8e7d6c5b; auth=plain user=alerts pass=Al3Rt5Ps7Wd",
    "Al3Rt5Ps7Wd"
  ],
  [
    "batch:dec1e",
    "npm ERR! 403 Forbidden - PUT https://registry.npmjs.org/pkg - token npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    "npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
  ],
  [
    "batch:dec1e",
    "pulled with credentials dckr_pat_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9",
    "dckr_pat_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9"
  ],
  [
    "batch:dec1e",
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI\\n-----END ENCRYPTED PRIVATE KEY-----",
    "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI"
  ]
])

// A seventh blind batch (Dec 1, CI/CD and cloud CLIs): found <<< and set KEY VALUE; tuned on since.
addRows([
  ["batch:dec1f", '  + master_password = "Tf7Pl4An1Qx" # forces replacement', "Tf7Pl4An1Qx"],
  [
    "batch:dec1f",
    "      - name: DATABASE_URL\\n        value: postgresql://app:Kv5Bx8Zq2Wm@db:5432/app",
    "Kv5Bx8Zq2Wm"
  ],
  ["batch:dec1f", "environment:\\n  - POSTGRES_PASSWORD=Dc6Mp9Os2Ew\\n  - POSTGRES_USER=app", "Dc6Mp9Os2Ew"],
  [
    "batch:dec1f",
    '192.0.2.1 - bob [01/Dec/2026:10:00:01 +0000] "POST /login?pwd=Ng3Nx6Ac9Lg HTTP/1.1" 302',
    "Ng3Nx6Ac9Lg"
  ],
  [
    "batch:dec1f",
    "Dec 01 10:00:02 host app[123]: DEBUG connecting with user=app password=Sd4Jr7Nl0Qm",
    "Sd4Jr7Nl0Qm"
  ],
  ["batch:dec1f", "[Pipeline] sh\\n+ curl -u deploy:Jk5Ns8Pw1Ld https://nexus/upload", "Jk5Ns8Pw1Ld"],
  ["batch:dec1f", "gcloud sql users set-password app --instance=db --password=Gc6Ld9Sq2Pw", "Gc6Ld9Sq2Pw"],
  ["batch:dec1f", "az sql server create --admin-password 'Az7Sq0Ad3Mn' --admin-user app", "Az7Sq0Ad3Mn"],
  [
    "batch:dec1f",
    "aws rds create-db-instance --master-user-password Ar8Ds1Mp4Wd --master-username app",
    "Ar8Ds1Mp4Wd"
  ],
  [
    "batch:dec1f",
    "heroku config:set STRIPE_SECRET=sk_live_Hk9Cf2Gs5St8Rp1Ld4Mn7Qz",
    "sk_live_Hk9Cf2Gs5St8Rp1Ld4Mn7Qz"
  ],
  ["batch:dec1f", 'vercel env add API_KEY production <<< "Vc0En3Ak6Pr"', "Vc0En3Ak6Pr"],
  ["batch:dec1f", "flyctl secrets set DB_PASSWORD=Fl1Yc4Ts7Ec", "Fl1Yc4Ts7Ec"],
  [
    "batch:dec1f",
    "doctl auth init --access-token dop_v1_0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9",
    "dop_v1_0a1b2c3d4e5f60718293a4b5c6d7e8f9"
  ],
  [
    "batch:dec1f",
    "kubectl create secret docker-registry regcred --docker-password=Kd2Rp5Rg8Cr --docker-username=ci",
    "Kd2Rp5Rg8Cr"
  ],
  [
    "batch:dec1f",
    "helm repo add private https://charts.example.com --username ci --password Hr3Pw6Ch9Rt",
    "Hr3Pw6Ch9Rt"
  ],
  ["batch:dec1f", "git push https://ci-bot:Gp4Sh7Bt0Kn@git.example.com/org/repo.git", "Gp4Sh7Bt0Kn"],
  ["batch:dec1f", "pip install -i https://user:Pi5Px8Ix1Nd@pypi.example.com/simple pkg", "Pi5Px8Ix1Nd"],
  ["batch:dec1f", "mvn deploy -Drepo.password=Mv6Dp9Lr2Ps", "Mv6Dp9Lr2Ps"],
  ["batch:dec1f", "gradle publish -PossrhPassword=Gr7Ps0Sh3Pw", "Gr7Ps0Sh3Pw"],
  ["batch:dec1f", "npm config set //registry.example.com/:_password=TnBtUGFzczEyMw==", "TnBtUGFzczEyMw=="],
  ["batch:dec1f", "java -jar app.jar --spring.datasource.password=Sj8Dp1Ss4Wd", "Sj8Dp1Ss4Wd"],
  ["batch:dec1f", 'dotnet user-secrets set "Db:Password" "Dn9Us2Sc5Rt"', "Dn9Us2Sc5Rt"]
])

// An eighth blind batch (Dec 1, config dumps of many languages): found PHP var_dump and XML key attributes; tuned on since.
addRows([
  [
    "batch:dec1g",
    '{"activeProfiles":["prod"],"propertySources":[{"name":"env","properties":{"SPRING_DATASOURCE_PASSWORD":{"value":"Sb1Pr4Ds7Pw"}}}]}',
    "Sb1Pr4Ds7Pw"
  ],
  [
    "batch:dec1g",
    "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', 'PASSWORD': 'Dj2Ng5Db8Pw', 'HOST': 'db'}}",
    "Dj2Ng5Db8Pw"
  ],
  ["batch:dec1g", "config: { db: { user: 'app', password: 'Nd3Cf6Gd9Bp' }, port: 3000 }", "Nd3Cf6Gd9Bp"],
  [
    "batch:dec1g",
    "Settings(database_url=PostgresDsn('postgresql://app:Py4Dn7Tc0Sx@db/app'), secret_key=SecretStr('**********'))",
    "Py4Dn7Tc0Sx"
  ],
  ["batch:dec1g", '&config.Config{DBPassword:"Go5Cf8Pw1Zx", Port:8080}', "Go5Cf8Pw1Zx"],
  ["batch:dec1g", 'Config { db_password: "Rs6Tc9Fg2Pw", port: 8080 }', "Rs6Tc9Fg2Pw"],
  ["batch:dec1g", '#<struct Config db_password="Rb7St0Ct3Pw", port=8080>', "Rb7St0Ct3Pw"],
  [
    "batch:dec1g",
    'array(2) { ["user"]=> string(3) "app" ["pass"]=> string(11) "Ph8Pa1Rr4Ay" }',
    "Ph8Pa1Rr4Ay"
  ],
  ["batch:dec1g", "{'user': 'app', 'passwd': 'Py9Dc2Tp5Wd'}", "Py9Dc2Tp5Wd"],
  ["batch:dec1g", "map[password:Gm0Ap3Pw6Rd user:app]", "Gm0Ap3Pw6Rd"],
  ["batch:dec1g", 'password -> "Sc1Al4Ma7Pw"', "Sc1Al4Ma7Pw"],
  ["batch:dec1g", ':password => "Rb2Hs5Hr8Ck"', "Rb2Hs5Hr8Ck"],
  ["batch:dec1g", '%{password: "Ex4Ma7Pp0Wd"}', "Ex4Ma7Pp0Wd"],
  ["batch:dec1g", "Password = Ps5Hl8Cf1Gx  # from vault", "Ps5Hl8Cf1Gx"],
  ["batch:dec1g", '<entry key="password">Jv6Pr9Op2Xm</entry>', "Jv6Pr9Op2Xm"],
  ["batch:dec1g", '<Parameter name="password" value="Tc7Mc0At3Pw"/>', "Tc7Mc0At3Pw"],
  ["batch:dec1g", "password\tTb9Sv2Pw5Qx", "Tb9Sv2Pw5Qx"],
  ["batch:dec1g", "password,Cs0Vp3Wd6Rx,app", "Cs0Vp3Wd6Rx"]
])

// A ninth blind batch (Dec 1, protocols and network devices): 12/18 leaked; tuned on since.
addRows([
  [
    "batch:dec1h",
    "CHANGE MASTER TO MASTER_HOST='db1', MASTER_USER='repl', MASTER_PASSWORD='Cm1Ms4Tr7Pw'",
    "Cm1Ms4Tr7Pw"
  ],
  ["batch:dec1h", "primary_conninfo = 'host=db1 port=5432 user=repl password=Pc2Nf5In8Fo'", "Pc2Nf5In8Fo"],
  ["batch:dec1h", "ACL SETUSER alice on >Ac3Ls6Tu9Pw ~cached:* +get", "Ac3Ls6Tu9Pw"],
  ["batch:dec1h", 'db.createUser({user: "app", pwd: "Mg4Cu7Sr0Pw", roles: ["readWrite"]})', "Mg4Cu7Sr0Pw"],
  ["batch:dec1h", "snmpwalk -v2c -c Sn5Mp8Cm1Ty 10.0.0.1", "Sn5Mp8Cm1Ty"],
  ["batch:dec1h", "snmp-server community Sc6Om9Mu2Ny RO", "Sc6Om9Mu2Ny"],
  ["batch:dec1h", "> PASS Ft7Pa0Ss3Wd\\n< 230 Login successful", "Ft7Pa0Ss3Wd"],
  ["batch:dec1h", "a001 LOGIN bob Im8Ap1Lg4In", "Im8Ap1Lg4In"],
  [
    "batch:dec1h",
    "AUTH LOGIN\\n334 VXNlcm5hbWU6\\nYm9i\\n334 UGFzc3dvcmQ6\\nU210cFBhc3MxMjM=",
    "U210cFBhc3MxMjM="
  ],
  [
    "batch:dec1h",
    'Authorization: Digest username="bob", realm="sip", nonce="abc", uri="sip:x", response="0123456789abcdef0123456789abcdef"',
    "0123456789abcdef0123456789abcdef"
  ],
  ["batch:dec1h", "addauth digest super:Zk9Dg2St5Sp", "Zk9Dg2St5Sp"],
  ["batch:dec1h", 'bin/elasticsearch-keystore add bootstrap.password <<< "Ek0Bs3Tp6Pw"', "Ek0Bs3Tp6Pw"],
  ["batch:dec1h", "ldapmodify -D cn=admin -y /tmp/pw; userPassword: Lu1Sp4Wd7Qx", "Lu1Sp4Wd7Qx"],
  ["batch:dec1h", "ipmitool -I lanplus -H bmc1 -U admin -P Ip2Mi5Tl8Pw power status", "Ip2Mi5Tl8Pw"],
  ["batch:dec1h", "wpa_passphrase home Wp3Aps6Ph9Rs", "Wp3Aps6Ph9Rs"],
  ["batch:dec1h", 'psk="Wf4Ip7Sk0Ey"', "Wf4Ip7Sk0Ey"],
  ["batch:dec1h", "pre-shared-key: Vp5Ns8Ke1Yx", "Vp5Ns8Ke1Yx"]
])

// A tenth blind batch (Dec 1, Windows and database/queue shells): 12/22 leaked; tuned on since.
addRows([
  ["batch:dec1i", '$secpw = ConvertTo-SecureString "Ps1Wn4Sc7Rt" -AsPlainText -Force', "Ps1Wn4Sc7Rt"],
  [
    "batch:dec1i",
    "New-LocalUser -Name svc -Password (ConvertTo-SecureString 'Lu2Sr5Pw8Xq' -AsPlainText -Force)",
    "Lu2Sr5Pw8Xq"
  ],
  [
    "batch:dec1i",
    '$cred = New-Object PSCredential("CORP\\svc", (ConvertTo-SecureString "Cr3Ed6Ps9Wd" -AsPlainText -Force))',
    "Cr3Ed6Ps9Wd"
  ],
  ["batch:dec1i", 'runas /user:CORP\\admin /savecred "cmd"; password: Ra4Ns7Pw0Zx', "Ra4Ns7Pw0Zx"],
  ["batch:dec1i", "net use \\\\fs01\\share /user:CORP\\bob Nu5Se8Pw1Qt", "Nu5Se8Pw1Qt"],
  ["batch:dec1i", "psexec \\\\host -u admin -p Pe6Xc9Pw2Ls cmd", "Pe6Xc9Pw2Ls"],
  ["batch:dec1i", "cmdkey /add:server /user:bob /pass:Ck7Ey0Pw3Md", "Ck7Ey0Pw3Md"],
  ["batch:dec1i", 'Invoke-Sqlcmd -ServerInstance db -Username sa -Password "Iv8Sq1Pw4Lc"', "Iv8Sq1Pw4Lc"],
  ["batch:dec1i", "cqlsh -u cassandra -p Cq9Ls2Pw5Hx db1", "Cq9Ls2Pw5Hx"],
  ["batch:dec1i", "cypher-shell -u neo4j -p Ne0Oj3Pw6Cy", "Ne0Oj3Pw6Cy"],
  ["batch:dec1i", "clickhouse-client --user default --password Ch1Ck4Pw7Hs", "Ch1Ck4Pw7Hs"],
  ["batch:dec1i", "snowsql -a acct -u bob --password Sn2Ow5Pw8Sq", "Sn2Ow5Pw8Sq"],
  [
    "batch:dec1i",
    "jdbc:snowflake://acct.snowflakecomputing.com/?user=bob&password=Sf3Lk6Pw9Jd",
    "Sf3Lk6Pw9Jd"
  ],
  ["batch:dec1i", "sqlplus -s scott/Or4Ac7Le0Pw@//db:1521/ORCL", "Or4Ac7Le0Pw"],
  ["batch:dec1i", "db2 connect to SAMPLE user db2inst1 using Db5Tw8Pw1Us", "Db5Tw8Pw1Us"],
  ["batch:dec1i", "mosquitto_pub -h broker -u iot -P Mq6Tt9Pw2Pb -t x -m y", "Mq6Tt9Pw2Pb"],
  ["batch:dec1i", "influx -username admin -password In7Fx0Pw3Lx", "In7Fx0Pw3Lx"],
  ["batch:dec1i", "mc alias set minio http://minio:9000 minioadmin Mn8Io1Sc4Rt", "Mn8Io1Sc4Rt"],
  ["batch:dec1i", "rclone obscure Rc9Ln2Ob5Sc", "Rc9Ln2Ob5Sc"],
  ["batch:dec1i", "vault write auth/userpass/users/bob password=Vw0Rt3Up6Pw", "Vw0Rt3Up6Pw"],
  ["batch:dec1i", "consul acl token create -secret=Cs1Ac4Tk7Ns", "Cs1Ac4Tk7Ns"],
  [
    "batch:dec1i",
    "nomad acl bootstrap; Secret ID = 4f2c8a1e-9b3d-4e6f-a7c0-1d2e3f4a5b6c",
    "4f2c8a1e-9b3d-4e6f-a7c0-1d2e3f4a5b6c"
  ]
])

// An eleventh blind batch (Dec 1, keys, codes and phrases): 10/13 leaked; tuned on since.
addRows([
  ["batch:dec1j", "license key: ABCDE-12345-FGHIJ-67890-KLMNO", "ABCDE-12345-FGHIJ-67890-KLMNO"],
  ["batch:dec1j", "product_key=Q7X2M-9PLKT-4WZR8-HN3VB-6DCY5", "Q7X2M-9PLKT-4WZR8-HN3VB-6DCY5"],
  [
    "batch:dec1j",
    "seed phrase: abandon ability able about above absent absorb abstract absurd abuse access accident",
    "abandon ability able about above absent"
  ],
  [
    "batch:dec1j",
    'mnemonic="legal winner thank year wave sausage worth useful legal winner thank yellow"',
    "legal winner thank year wave sausage"
  ],
  [
    "batch:dec1j",
    "wallet private key 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
    "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
  ],
  [
    "batch:dec1j",
    "POST /oauth/token grant_type=client_credentials&client_id=abc&client_secret=Cs9Ec2Rt5Oa",
    "Cs9Ec2Rt5Oa"
  ],
  [
    "batch:dec1j",
    'POST /token body={"grant_type":"refresh_token","refresh_token":"1//Rt3Fr6Sh9Tk0Ab"}',
    "1//Rt3Fr6Sh9Tk0Ab"
  ],
  ["batch:dec1j", "encryption key: 3q2+7w==", "3q2+7w=="],
  ["batch:dec1j", "backup codes: 1234-5678 2345-6789 3456-7890", "1234-5678"],
  [
    "batch:dec1j",
    "recovery key: RK12-ABCD-EFGH-IJKL-MNOP-QRST-UVWX-YZ01",
    "RK12-ABCD-EFGH-IJKL-MNOP-QRST-UVWX-YZ01"
  ],
  [
    "batch:dec1j",
    "BitLocker recovery key 123456-123456-123456-123456-123456-123456-123456-123456",
    "123456-123456-123456-123456-123456-123456-123456-123456"
  ]
])

const file = join(import.meta.dirname, "corpus.jsonl")
writeFileSync(file, out.map((c, i) => JSON.stringify({ id: i, ...c })).join("\n") + "\n")
console.log(`wrote ${out.length} lines to ${file}`)
