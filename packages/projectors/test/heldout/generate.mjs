// Held-out redaction corpus (written before the detector changed; NEVER tuned on).
// Token shapes come from public vendor format descriptions (prefix + alphabet + length), filled
// with a seeded PRNG, so no real secret is ever used. Output: corpus.jsonl next to this file.
// Each line: {"id","form","line","secrets":[...],"keep":[...]} — `secrets` must not survive
// `redactText`, `keep` must. Ordinary lines have no secrets (form "ordinary").
// Usage: node packages/projectors/test/heldout/generate.mjs
import { writeFileSync } from "node:fs"
import { join } from "node:path"

let s = 0x48e1d0
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
const B64 = `${AN}+/`
const B64U = `${AN}_-`
const str = (alphabet, n) => {
  let out = ""
  for (let i = 0; i < n; i++) out += alphabet[int(alphabet.length)]
  return out
}
/** Random text over an alphabet that has at least one digit and one letter when both exist. */
const mixed = (alphabet, n) => {
  for (;;) {
    const v = str(alphabet, n)
    const needDigit = /\d/.test(alphabet)
    const needUpper = /[A-Z]/.test(alphabet)
    const needLower = /[a-z]/.test(alphabet)
    if ((!needDigit || /\d/.test(v)) && (!needUpper || /[A-Z]/.test(v)) && (!needLower || /[a-z]/.test(v)))
      return v
  }
}
const uuid = () => `${str(HEX, 8)}-${str(HEX, 4)}-4${str(HEX, 3)}-a${str(HEX, 3)}-${str(HEX, 12)}`

// ---- vendor token formats (public descriptions) --------------------------------------------
const VENDORS = [
  ["gitlab runner", () => `glrt-${mixed(B64U, 20)}`],
  ["gitlab runner v2", () => `glrt-t1_${mixed(B64U, 20)}`],
  ["gitlab pat", () => `glpat-${mixed(B64U, 20)}`],
  ["gitlab deploy", () => `gldt-${mixed(B64U, 20)}`],
  ["gitlab trigger", () => `glptt-${str(HEX, 40)}`],
  ["gitlab runner registration", () => `GR1348941${mixed(B64U, 20)}`],
  ["gitlab oauth app secret", () => `gloas-${str(HEX, 64)}`],
  ["gitlab feed", () => `glft-${mixed(B64U, 20)}`],
  ["digitalocean pat", () => `dop_v1_${str(HEX, 64)}`],
  ["digitalocean oauth", () => `doo_v1_${str(HEX, 64)}`],
  ["digitalocean refresh", () => `dor_v1_${str(HEX, 64)}`],
  ["huggingface", () => `hf_${mixed(UP + LO, 34)}`],
  ["huggingface org", () => `api_org_${mixed(UP + LO, 34)}`],
  ["slack app", () => `xapp-1-A${str(UP + DG, 10)}-${str(DG, 13)}-${str(HEX, 64)}`],
  ["slack bot", () => `xoxb-${str(DG, 12)}-${str(DG, 13)}-${mixed(AN, 24)}`],
  ["slack user", () => `xoxp-${str(DG, 12)}-${str(DG, 12)}-${str(DG, 13)}-${str(HEX, 32)}`],
  ["slack config refresh", () => `xoxe-1-${mixed(AN, 140)}`],
  ["shopify access", () => `shpat_${str(HEX, 32)}`],
  ["shopify custom app", () => `shpca_${str(HEX, 32)}`],
  ["shopify private app", () => `shppa_${str(HEX, 32)}`],
  ["shopify shared secret", () => `shpss_${str(HEX, 32)}`],
  ["square oauth secret", () => `sq0csp-${mixed(B64U, 43)}`],
  ["square access", () => `sq0atp-${mixed(B64U, 22)}`],
  ["square access v2", () => `EAAA${mixed(B64U, 60)}`],
  ["pypi", () => `pypi-AgEIcHlwaS5vcmc${mixed(B64U, 70)}`],
  ["grafana service account", () => `glsa_${mixed(AN, 32)}_${str(HEX, 8)}`],
  ["grafana cloud", () => `glc_${mixed(B64, 60)}==`],
  ["stripe restricted prod", () => `rk_prod_${mixed(AN, 40)}`],
  ["stripe secret live", () => `sk_live_${mixed(AN, 48)}`],
  ["stripe restricted test", () => `rk_test_${mixed(AN, 48)}`],
  ["stripe webhook", () => `whsec_${mixed(AN, 32)}`],
  ["aws access key", () => `AKIA${str(UP + DG, 16)}`],
  ["aws sts key", () => `ASIA${str(UP + DG, 16)}`],
  ["github pat classic", () => `ghp_${mixed(AN, 36)}`],
  ["github oauth", () => `gho_${mixed(AN, 36)}`],
  ["github fine-grained", () => `github_pat_${mixed(AN, 22)}_${mixed(AN, 59)}`],
  ["github app install", () => `ghs_${mixed(AN, 36)}`],
  ["google api key", () => `AIza${mixed(B64U, 35)}`],
  ["google oauth secret", () => `GOCSPX-${mixed(B64U, 28)}`],
  ["google access token", () => `ya29.${mixed(B64U, 120)}`],
  ["npm", () => `npm_${mixed(AN, 36)}`],
  ["sendgrid", () => `SG.${mixed(B64U, 22)}.${mixed(B64U, 43)}`],
  ["twilio api key", () => `SK${str(HEX, 32)}`],
  ["openai project", () => `sk-proj-${mixed(B64U, 100)}`],
  ["anthropic", () => `sk-ant-api03-${mixed(B64U, 93)}AA`],
  ["mailgun", () => `key-${str(HEX, 32)}`],
  ["mailchimp", () => `${str(HEX, 32)}-us${1 + int(20)}`],
  ["atlassian", () => `ATATT3xFfGF0${mixed(B64U, 180)}`],
  ["linear", () => `lin_api_${mixed(AN, 40)}`],
  ["postman", () => `PMAK-${str(HEX, 24)}-${str(HEX, 34)}`],
  ["doppler", () => `dp.pt.${mixed(AN, 43)}`],
  ["databricks", () => `dapi${str(HEX, 32)}`],
  ["dynatrace", () => `dt0c01.${str(UP + DG, 24)}.${str(UP + DG, 64)}`],
  ["new relic user", () => `NRAK-${str(UP + DG, 27)}`],
  ["new relic insert", () => `NRII-${mixed(B64U, 32)}`],
  ["sentry user", () => `sntryu_${str(HEX, 64)}`],
  ["terraform cloud", () => `${mixed(AN, 14)}.atlasv1.${mixed(B64U, 67)}`],
  ["vault service", () => `hvs.${mixed(B64U, 95)}`],
  ["vault batch", () => `hvb.${mixed(B64U, 138)}`],
  ["pulumi", () => `pul-${str(HEX, 40)}`],
  ["figma", () => `figd_${mixed(B64U, 40)}`],
  ["notion", () => `ntn_${str(DG, 11)}${mixed(AN, 35)}`],
  ["airtable pat", () => `pat${mixed(AN, 14)}.${str(HEX, 64)}`],
  ["age secret key", () => `AGE-SECRET-KEY-1${str("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".toUpperCase(), 58)}`],
  ["shippo", () => `shippo_live_${str(HEX, 40)}`],
  ["flutterwave", () => `FLWSECK-${str(HEX, 32)}-X`],
  ["alibaba", () => `LTAI${mixed(AN, 20)}`],
  ["azure ad client secret", () => `${mixed(AN, 3)}8Q~${mixed(`${AN}_~.-`, 34)}`],
  ["discord bot", () => `M${mixed(AN, 23)}.${mixed(B64U, 6)}.${mixed(B64U, 27)}`],
  ["telegram bot", () => `${str(DG, 10)}:AA${mixed(B64U, 33)}`],
  ["facebook", () => `EAACEdEose0cBA${mixed(AN, 120)}`],
  ["contentful", () => `CFPAT-${mixed(B64U, 43)}`],
  ["duffel", () => `duffel_live_${mixed(B64U, 43)}`],
  ["easypost", () => `EZAK${mixed(AN, 54)}`],
  ["fly.io", () => `fo1_${mixed(B64U, 43)}`],
  ["prefect", () => `pnu_${mixed(AN, 36)}`],
  ["readme", () => `rdme_${str(LO + DG, 70)}`],
  ["rubygems", () => `rubygems_${str(HEX, 48)}`],
  ["brevo", () => `xkeysib-${str(HEX, 64)}-${mixed(AN, 16)}`],
  ["planetscale", () => `pscale_tkn_${mixed(B64U, 43)}`],
  ["planetscale password", () => `pscale_pw_${mixed(B64U, 43)}`],
  ["clojars", () => `CLOJARS_${str(LO + DG, 60)}`],
  ["mapbox secret", () => `sk.eyJ1Ijoi${mixed(AN, 20)}.${mixed(B64U, 22)}`],
  ["netlify", () => `nfp_${mixed(AN, 36)}`],
  ["supabase", () => `sbp_${str(HEX, 40)}`],
  ["docker hub", () => `dckr_pat_${mixed(B64U, 27)}`],
  ["buildkite", () => `bkua_${str(HEX, 40)}`],
  ["circleci", () => `CCIPAT_${mixed(AN, 22)}_${str(HEX, 40)}`],
  ["groq", () => `gsk_${mixed(AN, 52)}`],
  ["replicate", () => `r8_${mixed(AN, 37)}`],
  ["perplexity", () => `pplx-${str(HEX, 48)}`],
  ["xai", () => `xai-${mixed(AN, 80)}`],
  ["langsmith", () => `lsv2_pt_${str(HEX, 32)}_${str(HEX, 10)}`],
  ["tailscale", () => `tskey-auth-${mixed(AN, 17)}-${mixed(AN, 33)}`],
  ["render", () => `rnd_${mixed(AN, 32)}`],
  ["resend", () => `re_${mixed(AN, 8)}_${mixed(AN, 24)}`],
  ["deno deploy", () => `ddp_${mixed(AN, 36)}`],
  ["launchdarkly sdk", () => `sdk-${uuid()}`],
  ["openshift", () => `sha256~${mixed(B64U, 43)}`],
  ["nuget", () => `oy2${str(LO + DG, 43)}`],
  ["artifactory", () => `AKCp${mixed(AN, 69)}`],
  ["twitter bearer", () => `AAAAAAAAAAAAAAAAAAAAA${mixed(`${AN}%`, 90)}`],
  ["dropbox", () => `sl.${mixed(B64U, 135)}`],
  ["plaid", () => `access-production-${uuid()}`],
  ["zoho", () => `1000.${str(HEX, 32)}.${str(HEX, 32)}`],
  ["pinecone", () => `pcsk_${mixed(AN, 6)}_${mixed(AN, 60)}`],
  ["sourcegraph", () => `sgp_${str(HEX, 16)}_${str(HEX, 40)}`],
  ["octopus", () => `API-${str(UP + DG, 26)}`],
  ["typeform", () => `tfp_${mixed(`${LO + DG}_`, 59)}`],
  ["adafruit io", () => `aio_${mixed(AN, 28)}`],
  ["cloudflare origin ca", () => `v1.0-${str(HEX, 24)}-${str(HEX, 146)}`],
  ["heroku v2", () => `HRKU-AA${mixed(B64U, 58)}`],
  ["bitbucket app", () => `ATBB${mixed(AN, 32)}`],
  ["jwt", () => `eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOi${mixed(B64U, 40)}.${mixed(B64U, 43)}`]
]

// ---- key names --------------------------------------------------------------------------------
const SECRET_KEYS = [
  "API_TOKEN",
  "DB_PASSWORD",
  "client_secret",
  "GITHUB_TOKEN",
  "SLACK_BOT_TOKEN",
  "stripe_secret_key",
  "AUTH_KEY",
  "apiKey",
  "SECRET",
  "password",
  "MYSQL_ROOT_PASSWORD",
  "accessToken",
  "REDIS_PASS",
  "oauth_client_secret",
  "webhook_secret",
  "signing_secret",
  "ENCRYPTION_KEY",
  "private_token",
  "sdk_key",
  "master_key",
  "license_key",
  "consumer_secret",
  "refresh_token",
  "SENTRY_AUTH_TOKEN",
  "NPM_TOKEN",
  "jwt_secret",
  "AdminPassword",
  "app_secret",
  "passphrase",
  "x_api_key"
]
const VALUES = [
  () => mixed(AN, 24),
  () => `${mixed(AN + "!#%*", 14)}`,
  () => str(HEX, 40),
  () => `Pa$${mixed(AN, 8)}!`,
  () => mixed(B64, 32) + "=",
  () => `${pick(["Winter", "Summer", "Autumn"])}${2000 + int(30)}!${str(UP, 2)}`,
  () => `${mixed(LO + DG, 12)}-${mixed(LO + DG, 8)}`,
  () => uuid()
]
const value = () => pick(VALUES)()

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

const svc = () => pick(["billing", "checkout", "ledger", "notify", "search", "gateway", "ingest"])
const ts = () =>
  `2026-03-${String(1 + int(28)).padStart(2, "0")}T${String(int(24)).padStart(2, "0")}:${String(int(60)).padStart(2, "0")}:${String(int(60)).padStart(2, "0")}Z`

// 1. self-identifying tokens with no key word (one or two per vendor)
for (const [name, gen] of VENDORS) {
  for (let k = 0; k < 2; k++) {
    const t = gen()
    const ctx = pick([
      (x) => `${ts()} WARN ${svc()} retrying upstream call with ${x} after 401`,
      (x) => `found credential in build log: ${x}`,
      (x) => `[${svc()}] loaded ${x} from vault mount, rotating in 24h`,
      (x) => `curl -sS https://api.example.net/v2/items -u ${x}: -o out.json`,
      (x) => `deploy step 3/7: using "${x}" for registry push`,
      (x) => `config reload ok (client=${svc()}, cred '${x}')`
    ])
    add(
      `vendor:${name}`,
      ctx(t),
      [t],
      ["retrying", "credential", "loaded", "deploy", "config"].filter((w) => ctx(t).includes(w))
    )
  }
}

// 2. assignment forms
const ASSIGN = [
  ["go :=", (k, v) => `${k.toLowerCase()} := "${v}"`],
  ["makefile :=", (k, v) => `${k.toUpperCase()} := ${v}`],
  ["makefile ?=", (k, v) => `${k.toUpperCase()} ?= ${v}`],
  ["bnf ::=", (k, v) => `${k} ::= ${v}`],
  ["ruby =>", (k, v) => `  :${k.toLowerCase()} => '${v}',`],
  ["ruby => str", (k, v) => `config = { "${k}" => "${v}" }`],
  ["arrow ->", (k, v) => `set ${k} -> ${v} (ttl 3600s)`],
  ["colon", (k, v) => `${k}: ${v}`],
  ["equals", (k, v) => `${k}=${v} user=svc_${svc()}`],
  ["equals quoted", (k, v) => `${k}="${v}" region=eu-west-1`],
  ["equals single", (k, v) => `${k}='${v}' retries=3`],
  ["spaced equals", (k, v) => `${k} = ${v}`],
  ["toml", (k, v) => `${k.toLowerCase()} = "${v}"`],
  ["python kw", (k, v) => `client = Client(${k.toLowerCase()}="${v}", timeout=30)`],
  ["js object", (k, v) => `const cfg = { ${k}: '${v}', retries: 3 }`],
  ["php array", (k, v) => `'${k.toLowerCase()}' => "${v}",`],
  ["properties", (k, v) => `app.${k.toLowerCase()}=${v}`]
]
for (const [form, fmt] of ASSIGN) {
  for (let k = 0; k < 8; k++) {
    const key = pick(SECRET_KEYS)
    const v = value()
    add(`assign:${form}`, fmt(key, v), [v])
  }
}

// 3. name/value pairs
const PAIRS = [
  ["k8s env", (k, v) => `{"name":"${k}","value":"${v}"}`],
  [
    "k8s env spaced",
    (k, v) => `env: [{"name": "${k}", "value": "${v}"}, {"name": "LOG_LEVEL", "value": "info"}]`
  ],
  ["aws Key/Value", (k, v) => `{"Key": "${k}", "Value": "${v}"}`],
  [
    "ecs secrets",
    (k, v) => `"environment":[{"name":"REGION","value":"us-east-1"},{"name":"${k}","value":"${v}"}]`
  ],
  ["yaml name/value", (k, v) => `- name: ${k}\n  value: "${v}"`],
  ["ssm param", (k, v) => `Parameter: {Name: /prod/${svc()}/${k}, Value: ${v}, Type: SecureString}`],
  ["escaped k8s", (k, v) => `"spec":"{\\"env\\":[{\\"name\\":\\"${k}\\",\\"value\\":\\"${v}\\"}]}"`]
]
for (const [form, fmt] of PAIRS) {
  for (let k = 0; k < 9; k++) {
    const key = pick(SECRET_KEYS)
    const v = value()
    add(`pair:${form}`, fmt(key, v), [v], form.includes("spaced") ? ["LOG_LEVEL", "info"] : [])
  }
}

// 4. XML
const toPascal = (k) =>
  k
    .toLowerCase()
    .split(/_/)
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join("")
const XML = [
  ["element", (k, v) => `<${toPascal(k)}>${v}</${toPascal(k)}>`],
  [
    "element nested",
    (k, v) => `<Credentials><User>svc</User><${toPascal(k)}>${v}</${toPascal(k)}></Credentials>`
  ],
  ["attribute", (k, v) => `<connection ${k.toLowerCase()}="${v}" timeout="30"/>`],
  ["appSettings", (k, v) => `<add key="${toPascal(k)}" value="${v}" />`],
  ["maven", (_k, v) => `<server><id>nexus</id><username>deploy</username><password>${v}</password></server>`],
  ["soap", (_k, v) => `<wsse:Password Type="PasswordText">${v}</wsse:Password>`],
  ["cdata", (k, v) => `<${toPascal(k)}><![CDATA[${v}]]></${toPascal(k)}>`]
]
for (const [form, fmt] of XML) {
  for (let k = 0; k < 8; k++) {
    const key = pick(SECRET_KEYS)
    const v = value()
    add(`xml:${form}`, fmt(key, v), [v])
  }
}

// 5. env dumps, .env, export
for (let k = 0; k < 10; k++) {
  const a = pick(SECRET_KEYS).toUpperCase()
  const b = pick(SECRET_KEYS).toUpperCase()
  const va = value()
  const vb = value()
  add(
    "env:dump",
    `environment: HOME=/root PATH=/usr/local/bin:/usr/bin ${a}=${va} LANG=C.UTF-8 ${b}=${vb} HOSTNAME=web-7`,
    [va, vb],
    ["HOME", "PATH", "LANG"]
  )
}
for (let k = 0; k < 10; k++) {
  const key = pick(SECRET_KEYS).toUpperCase()
  const v = value()
  add("env:dotenv", `${key}=${v}`, [v])
  const v2 = value()
  add("env:export", `export ${key}="${v2}"`, [v2])
  const v3 = value()
  add("env:declare", `declare -x ${key}="${v3}"`, [v3])
}
for (let k = 0; k < 8; k++) {
  const [name, gen] = pick(VENDORS)
  const t = gen()
  add(
    `env:vendor-named ${name}`,
    `${pick(["CI_JOB_CRED", "DEPLOY_CRED", "REGISTRY_AUTH", "UPLOAD_KEY"])}=${t}`,
    [t]
  )
}

// 6. CSV / TSV
for (let k = 0; k < 8; k++) {
  const v = `h%R7${mixed(AN + "!#%&", 10)}`
  add("csv:pair", `"password","${v}"`, [v])
  const v2 = value()
  add("csv:row", `svc_${svc()},${pick(SECRET_KEYS)},${v2},2026-03-01`, [v2])
  const v3 = value()
  add("tsv:pair", `${pick(SECRET_KEYS)}\t${v3}\tactive`, [v3], ["active"])
}

// 7. YAML
for (let k = 0; k < 10; k++) {
  const key = pick(SECRET_KEYS)
  const v = value()
  add("yaml:nested", `database:\n  host: db\n  ${key}: ${v}\n  pool: 10`, [v], ["pool"])
  const v2 = value()
  add("yaml:quoted", `  ${key}: "${v2}"`, [v2])
}

// 8. command-line flags
const FLAGS = [
  "--client-secret",
  "--auth-token",
  "-token",
  "--api-key",
  "--db-pass",
  "--secret-key",
  "--access-token",
  "-password",
  "--oauth-secret",
  "--registry-password"
]
for (const f of FLAGS) {
  for (let k = 0; k < 3; k++) {
    const v = value()
    add("flag", `exec: /usr/bin/${svc()} ${f}${pick(["=", " "])}${v} --verbose`, [v], ["--verbose"])
  }
}

// 9. vendor=secret with no secret key word
const VENDOR_NAMES = [
  "algolia",
  "adafruit",
  "mapbox",
  "pusher",
  "twilio",
  "sendgrid",
  "mailgun",
  "datadog",
  "newrelic",
  "segment",
  "mixpanel",
  "amplitude",
  "sentry",
  "bugsnag",
  "rollbar",
  "contentful",
  "launchdarkly",
  "cloudinary",
  "fastly",
  "heroku",
  "okta",
  "auth0",
  "braintree",
  "paypal",
  "plaid"
]
for (const v of VENDOR_NAMES) {
  for (let k = 0; k < 3; k++) {
    const sec = pick([() => str(HEX, 32), () => mixed(AN, 32), () => str(HEX, 40), () => mixed(B64U, 28)])()
    const form = pick([
      (n, x) => `${n}=${x}`,
      (n, x) => `${n}: ${x}`,
      (n, x) => `"${n}": "${x}"`,
      (n, x) => `${n.toUpperCase()}=${x}`,
      (n, x) => `integrations.${n}=${x}`
    ])
    add(`vendor-name:${v}`, `loaded integrations ${form(v, sec)} ok`, [sec], ["loaded", "integrations"])
  }
}

// 10. header maps
for (let k = 0; k < 6; k++) {
  const v = str(HEX, 32)
  add("header:map X-Api-Key", `request headers={X-Api-Key:[${v}] Accept:[application/json]}`, [v], ["Accept"])
  const v2 = str(HEX, 32)
  add("header:ocp-apim", `Ocp-Apim-Subscription-Key: ${v2}`, [v2])
  const v3 = mixed(AN, 30)
  add(
    "header:go map",
    `http.Header map[Authorization:[Bearer ${v3}] Content-Type:[application/json]]`,
    [v3],
    ["Content-Type"]
  )
  const v4 = mixed(AN, 24)
  add(
    "header:curl",
    `curl -H 'X-Auth-Token: ${v4}' -H "Accept: */*" https://api.example.net`,
    [v4],
    ["Accept"]
  )
  const v5 = mixed(AN, 32)
  add(
    "header:authorization keeps rest",
    `Authorization: token ${v5} path=/v1/orders status=200`,
    [v5],
    ["path=/v1/orders", "status=200"]
  )
  const v6 = mixed(B64U, 40)
  add(
    "header:python dict",
    `headers={'x-functions-key': '${v6}', 'User-Agent': 'svc/1.2'}`,
    [v6],
    ["User-Agent"]
  )
}

// 11. sdk keys and DSNs
for (let k = 0; k < 6; k++) {
  const v = `sdk-${uuid()}`
  add("sdk_key", `ld client init sdk_key="${v}" stream=true`, [v], ["stream=true"])
  const pw = mixed(AN + "!*", 14)
  add("dsn:go tcp", `dsn=orders:${pw}@tcp(db-main:3306)/orders?parseTime=true`, [pw], ["parseTime=true"])
  const pw2 = mixed(AN, 16)
  add(
    "dsn:go bare",
    `mysql open ${pick(["app", "root", "svc"])}:${pw2}@tcp(10.0.4.2:3306)/inventory failed`,
    [pw2],
    ["failed"]
  )
  const pw3 = mixed(AN, 16)
  add(
    "dsn:postgres kv",
    `host=pg port=5432 user=app password=${pw3} dbname=ledger sslmode=require`,
    [pw3],
    ["sslmode=require"]
  )
  const pw4 = mixed(AN, 16)
  add(
    "dsn:odbc",
    `Server=sql01;Database=Sales;User Id=sa;Password=${pw4};Encrypt=true`,
    [pw4],
    ["Encrypt=true"]
  )
}

// 12. URL-encoded, escaped JSON, base64 basic, shell quoting
for (let k = 0; k < 8; k++) {
  const t = mixed(AN, 32)
  add(
    "url:encoded once",
    `GET /login?redirect_uri=https%3A%2F%2Fapp.example.net%2Fcb%3Faccess_token%3D${t}%26state%3Dxyz HTTP/1.1`,
    [t]
  )
  const t2 = mixed(AN, 28)
  add("url:encoded twice", `callback=https%253A%252F%252Fapp%252Fcb%253Fclient_secret%253D${t2}`, [t2])
  const t3 = mixed(AN, 20)
  add(
    "url:query",
    `POST /oauth/token?grant_type=client_credentials&client_secret=${t3}&scope=read`,
    [t3],
    ["scope=read"]
  )
  const pw = mixed(AN + "!#", 14)
  add(
    "json:escaped",
    `{"msg":"request body","body":"{\\"username\\":\\"ops\\",\\"password\\":\\"${pw}\\"}"}`,
    [pw],
    ["username"]
  )
  const pw2 = mixed(AN, 18)
  add("json:double escaped", `"payload":"{\\\\\\"apiKey\\\\\\":\\\\\\"${pw2}\\\\\\"}"`, [pw2])
  const user = pick(["admin", "deploy", "svc"])
  const bpw = mixed(AN, 14)
  const b64 = Buffer.from(`${user}:${bpw}`).toString("base64")
  add("basic:b64", `proxy auth header "Proxy-Authorization: Basic ${b64}" accepted`, [b64, bpw], ["accepted"])
  const b64b = Buffer.from(`${user}:${mixed(AN, 12)}`).toString("base64")
  add("basic:lowercase", `authorization=basic ${b64b}`, [b64b])
  const a = mixed(AN, 6)
  const b = mixed(AN, 6)
  add("shell:spliced", `sh -c 'PGPASSWORD='"'"'${a}'"'"'${b} psql -h db'`, [a, b])
  const c = mixed(AN, 8)
  const d = mixed(AN, 8)
  add("shell:spliced flag", `--password '${c}'"'"'${d}' --host db`, [c, d])
}

// 13. prose
for (let k = 0; k < 8; k++) {
  const v = value()
  add("prose", `user reset their secret to ${v} via console`, [v], ["console"])
  const t = mixed(AN, 32)
  add("prose:token is", `the api token is ${t}, expires in 30d`, [t], ["expires"])
}

// 14. hosts and pids in log headers (identities)
for (let k = 0; k < 8; k++) {
  const host = `${pick(["bastion", "edge", "db", "mq", "worker"])}-${String(1 + int(40)).padStart(2, "0")}`
  const pid = String(1000 + int(60000))
  add(
    "header:syslog host",
    `May ${1 + int(28)} 10:22:${String(int(60)).padStart(2, "0")} ${host} sshd[${pid}]: Accepted publickey for deploy`,
    [host, pid],
    ["Accepted", "publickey"]
  )
  const p2 = String(1000 + int(60000))
  add(
    "pid:nginx",
    `2026/03/02 10:11:12 [error] ${p2}#${p2}: *1 connect() failed (111: Connection refused)`,
    [p2],
    ["Connection", "refused"]
  )
  const p3 = String(1000 + int(60000))
  add("pid:with PID", `Started Application in 4.2 seconds with PID ${p3} (started by app)`, [p3], ["Started"])
  const p4 = String(1000 + int(60000))
  add("pid:pid colon", `supervisor: pid: ${p4} exited unexpectedly`, [p4], ["exited"])
  const p5 = String(1000 + int(60000))
  add("pid:worker", `gunicorn: Booting worker ${p5}`, [p5], ["Booting"])
  const p6 = String(1000 + int(60000))
  add("pid:starting as process", `mysqld (mysqld 10.11.6) starting as process ${p6} ...`, [p6], ["starting"])
}

// ---- ordinary lines (nothing secret; every plain word must stay) -------------------------
const ORDINARY = [
  "usage prompt_tokens=1834 completion_tokens=211 total_tokens=2045 model=gpt-4o",
  "cache stats active_sessions=4 evicted_keys=12 hit_ratio=0.93",
  "trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7 sampled=true",
  "key rotation completed for tenant acme, next rotation in 30 days",
  "consumer group lag on orders.v1-7 is 1200 messages",
  "token bucket refill rate=50/s burst=100",
  "session expired for user after 1800s of inactivity",
  "password policy requires 12 characters and one digit",
  "secret manager returned 404 for path /prod/billing/db",
  "Authorization failed: missing header",
  "authentication succeeded in 35ms",
  "version 2.14.3 deployed to canary, rollout 10%",
  "GET /api/v1/orders/5512 200 12ms",
  "request_id=req_7Hk2 completed in 240ms",
  "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 built successfully",
  "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824 pulled",
  "Kafka consumer rebalanced partitions=12 generation=44",
  "retrying in 2s (attempt 3 of 5)",
  "disk usage 81% on /var/lib/mysql",
  "JVM heap used 1.2GB of 4GB after full GC pause 450ms",
  "circuit breaker opened for payment-gateway after 5 failures",
  "feature flag checkout_v2 enabled for 25% of traffic",
  "scheduled job nightly-reconcile finished status=success duration=14m",
  "user clicked checkout button on product page",
  "max_tokens=4096 temperature=0.2 top_p=1",
  "input_tokens: 512, output_tokens: 128",
  "token_count=77 tokens_per_second=41.5",
  "the keyboard layout is set to us",
  "monkey patching disabled in production",
  "primary key violation on table orders",
  "foreign key constraint fails on orders.customer_id",
  "public key fingerprint SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8 accepted",
  "passed 128 tests in 3.4s",
  "bypass cache for admin requests",
  "compass heading 270 degrees",
  "tokenizer loaded vocabulary of 50257 entries",
  "secretary role assigned to user 42",
  "keyspace hits 99120 misses 121",
  "pin code screen shown",
  "signature verification succeeded for webhook",
  "author field missing in commit metadata",
  "credential provider chain exhausted: env, profile, imds",
  "bearer scheme required by upstream",
  "cookie consent banner dismissed",
  "span exported to collector batch_size=512",
  "queue depth=42 consumers=3 prefetch=10",
  "goroutine count 1840 exceeds threshold 1500",
  "TLS handshake completed with cipher TLS_AES_128_GCM_SHA256",
  "upstream response time p99=820ms p50=120ms",
  "rate limit 1000 per minute reached for tenant beta",
  "uploading artifact build-20260301.tar.gz size=48MB",
  "node exporter scrape took 0.8s",
  "GC pause young generation 12ms",
  "config key payments.retry.max set to 5",
  "lock acquired on resource inventory-7 after 3 attempts",
  "migration 20260214_add_index applied in 2.1s",
  "replica lag 0.4s on replica set rs0",
  "container restarted 3 times, reason OOMKilled",
  "pipeline stage test passed, stage deploy pending",
  "received SIGTERM, draining connections",
  "connection pool size=20 idle=5 active=15",
  "invalid json at position 1042",
  "thread pool exhausted, queue capacity 1000",
  "login page rendered in 88ms",
  "password reset email queued",
  "secrets rotated successfully",
  "api key header missing from request",
  "access token expired, refreshing",
  "refresh token rotation enabled",
  "otp verification failed, attempts left 2",
  "session store connected",
  "checksum mismatch for chunk 17",
  "uuid 123e4567-e89b-12d3-a456-426614174000 registered",
  "deployment id dep-8842 rolled back",
  "request took 1.53s, budget 2s",
  "model=claude-sonnet-4 tokens_in=1200 tokens_out=300",
  "rotation policy: every 90 days",
  "throughput 1.2k rps, error_rate=0.02",
  "elasticsearch cluster health yellow, unassigned_shards=4",
  "cron expression 0 */5 * * * validated",
  "tracing sampler ratio 0.1 applied",
  "workers=8 backlog=512 keepalive=5",
  "ingest pipeline dropped 3 malformed events",
  "user preferences saved: theme=dark locale=en-GB",
  "billing run for March closed with 1204 invoices"
]
for (const line of ORDINARY) {
  const keep = line
    .split(/\s+/)
    .filter((w) => /^[A-Za-z][A-Za-z_]*[:,]?$/.test(w) || /_tokens?[=:]|sessions=|tokens_/.test(w))
  const extra = []
  for (const w of [
    "prompt_tokens=1834",
    "active_sessions=4",
    "rotation",
    "orders.v1-7",
    "trace_id=4bf92f3577b34da6a3ce929d0e0e4736",
    "span_id=00f067aa0ba902b7",
    "2.14.3",
    "450ms",
    "max_tokens=4096",
    "input_tokens: 512"
  ])
    if (line.includes(w)) extra.push(w)
  add("ordinary", line, [], [...new Set([...keep.map((w) => w.replace(/[:,]$/, "")), ...extra])])
}
add("ordinary", "cache-token-01:6379 connected", [], ["connected"])
add("ordinary", "redis qaa-pwd-00:6379 ready", [], ["ready"])

// ---- passwords given to command-line tools (Dec 1, session 25; written before the detector
// had any command-specific rule but mysql's, never tuned on) ---------------------------------
// Each tool's own password option, in the quoting shells and CI logs show; some tools here have
// no rule on purpose (the check measures whether the forms generalize). Then the same tools with
// the same letters meaning something else (a port, a user, a path): nothing secret there.
const quoted = (v) => pick([v, `'${v}'`, `"${v}"`])
const CLI = [
  ["sshpass", (v) => `sshpass -p ${quoted(v)} ssh -o StrictHostKeyChecking=no deploy@bastion`],
  ["docker login", (v) => `+ docker login -u ci-bot -p ${v} registry.example.com`],
  ["podman login", (v) => `podman login --username ci -p ${quoted(v)} quay.io`],
  ["redis-cli", (v) => `redis-cli -h cache -a ${quoted(v)} --no-auth-warning ping`],
  ["curl -u", (v) => `curl -fsS -u admin:${v} https://api.example.com/v1/health`],
  ["curl --user", (v) => `curl --user "svc:${v}" -X POST https://api.example.com/v1/jobs`],
  [
    "mongosh",
    (v) => `mongosh "mongodb://db:27017/app" -u app -p ${quoted(v)} --authenticationDatabase admin`
  ],
  ["sqlcmd", (v) => `sqlcmd -S sql01 -U sa -P ${quoted(v)} -Q "SELECT 1"`],
  ["ldapsearch", (v) => `ldapsearch -x -D "cn=admin,dc=example,dc=org" -w ${quoted(v)} -b dc=example,dc=org`],
  ["sqlplus", (v) => `sqlplus system/${v}@//db:1521/ORCL @report.sql`],
  ["zip", (v) => `zip -P ${v} backup.zip dump.sql`],
  ["smbclient", (v) => `smbclient //fs/share -U backup%${v} -c ls`],
  ["az login", (v) => `az login --service-principal -u ${uuid()} -p ${v} --tenant ${uuid()}`],
  ["htpasswd", (v) => `htpasswd -b /etc/nginx/.htpasswd admin ${v}`],
  ["echo | login", (v) => `echo ${v} | docker login --password-stdin -u ci registry.example.com`]
]
for (const [tool, fmt] of CLI) {
  for (let k = 0; k < 3; k++) {
    // Shell-safe values (a `$` or `!` would be expanded by the shell the command came from).
    const v = pick([
      () => mixed(AN, 16),
      () => `${mixed(LO + DG, 10)}-${mixed(UP + DG, 6)}`,
      () => str(HEX, 32)
    ])()
    add(`cli:${tool}`, fmt(v), [v])
  }
}
const CLI_ORDINARY = [
  ["ssh -p 2222 deploy@bastion uptime", ["2222", "uptime"]],
  ["docker run -d -p 8080:80 --name web nginx:1.27", ["8080:80", "nginx:1.27"]],
  ["mkdir -p /var/lib/app/cache", ["mkdir"]],
  ["curl -u admin https://api.example.com/v1/health", ["admin"]],
  ["redis-cli -h cache -p 6380 --scan --pattern sess:*", ["6380", "--scan"]],
  ["grep -w ERROR app.log | tail -n 50", ["ERROR", "app.log"]],
  ["cp -a /srv/app/releases/current /srv/app/releases/previous", ["cp"]],
  ["ps -u postgres -o pid,cmd --sort=-pcpu", ["postgres", "pid,cmd"]],
  ["mongosh --port 27018 --quiet --eval db.stats()", ["27018", "--quiet"]],
  ['sqlcmd -S sql01 -d master -Q "SELECT name FROM sys.databases"', ["sql01", "master"]],
  ["zip -r logs.zip /var/log/app", ["logs.zip"]],
  ["sshpass -f /run/secrets/deploy_pw ssh deploy@bastion", ["sshpass", "deploy@bastion"]],
  ["docker login -u ci-bot --password-stdin registry.example.com", ["ci-bot", "--password-stdin"]],
  ["ldapsearch -x -LLL -b dc=example,dc=org uid=jdoe mail", ["uid=jdoe", "mail"]],
  ["smbclient -L //fs -N", ["smbclient"]],
  ["pg_dump -U app -h db -p 5432 orders > orders.sql", ["5432", "orders.sql"]],
  ["iperf3 -c 10.0.0.5 -p 5201 -t 30", ["5201"]],
  ["sqlplus -s /nolog @check.sql", ["/nolog", "@check.sql"]]
]
for (const [line, keep] of CLI_ORDINARY) add("cli-ordinary", line, [], keep)

// ---- passwords inside SQL statements and Redis commands, and more tools (Dec 1, session 25;
// written before the detector had a rule for them, never tuned on) ---------------------------
const SQL_AND_REDIS = [
  ["sql:create user", (v) => `Query\tCREATE USER 'svc_${svc()}'@'%' IDENTIFIED BY '${v}'`],
  ["sql:alter user with", (v) => `ALTER USER 'app'@'10.0.%' IDENTIFIED WITH caching_sha2_password BY '${v}'`],
  ["sql:grant", (v) => `# Query GRANT ALL ON app.* TO 'app'@'%' IDENTIFIED BY '${v}'`],
  ["sql:set password function", (v) => `SET PASSWORD FOR 'report'@'%' = PASSWORD('${v}')`],
  ["sql:set password", (v) => `SET PASSWORD FOR 'report'@'%' = '${v}'`],
  ["sql:pg create role", (v) => `statement: CREATE ROLE reader WITH LOGIN PASSWORD '${v}'`],
  ["sql:pg encrypted", (v) => `LOG:  statement: ALTER ROLE app WITH ENCRYPTED PASSWORD '${v}'`],
  ["sql:mssql login", (v) => `CREATE LOGIN etl WITH PASSWORD = '${v}', CHECK_POLICY = OFF`],
  ["sql:oracle", (v) => `ALTER USER scott IDENTIFIED BY "${v}" ACCOUNT UNLOCK`],
  ["redis:monitor auth", (v) => `1700000000.123456 [0 10.0.0.5:51234] "AUTH" "${v}"`],
  ["redis:monitor acl auth", (v) => `1700000000.123456 [0 10.0.0.5:51234] "auth" "app" "${v}"`],
  ["redis:config set", (v) => `CONFIG SET requirepass ${v}`],
  ["redis:conf requirepass", (v) => `requirepass ${v}`],
  ["redis:conf masterauth", (v) => `masterauth "${v}"`],
  ["redis:cli auth", (v) => `127.0.0.1:6379> AUTH ${v}`],
  ["cli:rabbitmqctl add_user", (v) => `rabbitmqctl add_user orders ${v}`],
  ["cli:rabbitmqctl change_password", (v) => `rabbitmqctl change_password admin '${v}'`],
  ["cli:useradd", (v) => `useradd -m -p '${v}' deploy`],
  ["cli:chpasswd", (v) => `echo 'deploy:${v}' | chpasswd`],
  ["cli:passwd stdin", (v) => `echo "${v}" | passwd --stdin deploy`],
  ["cli:net user", (v) => `net user svc_backup ${v} /add /y`]
]
for (const [form, fmt] of SQL_AND_REDIS) {
  for (let k = 0; k < 2; k++) {
    const v = pick([
      () => mixed(AN, 14),
      () => `${mixed(LO + DG, 9)}#${mixed(UP + DG, 5)}`,
      () => str(HEX, 24)
    ])()
    add(form, fmt(v), [v])
  }
}
const SQL_AND_REDIS_ORDINARY = [
  [
    "-ERR AUTH failed: WRONGPASS invalid username-password pair or user is disabled.",
    ["WRONGPASS", "invalid"]
  ],
  ["Client sent AUTH, but no password is set", ["Client", "sent"]],
  ["CREATE USER 'app'@'%' failed: Operation CREATE USER failed", ["Operation", "failed"]],
  ["ALTER USER 'app'@'%' ACCOUNT LOCK", ["ACCOUNT", "LOCK"]],
  ["Warning: requirepass is not set, protected mode is on", ["protected", "mode"]],
  ["rabbitmqctl list_users --formatter json", ["list_users", "--formatter"]],
  ["net user svc_backup /delete", ["svc_backup", "/delete"]],
  ["SET PASSWORD is deprecated and will be removed in a future release", ["deprecated", "release"]],
  ["statement: CREATE ROLE reader WITH LOGIN NOSUPERUSER", ["NOSUPERUSER", "LOGIN"]],
  ['1700000000.123456 [0 10.0.0.5:51234] "GET" "session:42"', ['"GET"']]
]
for (const [line, keep] of SQL_AND_REDIS_ORDINARY) add("sql-redis-ordinary", line, [], keep)

// ---- SQL literals in account and merge statements (Dec 1, session 25; written before the SQL
// literal rule knew these statements, never tuned on) ------------------------------------------
for (let k = 0; k < 3; k++) {
  const user = `u_${svc()}${int(90)}`
  const net = `10.${int(250)}.%`
  add("sql-literal:create user", `Query\tCREATE USER '${user}'@'${net}' REQUIRE SSL`, [user, net])
  const user2 = `r_${svc()}${int(90)}`
  add("sql-literal:grant", `GRANT SELECT, INSERT ON shop.* TO '${user2}'@'${net}'`, [user2, net])
  const user3 = `a_${svc()}${int(90)}`
  add("sql-literal:alter user", `ALTER USER '${user3}'@'%' ACCOUNT LOCK`, [user3])
  const email = `${pick(["ann", "raj", "li"])}${int(900)}@example.org`
  add(
    "sql-literal:merge",
    `MERGE INTO customers c USING staging s ON (c.id = s.id) WHEN MATCHED THEN UPDATE SET c.email = '${email}'`,
    [email]
  )
  const user4 = `d_${svc()}${int(90)}`
  add("sql-literal:drop user", `DROP USER IF EXISTS '${user4}'@'localhost'`, [user4])
}
addKeeps("sql-literal-ordinary", [
  ["create user failed after 3 retries", ["3", "retries"]],
  ["grant access to the on-call team for 2 hours", ["2", "hours"]],
  ["merge into main after review of 4 pull requests", ["4", "review"]],
  ["alter user preferences: theme set to 'dark'", ["'dark'", "preferences"]],
  ["drop user session 'abc' after 30 minutes idle", ["30", "idle"]]
])

// ---- a secret key word, a blank, then a quoted value (Dec 1, session 25; written before the
// rule read quoted values there, never tuned on) -----------------------------------------------
for (let k = 0; k < 4; k++) {
  const v1 = mixed(AN, 20 + int(12))
  add(
    "quoted-after-key-word",
    `refreshing session with token "${v1}" for tenant ${svc()}`,
    [v1],
    ["refreshing", "tenant"]
  )
  const v2 = mixed(AN, 18 + int(10))
  add("quoted-after-key-word", `loaded secret '${v2}' from vault mount`, [v2], ["loaded", "vault"])
}
addKeeps("quoted-after-key-word-ordinary", [
  [
    'MountVolume.SetUp failed for volume "creds" : secret "db-credentials" not found',
    ["db-credentials", "MountVolume.SetUp"]
  ],
  ['unexpected token "}" at position 1042', ["position"]],
  ["token 'refresh_token_rotation_enabled' is deprecated", ["refresh_token_rotation_enabled", "deprecated"]]
])

// ---- host names in path positions with no dot (Dec 1, session 25; written before the host
// rules read these positions, never tuned on) ----------------------------------------------------
for (let k = 0; k < 3; k++) {
  const h1 = `${pick(["fs", "nas", "filer", "store"])}${int(90)}`
  add("host-position:unc", `mount \\\\${h1}\\share$ failed: access denied`, [h1], ["mount", "failed"])
  const h2 = `${pick(["nas", "backup", "smb"])}-${int(90)}`
  add(
    "host-position:cifs",
    `mount error(13): //${h2}/archive: Permission denied`,
    [h2],
    ["Permission", "denied"]
  )
  const h3 = `${pick(["jump", "bastion", "build"])}${int(20)}`
  add(
    "host-position:scp",
    `scp release.tgz deploy@${h3}:/opt/releases/ exited 1`,
    [h3],
    ["release.tgz", "exited"]
  )
  const h4 = `${pick(["web", "app", "worker"])}-${int(20)}`
  add(
    "host-position:git ssh",
    `git fetch git@${h4}:platform/infra.git failed`,
    [h4],
    ["platform/infra.git", "failed"]
  )
}
addKeeps("host-position-ordinary", [
  ["copy C:\\Windows\\System32\\drivers\\etc\\hosts done", ["C:\\Windows\\System32\\drivers\\etc\\hosts"]],
  ["see docs at /usr/share//doc for details", ["details"]],
  ["contact ops@ on slack", ["slack"]],
  ["regex a//b matched 3 times", ["matched"]]
])

// Written (Dec 1) before phrases.ts and the foreign-language keys existed; never tuned on.
addRows([
  ["phrase:other language", "Kennwort=Kw7Rt2Zu5Nm", "Kw7Rt2Zu5Nm"],
  ["phrase:other language", 'neues Passwort: "Np4Sw8Rd1Lq"', "Np4Sw8Rd1Lq"],
  ["phrase:other language", "senha: Sn3Ha6Pt9Br", "Sn3Ha6Pt9Br"],
  ["phrase:other language", "пароль: Pr5Ol8Ru1Sx", "Pr5Ol8Ru1Sx"],
  ["phrase:other language", "パスワード=Ja7Pw0Ss3Dk", "Ja7Pw0Ss3Dk"],
  ["phrase:other language", "비밀번호: Ko2Pw5Rd8Mx", "Ko2Pw5Rd8Mx"],
  ["phrase:other language", "wachtwoord = Nl6Ww9Tw2Qa", "Nl6Ww9Tw2Qa"],
  ["phrase:other language", "口令：Kl4Ng7Zh0Pw", "Kl4Ng7Zh0Pw"],
  ["phrase:other language", "hasło: Pl8Hs1Lo4Qz", "Pl8Hs1Lo4Qz"],
  [
    "phrase:quoted passphrase",
    'set passphrase to "tiger lily under the bridge"',
    "tiger lily under the bridge"
  ],
  ["phrase:quoted passphrase", "GPG passphrase 'blue-monkey-47-sunrise' accepted", "blue-monkey-47-sunrise"],
  ["phrase:one-time code", "verification code: 730155", "730155"],
  ["phrase:one-time code", "your 2FA code is 918273", "918273"],
  ["phrase:one-time code", "MFA token 552019 verified", "552019"],
  ["phrase:credential pair", "login credentials admin/Ad5Mn8Pw1Zx accepted", "Ad5Mn8Pw1Zx"],
  [
    "phrase:hmac",
    "X-Hub-Signature-256: sha256=9b1f6c3e2a8d7f4b5c0e1a9d8f7b6c5e4a3d2f1e0c9b8a7f6e5d4c3b2a1f0e9d",
    "9b1f6c3e2a8d7f4b5c0e1a9d8f7b6c5e4a3d2f1e0c9b8a7f6e5d4c3b2a1f0e9d"
  ]
])
addKeeps(
  "phrase-ordinary",
  [
    "Passwort vergessen? Klicken Sie hier",
    "password reset requested for bob",
    "the passphrase prompt timed out after 30s",
    "verification code sent to +49 *** (attempt 2 of 3)",
    "credentials rotated for service checkout/payments",
    "signature verification failed (sha256 mismatch)"
  ].map((line) => [line, [line]])
)

// Written (Dec 1) before the code-literal, auth-pair, `pw` key and `openssl -k` rules; never tuned on.
addRows([
  ["code:literal", "login attempt user=admin PW=Zq1Xw2Ce3Vr rejected", "Zq1Xw2Ce3Vr"],
  ["code:pw key", "config db_pw: Dp4Wq7Er0Ty", "Dp4Wq7Er0Ty"],
  ["code:literal", 'const pass = process.env.SMTP_PASS ?? "Sm5Tp8Fb1Kq"', "Sm5Tp8Fb1Kq"],
  ["code:literal", 'password: os.getenv("DB_PASSWORD", "Og6Tn9Vd2Lp")', "Og6Tn9Vd2Lp"],
  ["code:literal", 'session.auth = ("deploy", "Sa7Ut0Hd3Mx")', "Sa7Ut0Hd3Mx"],
  ["code:literal", "aiohttp.BasicAuth('bot', 'Ba8Si1Ca4Ny')", "Ba8Si1Ca4Ny"],
  ["code:literal", 'httpx.get(u, auth=("ci", "Hx9Au2Th5Oz"))', "Hx9Au2Th5Oz"],
  ["code:openssl", "openssl aes-256-cbc -d -k Ok0Ey3Pw6Qa -in backup.enc", "Ok0Ey3Pw6Qa"],
  ["code:openssl", "openssl rsa -in key.pem -passin pass:Op1Ss4In7Rb", "Op1Ss4In7Rb"]
])
addKeeps("code-ordinary", [
  ["pw=ok after 3 attempts", ["pw=ok after 3 attempts"]],
  ['auth=("oauth2", "bearer") scheme list', ['auth=("oauth2", "bearer") scheme list']],
  ["openssl s_client -connect api:443 -k", ["openssl s_client -connect", "-k"]],
  ["requests.get(url, auth=None, timeout=5)", ["requests.get(url, auth=None, timeout=5)"]]
])

// Written (Dec 1) before bindings.ts (bound values, dollar quotes); the dollar-quote line then showed
// that `DO $x$` and `SELECT $x$` did not start SQL, which was fixed after: that line is no longer blind.
addRows([
  [
    "sql-binding:bound value",
    "o.h.type.descriptor.sql.BasicBinder : binding parameter [2] as [VARCHAR] - [peter.parker@dailybugle.com]",
    "peter.parker@dailybugle.com"
  ],
  [
    "sql-binding:bound value",
    "TRACE BasicBinder - binding parameter (1:VARCHAR) <- [mary.jane]",
    "mary.jane"
  ],
  ["sql-binding:bound value", "==> Parameters: harry.osborn(String), 31(Integer)", "harry.osborn"],
  [
    "sql-binding:bound value",
    "Setting SQL statement parameter value: column index 1, parameter value [may.parker], value class [java.lang.String], SQL type unknown",
    "may.parker"
  ],
  [
    "sql-binding:dollar quote",
    "DO $body$ BEGIN RAISE NOTICE 'x'; END $body$; SELECT $q$Ben Reilly$q$",
    "Ben Reilly"
  ]
])
addKeeps("sql-binding-ordinary", [
  ["binding parameter [1] as [VARCHAR] - [null]", ["[null]"]],
  ["==> Parameters: ", ["Parameters:"]],
  ["Total: $$ signs in template", ["$$ signs in template"]]
])

// Written (Dec 1) before the tcpdump address.port rule; never tuned on.
addRows([
  [
    "ip:tcpdump",
    "12:00:01.123 IP 192.168.7.20.34567 > 192.168.7.1.53: 12345+ A? example.com. (29)",
    "192.168.7.20"
  ],
  ["ip:tcpdump", "IP 10.9.8.7.8443 > 10.9.8.6.40112: Flags [P.], seq 1:2", "10.9.8.6"]
])
add("ip-ordinary", "upgraded libfoo 1.2.3.4.5 > 1.2.3.4.4", [], ["1.2.3.4.5 > 1.2.3.4.4"])

// Written (Dec 1) before short random values after a bare key word were redacted; never tuned on.
addRows([
  ["key-word:short value", "rotating token oYYWIcS68s for svc-billing", "oYYWIcS68s"],
  ["key-word:short value", "using secret Kq7rTz2WbX on the worker", "Kq7rTz2WbX"],
  ["key-word:short value", "api key pL4xNq9ZtR revoked", "pL4xNq9ZtR"],
  ["key-word:short value", "password hR5vYq2LmN rejected", "hR5vYq2LmN"]
])
addKeeps(
  "key-word-ordinary",
  [
    "token RefreshV2 flow enabled",
    "secret KeyVault01 mounted at /mnt",
    "api key HeaderAuth scheme in use",
    "token expired for user 42"
  ].map((line) => [line, [line]])
)

// Written (Dec 1) before payment card numbers and cvv/cvc keys were redacted; never tuned on.
addRows([
  [
    "card:pan",
    "authorization failed for card 4012 8888 8888 1881 (insufficient funds)",
    "4012 8888 8888 1881"
  ],
  ["card:pan", "pan=5105105105105100 exp=0928", "5105105105105100"],
  ["card:pan", "retrying charge on 371449635398431", "371449635398431"],
  ["card:pan", '{"card_number":"6011111111111117","brand":"discover"}', "6011111111111117"],
  ["card:pan", "card: 4222-2222-2222-2 declined", "4222-2222-2222-2"],
  ["card:cvc key", "payment_method card_cvc=737 saved", "737"]
])
addKeeps(
  "card-ordinary",
  [
    "event at 1733050000123 processed",
    "order 4000000000000001 created",
    "trace 5234567890123456 sampled"
  ].map((line) => [line, [line]])
)

// Written (Dec 1) before YAML block scalars, Sentinel's auth-pass and HTML entities were read; never tuned on.
addRows([
  ["yaml-block", "stringData:\n  password: |\n    Yb7Lk2Pw9Qz\n  user: app", "Yb7Lk2Pw9Qz"],
  ["yaml-block", "api_token: >-\n  Tk4Bl8Ck2Nm\n  Fo6Ld0Ed\nnext: 1", "Tk4Bl8Ck2Nm"],
  ["yaml-block", "  client_secret: |-\n      Cs3Ec5Rt7Bl\n  port: 8080", "Cs3Ec5Rt7Bl"],
  ["sentinel", "sentinel auth-pass prod-master Sn5Tl8Ap1Ss", "Sn5Tl8Ap1Ss"],
  ["html-entity", "login?user=bob&amp;password&#61;Hm4En7Ty0Pw", "Hm4En7Ty0Pw"]
])
addKeeps("yaml-block-ordinary", [
  ["description: |\n  Runs the nightly job\nschedule: daily", ["Runs the nightly job", "schedule: daily"]],
  [
    "password_policy: >-\n  at least 12 characters\nmin_length: 12",
    ["at least 12 characters", "min_length: 12"]
  ],
  ["sentinel monitor mymaster 10.0.0.1 6379 2", ["sentinel monitor mymaster"]]
])

// Written (Dec 1) before .pgpass lines, ::add-mask:: values and \\u escapes in values were read; never tuned on.
addRows([
  ["pgpass", "*:*:*:replicator:Rp9Lc2Tr5Qw", "Rp9Lc2Tr5Qw"],
  ["pgpass", "reading ~/.pgpass: pg-main:6432:billing:svc_billing:Bl3Ng6Sv9Pw", "Bl3Ng6Sv9Pw"],
  ["add-mask", "::add-mask::Ms7Kq2Zp5Lx", "Ms7Kq2Zp5Lx"],
  ["unicode-escape", "db.password=Pa\\u0024\\u0024Wd4Qz8", "Wd4Qz8"]
])
addKeeps("credential-file-ordinary", [
  ["10:15:30:45:60 elapsed", ["10:15:30:45:60 elapsed"]],
  ["::add-mask:: requires a value", ["::add-mask:: requires a value"]],
  ["path=C:\\\\users\\\\x", ["path="]]
])

// Written (Dec 1) before Zapier/Teams webhooks and PuTTY key files were read; never tuned on.
addRows([
  ["webhook:zapier", "POST https://hooks.zapier.com/hooks/catch/7654321/xyz9ab8/ 200", "xyz9ab8"],
  [
    "webhook:teams",
    "notify via https://contoso.webhook.office.com/webhookb2/11111111-2222-3333-4444-555555555555@66666666-7777-8888-9999-000000000000/IncomingWebhook/fedcba9876543210fedcba9876543210/11111111-2222-3333-4444-555555555555",
    "fedcba9876543210fedcba9876543210"
  ],
  [
    "putty",
    "PuTTY-User-Key-File-2: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIPub\nPrivate-Lines: 1\nAAAAIPrivExampleKeyMaterial0123456789abcdefXYZ\nPrivate-MAC: 0123456789abcdef0123456789abcdef01234567",
    "AAAAIPrivExampleKeyMaterial0123456789abcdefXYZ"
  ]
])
addKeeps("webhook-ordinary", [
  ["see https://hooks.zapier.com/docs for setup", ["for setup", "/docs"]],
  ["Public-Lines: 2 in the key header", ["Public-Lines: 2 in the key header"]]
])

// Written (Dec 1) before values handed to secret-storing commands (<<<, --value, set KEY VALUE, security -w) were read; never tuned on.
addRows([
  ["cli:herestring", "netlify env:set DB_PASSWORD <<< 'Nt3Ly6Hs9Qa'", "Nt3Ly6Hs9Qa"],
  ["cli:set key value", 'dotnet user-secrets set "Smtp:Password" "Us4Er7Sc0Rt"', "Us4Er7Sc0Rt"],
  ["cli:set key value", "fly secrets set API_TOKEN Ft5Ly8Tk1Nx", "Ft5Ly8Tk1Nx"],
  [
    "cli:value flag",
    "az keyvault secret set --vault-name kv --name db-password --value Kv6Ta9Sc2Rt",
    "Kv6Ta9Sc2Rt"
  ],
  [
    "cli:value flag",
    "aws ssm put-parameter --name /prod/db/password --value Ss7Mp0Pa3Rm --type SecureString",
    "Ss7Mp0Pa3Rm"
  ],
  ["cli:body flag", "gh secret set NPM_TOKEN --body Gh8Bd1Yt4Kn", "Gh8Bd1Yt4Kn"],
  ["cli:security -w", "security add-generic-password -a ci -s deploy -w Mc9Kc2Hn5Pw", "Mc9Kc2Hn5Pw"]
])
addKeeps("cli-ordinary", [
  ["aws ssm put-parameter --name /prod/app/log-level --value debug --type String", ["--value debug"]],
  ["cat <<< 'hello world'", ["hello world"]],
  ["git config set user.name Bob", ["user.name Bob"]]
])

// Written (Dec 1) before bracketed keys, PHP var_dump values and XML key attributes were read; never tuned on.
addRows([
  ["php:var_dump", 'array(1) { ["password"]=> string(10) "Vd1Mp4Ph7Q" }', "Vd1Mp4Ph7Q"],
  [
    "form:brackets",
    'Parameters: {"user"=>{"email"=>"a@b.c"}} user[password]=Rp2Ms5Br8X&user[email]=a',
    "Rp2Ms5Br8X"
  ],
  ["xml:key attribute", '<add key="ApiToken">Xk3Ey6At9Tq</add>', "Xk3Ey6At9Tq"],
  ["xml:key attribute", '<property name="db.password">Xp4Rn7Pw0Db</property>', "Xp4Rn7Pw0Db"]
])
addKeeps("dump-ordinary", [
  ['<entry key="timeout">30</entry>', ['<entry key="timeout">30</entry>']],
  ["items[password_policy]=strict", ["strict"]]
])

// Written (Dec 1) before protocol transcripts and network configs (Redis ACL, SNMP, FTP, SMTP, ZooKeeper, IPMI, PSK) were read; never tuned on.
addRows([
  ["redis:acl", "ACL SETUSER bob on >Rb1Ac4Lp7Wd allkeys +@read", "Rb1Ac4Lp7Wd"],
  ["snmp", "snmpget -v 2c -c Sg2Cm5Mn8Ty router1 sysUpTime.0", "Sg2Cm5Mn8Ty"],
  ["snmp", "rocommunity Rc3Om6Mn9Ty 10.0.0.0/8", "Rc3Om6Mn9Ty"],
  ["ftp", "USER deploy\nPASS Fp4Ss7Wd0Tx\n230 User logged in", "Fp4Ss7Wd0Tx"],
  ["smtp", "C: AUTH PLAIN AGJvYgBTbXRwUGw0aW4h\nS: 235 Authentication successful", "AGJvYgBTbXRwUGw0aW4h"],
  ["zookeeper", "addauth digest admin:Zk5Ad8Mn1Pw", "Zk5Ad8Mn1Pw"],
  ["ipmi", "ipmitool -H 10.1.1.5 -U root -P Ip6Mt9Pw2Rt chassis status", "Ip6Mt9Pw2Rt"],
  ["psk", "wireless: psk: Ps7Kw0Ir3Ls ssid: office", "Ps7Kw0Ir3Ls"]
])
addKeeps("protocol-ordinary", [
  ["S: 334 VXNlcm5hbWU6 / C: AUTH LOGIN", ["AUTH LOGIN"]],
  ["snmpwalk -v2c -c public-read-only denied", ["snmpwalk -v2c -c"]],
  ["PASS rate 98% in CI", ["PASS rate 98% in CI"]]
])

// Written (Dec 1) before Windows/PowerShell, database shells, MQTT, MinIO and Consul tokens were read; never tuned on.
addRows([
  ["powershell", "$pw = ConvertTo-SecureString -String 'Pw2Sh5Cv8Ss' -AsPlainText -Force", "Pw2Sh5Cv8Ss"],
  ["net use", "net use Z: \\\\nas\\backup /user:CORP\\svc Nt3Us6Ep9Ws /persistent:no", "Nt3Us6Ep9Ws"],
  ["psexec", "PsExec.exe \\\\srv -u CORP\\admin -p Ps4Xe7Cp0Ad ipconfig", "Ps4Xe7Cp0Ad"],
  ["cqlsh", "cqlsh cass1 9042 -u app -p Cl5Qs8Hp1Aw", "Cl5Qs8Hp1Aw"],
  ["mosquitto", "mosquitto_sub -h mqtt -u sensor -P Ms6Qs9Ub2Pw -t 'home/#'", "Ms6Qs9Ub2Pw"],
  ["db2", "db2 CONNECT TO PROD USER app USING Db7Cn0Us3Ng", "Db7Cn0Us3Ng"],
  ["minio mc", "mc alias set backup https://s3.example.com AKIAEXAMPLE Mc8Al1As4Sx", "Mc8Al1As4Sx"],
  ["consul", "SecretID:         5a7c9e1b-3d2f-4a6b-8c0d-1e2f3a4b5c6d", "5a7c9e1b-3d2f-4a6b-8c0d-1e2f3a4b5c6d"]
])
addKeeps("windows-cli-ordinary", [
  ["AccessorID:       0c1d2e3f-4a5b-6c7d-8e9f-a0b1c2d3e4f5", ["AccessorID:"]],
  ["cqlsh -e 'DESCRIBE KEYSPACES' -p 9042 host", ["DESCRIBE KEYSPACES"]],
  ["net use", ["net use"]]
])

// Written (Dec 1) before the generic user-and-password option rule (tools outside the table); never tuned on.
addRows([
  ["generic -u -p", 'hdbsql -n hana:30015 -u SYSTEM -p Hd1Bs4Ql7Pw "select 1 from dummy"', "Hd1Bs4Ql7Pw"],
  ["generic -u -p", "rabbitmqadmin -H mq -u admin -p Rm2Qa5Dm8Pw list queues", "Rm2Qa5Dm8Pw"],
  ["generic -u -p", "smbmap -H 10.0.0.9 -u svc -p Sm3Bm6Ap9Pw", "Sm3Bm6Ap9Pw"],
  ["generic -u -p", "rdesktop -u administrator -p Rd4Sk7Tp0Pw win01", "Rd4Sk7Tp0Pw"],
  ["generic -U -w", "vsql -h vert -U dbadmin -w Vs5Ql8Wp1Dx -c 'select 1'", "Vs5Ql8Wp1Dx"],
  ["windows /u /p", "xfreerdp /v:win01 /u:admin /p:Xf6Re9Rd2Pw /cert:ignore", "Xf6Re9Rd2Pw"],
  ["lftp -u user,pass", "lftp -u deploy,Lf7Tp0Pw3Cm sftp://files", "Lf7Tp0Pw3Cm"]
])
addKeeps("cli-pair-ordinary", [
  ["ssh -p 2222 -l admin bastion", ["-p 2222"]],
  ["docker run -u 1000 -p 8080:80 nginx", ["-p 8080:80"]],
  ["psql -U app -p 5432 -h db", ["-p 5432"]],
  ["mysql -u root -p -h db shop", ["-p -h db"]],
  ["ps -u www -p 1234,5678 -o pid,cmd", ["-p 1234,5678"]]
])

// Written (Dec 1) before two-word key/code/phrase names, grouped keys and seed phrases were read; never tuned on.
addRows([
  ["grouped key", "Windows product key: VK7JG-NPHTM-C97JM-9MPGT-3V66T", "VK7JG-NPHTM-C97JM-9MPGT-3V66T"],
  [
    "grouped key",
    "recovery key = 482193-117502-660341-903817-225804-731650-018462-579031",
    "482193-117502-660341-903817-225804-731650-018462-579031"
  ],
  [
    "seed phrase",
    "secret recovery phrase: zoo wrong vessel tongue spend smart river pony nurse mother lunch lamp",
    "zoo wrong vessel tongue spend smart"
  ],
  [
    "hex private key",
    "eth private key: 0x8da4ef21b864d2cc526dbdb2a120bd2874c36c9d0a1fb7f8c63d7f7a8b41de8f",
    "8da4ef21b864d2cc526dbdb2a120bd2874c36c9d0a1fb7f8c63d7f7a8b41de8f"
  ],
  ["two-word key", "signing key: Sg1Kq4Yx", "Sg1Kq4Yx"],
  ["backup codes", "2FA backup codes: 8815-2261 0931-7714 5522-0098", "8815-2261"]
])
addKeeps("keys-ordinary", [
  ["license key expired on 2026-01-01, renew it", ["license key expired on 2026-01-01, renew it"]],
  ["request id: 1b4e28ba-2fa1-11d2-883f-0016d3cca427", ["request id:"]],
  ["seed phrase backup reminder sent", ["seed phrase backup reminder sent"]]
])

const file = join(import.meta.dirname, "corpus.jsonl")
writeFileSync(file, out.map((c, i) => JSON.stringify({ id: i, ...c })).join("\n") + "\n")
const secretLines = out.filter((c) => c.secrets.length > 0).length
console.log(
  `wrote ${out.length} lines (${secretLines} with secrets, ${out.length - secretLines} ordinary) to ${file}`
)
