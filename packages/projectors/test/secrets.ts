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
  /** [text to embed, the secret part that must not survive] */
  readonly arb: fc.Arbitrary<readonly [string, string]>
}

const same = (arb: fc.Arbitrary<string>) => arb.map((s) => [s, s] as const)

export const SECRET_SHAPES: ReadonlyArray<SecretShape> = [
  {
    name: "aws access key",
    arb: same(
      fc.tuple(fc.constantFrom("AKIA", "ASIA"), chars(UPPER + DIGITS, 16, 16)).map(([p, b]) => `${p}${b}`)
    )
  },
  {
    name: "aws secret key",
    arb: fc
      .tuple(
        fc.constantFrom("aws_secret_access_key=", "secret_key: ", ""),
        marked(chars(ALNUM + "/+", 38, 38))
      )
      .map(([k, v]) => [`${k}${v}`, v] as const)
  },
  {
    name: "github",
    arb: same(
      fc.tuple(fc.constantFrom("ghp_", "gho_", "ghs_"), marked(chars(ALNUM, 34, 34))).map(([p, b]) => p + b)
    )
  },
  { name: "github pat", arb: same(marked(chars(ALNUM + "_", 30, 60)).map((b) => `github_pat_${b}`)) },
  {
    name: "slack",
    arb: same(
      fc
        .tuple(fc.constantFrom("xoxb-", "xoxp-", "xoxa-"), marked(chars(ALNUM + "-", 20, 40)))
        .map(([p, b]) => p + b)
    )
  },
  {
    name: "stripe",
    arb: same(
      fc.tuple(fc.constantFrom("sk_live_", "rk_live_"), marked(chars(ALNUM, 20, 40))).map(([p, b]) => p + b)
    )
  },
  { name: "google", arb: same(marked(chars(B64URL, 33, 33)).map((b) => `AIza${b}`)) },
  {
    name: "openai",
    arb: same(
      fc.tuple(fc.constantFrom("sk-", "sk-proj-"), marked(chars(ALNUM, 30, 48))).map(([p, b]) => p + b)
    )
  },
  {
    name: "jwt",
    arb: same(
      fc
        .tuple(marked(chars(B64URL, 10, 40)), marked(chars(B64URL, 10, 80)), chars(B64URL, 10, 43))
        .map(([h, p, s]) => `eyJ${h}.${p}.${s}`)
    )
  },
  {
    name: "private key",
    arb: fc
      .tuple(fc.constantFrom("RSA ", "EC ", "OPENSSH ", ""), marked(chars(ALNUM + "+/", 20, 120)))
      .map(
        ([kind, body]) =>
          [`-----BEGIN ${kind}PRIVATE KEY-----\n${body}\n-----END ${kind}PRIVATE KEY-----`, body] as const
      )
  },
  {
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
    name: "json field",
    arb: fc
      .tuple(
        fc.constantFrom("password", "token", "secret", "credential", "authorization"),
        marked(chars(ALNUM + "!@#% ", 6, 24))
      )
      .map(([k, v]) => [`{"${k}": "${v}"}`, v] as const)
  },
  {
    name: "bearer",
    arb: fc
      .tuple(fc.constantFrom("Bearer ", "Authorization: Bearer "), marked(chars(ALNUM + "._-", 12, 60)))
      .map(([p, v]) => [`${p}${v}`, v] as const)
  },
  {
    name: "basic",
    arb: fc
      .tuple(fc.constantFrom("Basic ", "Authorization: Basic "), marked(chars(ALNUM + "+/", 12, 40)))
      .map(([p, v]) => [`${p}${v}=`, v] as const)
  },
  {
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
  }
]

/** Lower-case filler words (no digits, no upper case: they cannot contain a generated secret). */
export const fillerText = fc
  .array(chars(LOWER, 1, 9), { minLength: 0, maxLength: 12 })
  .map((words) => words.join(" "))
