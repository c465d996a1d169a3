import fc from "fast-check"

const chars = (alphabet: string, min: number, max: number) =>
  fc
    .array(fc.constantFrom(...alphabet.split("")), { minLength: min, maxLength: max })
    .map((cs) => cs.join(""))

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
const LOWER = "abcdefghijklmnopqrstuvwxyz"
const DIGITS = "0123456789"
const ALNUM = UPPER + LOWER + DIGITS
const B64URL = ALNUM + "_-"

/** A value that certainly has a digit and an upper-case letter (never occurs in lower-case filler). */
const marked = (body: fc.Arbitrary<string>) =>
  fc
    .tuple(body, fc.constantFrom(...DIGITS.split("")), fc.constantFrom(...UPPER.split("")))
    .map(([b, d, u]) => `${u}${d}${b}`)

export interface SecretShape {
  readonly name: string
  /**
   * `secret`: `redactSecrets` removes it too; `identity` (IPs, hosts, pods, PIDs): only
   * `redactText` removes it, `redactSecrets` keeps it.
   */
  readonly kind: "secret" | "identity"
  /** [text to embed, the secret part that must not survive] */
  readonly arb: fc.Arbitrary<readonly [string, string]>
}

const same = (arb: fc.Arbitrary<string>) => arb.map((s) => [s, s] as const)

export const SECRET_SHAPES: ReadonlyArray<SecretShape> = [
  {
    kind: "secret",
    name: "aws access key",
    arb: same(
      fc.tuple(fc.constantFrom("AKIA", "ASIA"), chars(UPPER + DIGITS, 16, 16)).map(([p, b]) => `${p}${b}`)
    )
  },
  {
    kind: "secret",
    name: "aws secret key",
    arb: fc
      .tuple(
        fc.constantFrom("aws_secret_access_key=", "secret_key: ", ""),
        marked(chars(ALNUM + "/+", 38, 38))
      )
      .map(([k, v]) => [`${k}${v}`, v] as const)
  },
  {
    kind: "secret",
    name: "github",
    arb: same(
      fc.tuple(fc.constantFrom("ghp_", "gho_", "ghs_"), marked(chars(ALNUM, 34, 34))).map(([p, b]) => p + b)
    )
  },
  {
    kind: "secret",
    name: "github pat",
    arb: same(marked(chars(ALNUM + "_", 30, 60)).map((b) => `github_pat_${b}`))
  },
  {
    kind: "secret",
    name: "slack",
    arb: same(
      fc
        .tuple(fc.constantFrom("xoxb-", "xoxp-", "xoxa-"), marked(chars(ALNUM + "-", 20, 40)))
        .map(([p, b]) => p + b)
    )
  },
  {
    kind: "secret",
    name: "stripe",
    arb: same(
      fc.tuple(fc.constantFrom("sk_live_", "rk_live_"), marked(chars(ALNUM, 20, 40))).map(([p, b]) => p + b)
    )
  },
  { kind: "secret", name: "google", arb: same(marked(chars(B64URL, 33, 33)).map((b) => `AIza${b}`)) },
  {
    kind: "secret",
    name: "openai",
    arb: same(
      fc.tuple(fc.constantFrom("sk-", "sk-proj-"), marked(chars(ALNUM, 30, 48))).map(([p, b]) => p + b)
    )
  },
  {
    kind: "secret",
    name: "jwt",
    arb: same(
      fc
        .tuple(marked(chars(B64URL, 10, 40)), marked(chars(B64URL, 10, 80)), chars(B64URL, 10, 43))
        .map(([h, p, s]) => `eyJ${h}.${p}.${s}`)
    )
  },
  {
    kind: "secret",
    name: "private key",
    arb: fc
      .tuple(fc.constantFrom("RSA ", "EC ", "OPENSSH ", ""), marked(chars(ALNUM + "+/", 20, 120)))
      .map(
        ([kind, body]) =>
          [`-----BEGIN ${kind}PRIVATE KEY-----\n${body}\n-----END ${kind}PRIVATE KEY-----`, body] as const
      )
  },
  {
    kind: "secret",
    name: "url credentials",
    arb: fc
      .tuple(
        fc.constantFrom("mysql", "https", "redis", "postgres"),
        chars(LOWER, 3, 8),
        marked(chars(ALNUM + "!*$", 6, 20))
      )
      .map(([scheme, user, pass]) => [`${scheme}://${user}:${pass}@db.internal:5432/app`, pass] as const)
  },
  {
    kind: "secret",
    name: "key=value",
    arb: fc
      .tuple(
        fc.constantFrom(
          "password",
          "passwd",
          "pwd",
          "db_password",
          "secret",
          "api_key",
          "apikey",
          "access_token",
          "client_secret",
          "X-Auth-Token",
          "private_key",
          "session"
        ),
        fc.constantFrom("=", ": ", "="),
        marked(chars(ALNUM + "!@#%^*", 6, 24))
      )
      .map(([k, sep, v]) => [`${k}${sep}${v}`, v] as const)
  },
  {
    kind: "secret",
    name: "json field",
    arb: fc
      .tuple(
        fc.constantFrom("password", "token", "secret", "credential", "authorization"),
        marked(chars(ALNUM + "!@#% ", 6, 24))
      )
      .map(([k, v]) => [`{"${k}": "${v}"}`, v] as const)
  },
  {
    kind: "secret",
    name: "bearer",
    arb: fc
      .tuple(fc.constantFrom("Bearer ", "Authorization: Bearer "), marked(chars(ALNUM + "._-", 12, 60)))
      .map(([p, v]) => [`${p}${v}`, v] as const)
  },
  {
    kind: "secret",
    name: "basic",
    arb: fc
      .tuple(fc.constantFrom("Basic ", "Authorization: Basic "), marked(chars(ALNUM + "+/", 12, 40)))
      .map(([p, v]) => [`${p}${v}=`, v] as const)
  },
  {
    kind: "secret",
    name: "hex after key word",
    arb: fc
      .tuple(
        fc.constantFrom("token", "secret", "api key is", "password"),
        fc.constantFrom(...DIGITS.split("")),
        chars("0123456789abcdef", 31, 63)
      )
      .map(([k, d, v]) => [`${k} ${d}${v}`, `${d}${v}`] as const)
  },
  {
    kind: "identity",
    name: "ipv4",
    arb: fc
      .tuple(
        fc.integer({ min: 1, max: 254 }),
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: 1, max: 254 })
      )
      .map((o) => {
        const ip = o.join(".")
        return [`${ip}:8080`, ip] as const
      })
  },
  {
    kind: "secret",
    name: "url credentials, empty user",
    arb: fc
      .tuple(fc.constantFrom("redis", "rediss", "amqp"), marked(chars(ALNUM + "!*$", 6, 20)))
      .map(([scheme, pass]) => [`${scheme}://:${pass}@cache:6379/0`, pass] as const)
  },
  {
    kind: "secret",
    name: "secret cli flag",
    arb: fc
      .tuple(
        fc.constantFrom(
          "--password ",
          "--password=",
          "--db-password ",
          "-Dapp.datasource.password=",
          "--api-key ",
          "--token="
        ),
        marked(chars(ALNUM + "!%^*", 6, 24))
      )
      .map(([flag, v]) => [`${flag}${v}`, v] as const)
  },
  {
    kind: "secret",
    name: "mysql -p",
    arb: fc
      .tuple(fc.constantFrom("mysql", "mysqldump", "mysqladmin"), marked(chars(ALNUM + "!%*", 6, 20)))
      .map(([cmd, v]) => [`${cmd} -h db -u root -p${v} orders`, v] as const)
  },
  {
    kind: "secret",
    name: "tool or statement password",
    arb: fc
      .tuple(
        fc.constantFrom(
          (v: string) => `sshpass -p ${v} ssh -p 2222 deploy@bastion`,
          (v: string) => `docker login -u ci -p '${v}' registry`,
          (v: string) => `redis-cli -h cache -a "${v}" ping`,
          (v: string) => `curl -fsS -u admin:${v} https://api/x`,
          (v: string) => `sqlcmd -S db -U sa -P ${v} -Q x`,
          (v: string) => `ldapwhoami -x -w ${v}`,
          (v: string) => `smbclient //fs/s -U svc%${v} -c ls`,
          (v: string) => `sqlplus app/${v}@//db:1521/X`,
          (v: string) => `echo '${v}' | podman login --password-stdin reg`,
          (v: string) => `rabbitmqctl change_password admin ${v}`,
          (v: string) => `CREATE USER 'a'@'%' IDENTIFIED BY '${v}'`,
          (v: string) => `SET PASSWORD FOR 'a'@'%' = PASSWORD('${v}')`,
          (v: string) => `ALTER ROLE app WITH PASSWORD '${v}'`,
          (v: string) => `1700000000.1 [0 10.0.0.5:5000] "AUTH" "${v}"`
        ),
        marked(chars(ALNUM + "!%*", 6, 20))
      )
      .map(([line, v]) => [line(v), v] as const)
  },
  {
    kind: "secret",
    name: "password written in words (phrases.ts)",
    arb: fc
      .tuple(
        fc.constantFrom(
          (v: string) => `Passwort: ${v}`,
          (v: string) => `contraseña="${v}"`,
          (v: string) => `密码：${v}`,
          (v: string) => `пароль = ${v}`,
          (v: string) => `mot de passe: ${v}`,
          (v: string) => `using passphrase "${v} and more words"`,
          (v: string) => `login credentials admin/${v} accepted`
        ),
        marked(chars(ALNUM + "!%*", 6, 20))
      )
      .map(([line, v]) => [line(v), v] as const)
  },
  {
    kind: "secret",
    name: "payment card number",
    arb: fc
      .tuple(
        fc.constantFrom("4", "51", "55", "2221", "34", "37", "6011", "65"),
        chars(DIGITS, 15, 15),
        fc.constantFrom("", " ", "-")
      )
      .map(([prefix, body, sep]) => {
        const length = prefix === "34" || prefix === "37" ? 15 : 16
        const partial = (prefix + body).slice(0, length - 1)
        // The Luhn check digit that makes the number valid.
        let sum = 0
        for (let i = partial.length - 1, double = true; i >= 0; i--, double = !double) {
          let d = Number(partial[i]) * (double ? 2 : 1)
          if (d > 9) d -= 9
          sum += d
        }
        const pan = partial + String((10 - (sum % 10)) % 10)
        const grouped = sep === "" ? pan : (pan.match(/.{1,4}/g) ?? []).join(sep)
        return [`charge declined for card ${grouped} (code 51)`, grouped] as const
      })
  },
  {
    kind: "secret",
    name: "one-time code",
    arb: fc
      .tuple(
        fc.constantFrom(
          (v: string) => `your 2FA code is ${v}`,
          (v: string) => `OTP ${v} sent`,
          (v: string) => `verification code: ${v}`,
          (v: string) => `MFA token ${v} verified`
        ),
        chars(DIGITS, 6, 8)
      )
      .map(([line, v]) => [line(v), v] as const)
  },
  {
    kind: "secret",
    name: "password in prose",
    arb: fc
      .tuple(
        fc.constantFrom("the password was ", "Password ", "password is ", "passwd "),
        marked(chars(ALNUM + "!#%", 6, 20))
      )
      .map(([p, v]) => [`${p}${v} rejected`, v] as const)
  },
  {
    kind: "secret",
    name: "azure account key",
    arb: fc
      .tuple(fc.constantFrom("AccountKey=", "SharedAccessKey="), marked(chars(ALNUM + "+/", 30, 86)))
      .map(([k, v]) => [`AccountName=acme;${k}${v}==;EndpointSuffix=core.windows.net`, v] as const)
  },
  {
    kind: "secret",
    name: "azure sas",
    arb: marked(chars(ALNUM + "%", 10, 40)).map(
      (v) => [`SharedAccessSignature=sv=2022-11-02&ss=b&sig=${v}`, v] as const
    )
  },
  {
    kind: "secret",
    name: "sendgrid",
    arb: fc
      .tuple(marked(chars(B64URL, 20, 20)), marked(chars(B64URL, 41, 41)))
      .map(([a, b]) => [`SG.${a}.${b}`, b] as const)
  },
  {
    kind: "secret",
    name: "slack webhook",
    arb: fc
      .tuple(chars(UPPER + DIGITS, 8, 10), chars(UPPER + DIGITS, 8, 10), marked(chars(ALNUM, 22, 22)))
      .map(([t, b, k]) => [`https://hooks.slack.com/services/T${t}/B${b}/${k}`, k] as const)
  },
  {
    kind: "secret",
    name: "twilio api key",
    arb: same(chars("0123456789abcdef", 32, 32).map((h) => `SK${h}`))
  },
  { kind: "secret", name: "npm", arb: same(marked(chars(ALNUM, 34, 34)).map((b) => `npm_${b}`)) },
  { kind: "secret", name: "gitlab", arb: same(marked(chars(B64URL, 18, 18)).map((b) => `glpat-${b}`)) },
  {
    kind: "secret",
    name: "datadog key",
    arb: fc
      .tuple(
        fc.constantFrom("dd_api_key=", "DD_API_KEY: ", "DD-API-KEY: ", "dd_app_key=", "dd_api_key "),
        fc.constantFrom(...DIGITS.split("")),
        chars("0123456789abcdef", 31, 39)
      )
      .map(([k, d, v]) => [`${k}${d}${v}`, `${d}${v}`] as const)
  },
  {
    kind: "identity",
    name: "ipv4-mapped ipv6",
    arb: fc
      .tuple(
        fc.integer({ min: 1, max: 254 }),
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: 1, max: 254 }),
        fc.constantFrom("", "[")
      )
      .map(([a, b, c, d, bracket]) => {
        const tail = `${b}.${c}.${d}`
        const ip = `::ffff:${a}.${tail}`
        // After a word: a filler word right before `::` would read as `word: value`.
        return [bracket === "" ? `from ${ip}` : `via [${ip}]:8443`, tail] as const
      })
  },
  {
    kind: "identity",
    name: "host without known suffix",
    arb: fc
      .tuple(
        chars(LOWER, 2, 8),
        chars(LOWER, 3, 8),
        chars(DIGITS, 2, 2),
        fc.constantFrom("host=", "hostname: ", "server_name=", "connection to ", "", ".prod"),
        fc.constantFrom("6379", "5672", "3306")
      )
      .map(([a, b, n, ctx, port]) => {
        // `q...`: never one of the words that stop a host (`utf-8`, `sha-256`, ...).
        const name = `q${a}-${b}-${n}`
        if (ctx === "") return [`${name}:${port}`, name] as const
        if (ctx === ".prod") return [`${name}.prod`, `${name}.prod`] as const
        return [`${ctx}${name}`, name] as const
      })
  },
  {
    kind: "identity",
    name: "cloud node name",
    arb: fc
      .tuple(
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: 0, max: 255 }),
        chars(LOWER + DIGITS, 8, 8),
        chars(LOWER + DIGITS, 4, 4),
        fc.boolean()
      )
      .map(([b, c, d, h, s, gke]) =>
        gke
          ? ([`gke-prod-pool-1-${h}-${s}`, `${h}-${s}`] as const)
          : ([`ip-10-${b}-${c}-${d}`, `10-${b}-${c}-${d}`] as const)
      )
  },
  {
    kind: "identity",
    name: "statefulset or job pod",
    arb: fc
      .tuple(
        chars(LOWER, 3, 10),
        fc.oneof(fc.integer({ min: 0, max: 9 }).map(String), chars("bcdfghjklmnpqrstvwxz", 5, 5)),
        fc.constantFrom("pod/", "pod ", "pod=", "Created pod: ", '"pod_name": "', "kubernetes.pod_name=")
      )
      .map(([name, suffix, ctx]) => {
        const pod = /\d/.test(suffix) ? `${name}-${suffix}` : `${name}-job-${suffix}`
        return [`${ctx}${pod}`, pod] as const
      })
  },
  {
    kind: "identity",
    name: "oom killer pid",
    arb: fc
      .tuple(
        fc.integer({ min: 1000000, max: 4194304 }),
        fc.constantFrom("Killed process ", "Out of memory: Kill process ", "oom-kill:task=java,pid=")
      )
      .map(([pid, ctx]) => [`${ctx}${pid} (java)`, String(pid)] as const)
  }
]

/** Lower-case filler words (no digits, no upper case: they cannot contain a generated secret). */
export const fillerText = fc
  .array(chars(LOWER, 1, 9), { minLength: 0, maxLength: 12 })
  .map((words) => words.join(" "))
