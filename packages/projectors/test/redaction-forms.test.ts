import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { redactSecrets, redactText, VENDOR_TOKEN_FORMATS } from "../src/index.js"
import { FORM_CASES } from "./redaction-forms.js"
import { fillerText } from "./secrets.js"
import { exampleFor } from "./vendor-examples.js"

describe("redactText: every assignment and structure form", () => {
  it.each(FORM_CASES.map((c) => [c.form, c] as const))("%s", (_form, c) => {
    const out = redactText(c.line)
    for (const gone of c.gone) expect(out, `"${gone}" must go from: ${out}`).not.toContain(gone)
    for (const stay of c.stay) expect(out, `"${stay}" must stay in: ${out}`).toContain(stay)
  })

  it("names a host:port whose name holds a secret word a host, not a secret", () => {
    expect(redactText("cache-token-01:6379")).toBe("<HOST>")
    expect(redactText("redis qaa-pwd-00:6379 ready")).toBe("redis <HOST> ready")
  })

  it("maps a secret found in a decoded view back onto the encoded text", () => {
    expect(redactText("next=%2Fhome%3Ftoken%3DZq7Xk2Lm9Pw4%26a%3D1")).toBe(
      "next=%2Fhome%3Ftoken%3D<SECRET>%26a%3D1"
    )
    expect(redactSecrets(`{"b":"{\\"password\\":\\"Zq7Xk2\\"}"}`)).toBe(
      `{"b":"{\\"password\\":\\"<SECRET>\\"}"}`
    )
  })

  it("is idempotent on its own output", () => {
    for (const c of FORM_CASES) {
      const once = redactText(c.line)
      expect(redactText(once)).toBe(once)
    }
  })
})

describe("vendor token table", () => {
  it("has at least 80 rows, each with a vendor, a name and a compilable pattern", () => {
    expect(VENDOR_TOKEN_FORMATS.length).toBeGreaterThanOrEqual(80)
    for (const f of VENDOR_TOKEN_FORMATS) {
      expect(f.vendor.length).toBeGreaterThan(0)
      expect(() => new RegExp(f.pattern)).not.toThrow()
    }
  })

  it.each(VENDOR_TOKEN_FORMATS.map((f, i) => [`${f.vendor} ${f.name}`, f, i] as const))(
    "%s: its example is redacted with no key word, after = and in quotes",
    (_name, format, i) => {
      const token = exampleFor(format, 0x9e3779b9 ^ (i * 7919))
      expect(new RegExp(`^(?:${format.pattern})$`).test(token), `example ${token}`).toBe(true)
      for (const line of [`retrying with ${token} after 401`, `cred=${token}`, `using "${token}" now`]) {
        expect(redactText(line), line).not.toContain(token)
        expect(redactSecrets(line), line).not.toContain(token)
      }
    }
  )
})

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
/** A random value with an upper-case letter and a digit first (never a filler word). */
const secretValue = fc
  .tuple(
    fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZ".split("")),
    fc.constantFrom(..."0123456789".split("")),
    fc.string({ unit: fc.constantFrom(...ALNUM.split("")), minLength: 10, maxLength: 30 })
  )
  .map(([u, d, rest]) => `${u}${d}${rest}`)

const SYMBOLS = `${ALNUM}!#%&$*`
/** A value with an upper-case letter and a digit first, then letters, digits and symbols. */
const symbolValue = fc
  .tuple(
    fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZ".split("")),
    fc.constantFrom(..."0123456789".split("")),
    fc.string({ unit: fc.constantFrom(...SYMBOLS.split("")), minLength: 6, maxLength: 20 })
  )
  .map(([u, d, rest]) => `${u}${d}${rest}`)

const FORMS: ReadonlyArray<(key: string, value: string) => string> = [
  (k, v) => `"${k}","${v}"`,
  (k, v) => `svc,${k},${v},2026-03-01`,
  (k, v) => `--${k} '${v.slice(0, 4)}'"'"'${v.slice(4)}' --host db`,
  (k, v) => `sh -c '${k.toUpperCase()}='"'"'${v.slice(0, 4)}'"'"'${v.slice(4)} psql'`,
  (k, v) => `${k} := "${v}"`,
  (k, v) => `${k} ::= ${v}`,
  (k, v) => `:${k} => '${v}'`,
  (k, v) => `${k} -> ${v}`,
  (k, v) => `{"name":"${k}","value":"${v}"}`,
  (k, v) => `{"Key": "${k}", "Value": "${v}"}`,
  (k, v) => `<${k}>${v}</${k}>`,
  (k, v) => `"${k}","${v}"`,
  (k, v) => `export ${k}='${v}'`,
  (k, v) => `--${k}=${v}`,
  (k, v) => `{\\"${k}\\":\\"${v}\\"}`,
  (k, v) => `next=%3F${k}%3D${v}`
]

describe("redaction: properties", () => {
  it("a random secret under a secret key survives no form", () => {
    fc.assert(
      fc.property(
        fillerText,
        fc.constantFrom("password", "api_token", "client_secret", "DB_PASSWORD", "apiKey", "auth_token"),
        fc.nat(FORMS.length - 1),
        fc.oneof(secretValue, symbolValue),
        fillerText,
        (before, key, form, value, after) => {
          const line = `${before} ${FORMS[form]!(key, value)} ${after}`
          // Splice forms cut the value in two: neither part may survive.
          const parts = form === 2 || form === 3 ? [value.slice(0, 4), value.slice(4)] : [value]
          for (const part of parts.filter((p) => p.length >= 4)) {
            expect(redactText(line)).not.toContain(part)
            expect(redactSecrets(line)).not.toContain(part)
          }
        }
      ),
      { numRuns: 300 }
    )
  })

  it("a random token of any table row survives nowhere in random text", () => {
    fc.assert(
      fc.property(
        fillerText,
        fc.nat(VENDOR_TOKEN_FORMATS.length - 1),
        fc.integer(),
        fillerText,
        (b, row, seed, a) => {
          const token = exampleFor(VENDOR_TOKEN_FORMATS[row]!, seed)
          expect(redactText(`${b} ${token} ${a}`)).not.toContain(token)
        }
      ),
      { numRuns: 300 }
    )
  })

  it("a random prefixed token with no table row survives nowhere", () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz".split("")),
          minLength: 2,
          maxLength: 6
        }),
        fc.constantFrom("_", "-"),
        fc.integer(),
        fc.integer({ min: 20, max: 48 }),
        (prefix, sep, seed, length) => {
          // A uniformly random base62 body (shrinking must not turn it into `A0AAAA…`).
          // The guarantee: 20+ characters with a digit and two upper- and lower-case letters.
          const random = exampleFor({ vendor: "-", name: "-", pattern: `[A-Za-z0-9]{${length - 5}}` }, seed)
          const body = `${random.slice(0, 9)}Qx7${random.slice(9)}kZ`
          const token = `${prefix}${sep}${body}`
          expect(redactText(`found ${token} in build log`)).not.toContain(body)
        }
      ),
      { numRuns: 300 }
    )
  })

  it("metric counts and ids stay", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("prompt_tokens", "completion_tokens", "active_sessions", "max_tokens", "token_count"),
        fc.nat(1_000_000),
        (key, n) => {
          const line = `usage ${key}=${n} ok`
          expect(redactText(line)).toBe(line)
        }
      )
    )
  })
})
