import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isSensitiveName, PLACEHOLDERS, redactSecrets, redactText, redactValue } from "../src/index.js"
import { REDACTION_CASES } from "./redaction-table.js"
import { fillerText, SECRET_SHAPES } from "./secrets.js"

describe("redactText: realistic log lines", () => {
  it("has a table of at least 80 lines from every source", () => {
    expect(REDACTION_CASES.length).toBeGreaterThanOrEqual(80)
    const sources = new Set(REDACTION_CASES.map((c) => c.source))
    for (const s of ["java", "go", "node", "nginx", "mysql-slow", "k8s", "python"])
      expect(sources).toContain(s)
  })

  it.each(REDACTION_CASES.map((c, i) => [i, c.source, c] as const))("case %i (%s)", (_i, _source, c) => {
    const out = redactText(c.line)
    for (const gone of c.gone) expect(out, `"${gone}" must go from: ${out}`).not.toContain(gone)
    for (const stay of c.stay) expect(out, `"${stay}" must stay in: ${out}`).toContain(stay)
  })

  it("leaves typed placeholders", () => {
    expect(redactText("from 10.1.2.3:443")).toBe("from <IP>")
    expect(redactText("host db.prod.example.com down")).toBe("host <HOST> down")
    expect(redactText("pod checkout-7d9f8b6c5d-x2k4p restarted")).toBe("pod <POD> restarted")
    expect(redactText("worker pid=4242 exited")).toBe("worker pid=<PID> exited")
    expect(redactText("sshd[1234]: ok")).toBe("sshd[<PID>]: ok")
    expect(redactText("password=hunter2")).toBe("password=<SECRET>")
    expect(redactText("t eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_abc")).toBe("t <JWT>")
    expect(redactText("k -----BEGIN PRIVATE KEY-----\nAAA\n-----END PRIVATE KEY-----")).toBe(
      "k <PRIVATE_KEY>"
    )
    expect(redactText("mysql://u:p@x/db")).toBe("mysql://<URL_CREDENTIALS>@x/db")
    expect(redactText("SELECT a FROM t WHERE id = 7 AND name = 'x'")).toBe(
      "SELECT a FROM t WHERE id = <SQL_LITERAL> AND name = <SQL_LITERAL>"
    )
    expect(redactText("Boom\n    at f (/app/a.js:1:2)")).toBe(`Boom ${PLACEHOLDERS.stackTrace}`)
  })

  it("redacts an unterminated private key block to the end", () => {
    expect(redactText("key -----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB")).toBe("key <PRIVATE_KEY>")
  })

  it("keeps plain words, service names, numbers outside SQL and timestamps", () => {
    const line = "checkout ERROR order 5512 failed after 3 retries at 10:15:30, see runbook"
    expect(redactText(line)).toBe(line)
    expect(redactText("")).toBe("")
  })

  it("keeps exception class names", () => {
    for (const cls of [
      "java.sql.SQLTransientConnectionException",
      "java.net.SocketTimeoutException",
      "org.hibernate.exception.JDBCConnectionException",
      "io.grpc.StatusRuntimeException",
      "TimeoutError",
      "requests.exceptions.ConnectionError",
      "redis.exceptions.ConnectionError"
    ]) {
      expect(redactText(`${cls}: boom`)).toBe(`${cls}: boom`)
    }
  })

  it("is idempotent on its own output", () => {
    for (const c of REDACTION_CASES) {
      const once = redactText(c.line)
      expect(redactText(once)).toBe(once)
    }
  })

  it("completes on 1 MB lines, including adversarial ones", () => {
    const mixed =
      "user=bob ip 10.0.0.1 host db.prod.example.com password=x SELECT a FROM t WHERE b = 1 ".repeat(12000)
    const inputs = [
      mixed,
      "a".repeat(1 << 20),
      " ".repeat(1 << 20),
      "a.".repeat(1 << 19),
      "a-".repeat(1 << 19),
      "'".repeat(1 << 20),
      `select ${"x".repeat(1 << 20)}`,
      "0:".repeat(1 << 19),
      "at ".repeat(350000),
      "token ".repeat(175000),
      "x=y ".repeat(262144),
      "1.".repeat(1 << 19),
      "-----BEGIN PRIVATE KEY-----".repeat(40000),
      // shapes of the host / pod / flag / object rules
      "credentials: {".repeat(75000),
      `credentials: {${"[".repeat(1 << 20)}`,
      "db host ".repeat(131072),
      "host=".repeat(209715),
      "pod/a-".repeat(174762),
      "--password ".repeat(95325),
      "mysql -p".repeat(131072),
      "sshpass -p ".repeat(95325),
      `curl -u a:${"curl -u a:".repeat(104857)}`,
      "htpasswd -b ".repeat(87381),
      `${"echo x | ".repeat(116508)}--password-stdin`,
      "sqlplus a/".repeat(104857),
      "IDENTIFIED BY ".repeat(74898),
      "grant a ".repeat(131072),
      "\\\\a".repeat(262144),
      " //a".repeat(262144),
      "a@b".repeat(349525),
      "merge into t ".repeat(80659),
      "create user if not exists ".repeat(40329),
      "PASSWORD(".repeat(116508),
      "SET PASSWORD ".repeat(80659),
      "AUTH ".repeat(209715),
      '"AUTH" '.repeat(149796),
      "requirepass\n".repeat(87381),
      "net user a ".repeat(95325),
      `${"echo x | ".repeat(116508)}chpasswd`,
      "::ffff:".repeat(149796),
      "to a-1 ".repeat(149796),
      "a:1 ".repeat(262144),
      `gke-a${"-a".repeat(1 << 19)}`,
      "password was ".repeat(80659),
      // phrases.ts: another language's key, quoted prose, one-time codes, credential pairs, HMACs
      "passwort: ".repeat(104857),
      "密码：".repeat(349525),
      'passphrase "'.repeat(87381),
      `passphrase "${"a".repeat(1 << 20)}`,
      "verification code ".repeat(58254),
      "credentials a/".repeat(74898),
      `credentials ${"a".repeat(1 << 20)}`,
      "signature sha256=".repeat(61680),
      'password: x || "'.repeat(65536),
      `pass = ${"f(".repeat(1 << 19)}`,
      'auth=("a", '.repeat(95325),
      "openssl enc -k ".repeat(69905),
      // bindings.ts: bound values and dollar quotes
      `select a from t where b = ${"$a$ ".repeat(262144)}`,
      `select $$ ${"$x$ $y$ $z$ ".repeat(87381)}`,
      "binding parameter [1] as [X] - [".repeat(32768),
      `==> Parameters: ${"a(".repeat(1 << 19)}`,
      `==> Parameters: ${"a(String), ".repeat(95325)}`,
      "parameter value [".repeat(61680),
      `==> Parameters: ${"x), ".repeat(2000)}\n`.repeat(120),
      `IP > ${"1.2.3.4.5 ".repeat(104857)}`,
      // YAML blocks, entities, sentinel, frames
      "password: |\n".repeat(87381),
      `password: |\n${"  a\n".repeat(262144)}`,
      "&#61;&amp;".repeat(104857),
      "sentinel auth-pass ".repeat(55188),
      "\n  at a:".repeat(131072),
      "::add-mask::".repeat(87381),
      "a:1:b:c:".repeat(131072),
      "password=\\u0041".repeat(74898),
      `Private-Lines: 1\n${"AAAA\n".repeat(209715)}`,
      "Private-Lines: 1\n".repeat(61680),
      `https://x.webhook.office.com/webhookb2/${"a".repeat(1 << 20)}`,
      "password <<< ".repeat(80659),
      "secret --value ".repeat(69905),
      'set "password" '.repeat(69905),
      `token ${"x".repeat(1 << 20)}`,
      // protocols.ts
      `ACL SETUSER a ${">abcdefgh ".repeat(104857)}`,
      "PASS ".repeat(209715),
      "a LOGIN b ".repeat(104857),
      "334 UGFzc3dvcmQ6\n".repeat(61680),
      "addauth digest a:".repeat(61680),
      "rocommunity ".repeat(87381),
      "mc alias set a b c ".repeat(55188),
      "ConvertTo-SecureString -AsPlainText ".repeat(29127),
      "SecretID: ".repeat(104857),
      `x -u a ${"-p bbbbbbbb ".repeat(87381)}`,
      " -u a -p".repeat(116508),
      "signing key: ".repeat(80659),
      `seed phrase: ${"w ".repeat(1 << 19)}`,
      `key ${"abcd-".repeat(209715)}`,
      "key abcd-".repeat(116508),
      // cards.ts
      "4".repeat(1 << 20),
      "4111 ".repeat(209715),
      "4111-1".repeat(174762)
    ]
    for (const input of inputs) {
      const out = redactText(input)
      // Completes (no catastrophic backtracking) and never grows without bound.
      expect(out.length).toBeLessThanOrEqual(input.length * 2 + 64)
    }
    expect(redactText(mixed)).not.toContain("10.0.0.1")
    // Generous: a completion check, not a timing assertion (CI runs suites concurrently on 2 cores).
  }, 180_000)
})

describe("redactText: properties", () => {
  it.each(SECRET_SHAPES.map((s) => [s.name, s] as const))(
    "a random %s in random text never survives",
    (_n, shape) => {
      fc.assert(
        fc.property(fillerText, shape.arb, fillerText, (before, [embedded, secret], after) => {
          const out = redactText(`${before} ${embedded} ${after}`)
          expect(out).not.toContain(secret)
          // Identities (IPs, hosts, pods, PIDs) are not secrets: `redactSecrets` keeps them (checked
          // without filler, whose words may read as a secret key word: `key <16+ char token>`).
          if (shape.kind === "identity") expect(redactSecrets(embedded)).toContain(secret)
          else expect(redactSecrets(`${before} ${embedded} ${after}`)).not.toContain(secret)
        }),
        { numRuns: 150 }
      )
    }
  )

  it("is deterministic", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        expect(redactText(text)).toBe(redactText(text))
      })
    )
  })
})

describe("redactValue", () => {
  it("redacts nested strings and secret-named fields, keeping other types", () => {
    expect(
      redactValue({
        msg: "from 10.0.0.1",
        nested: [{ password: "x", count: 3, ok: true, none: null }],
        apiToken: 12345,
        list: ["host a.example.com"]
      })
    ).toEqual({
      msg: "from <IP>",
      nested: [{ password: "<SECRET>", count: 3, ok: true, none: null }],
      apiToken: "<SECRET>",
      list: ["host <HOST>"]
    })
    expect(redactValue(42)).toBe(42)
    expect(redactValue(null)).toBe(null)
  })
})

describe("isSensitiveName", () => {
  it.each([
    "password",
    "PASSWORD",
    "USER_PASSWORD_HASH",
    "apiToken",
    "api_key",
    "x-api-key",
    "client_secret",
    "ssn",
    "customer_SSN",
    "pwd",
    "db.pwd",
    "privateKey",
    "AccessToken",
    "credentials",
    "session_id",
    "pin",
    "benutzer_passwort",
    "senha",
    "contraseña",
    "用户密码",
    "пароль_hash"
  ])("%s is sensitive", (name) => expect(isSensitiveName(name)).toBe(true))

  it.each([
    "id",
    "email_verified",
    "classname",
    "username",
    "status",
    "created_at",
    "passenger_count",
    "spinner",
    "用户名",
    "passage_notes"
  ])("%s is not sensitive", (name) => expect(isSensitiveName(name)).toBe(false))
})
