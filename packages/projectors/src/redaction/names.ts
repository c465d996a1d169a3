/** Key words that make a column / field name sensitive wherever they occur in it. */
const SENSITIVE_SUBSTRINGS = [
  "password",
  "passwd",
  "passphrase",
  "secret",
  "token",
  "credential",
  "apikey",
  "privatekey",
  "accesskey",
  "secretkey",
  "signingkey",
  "encryptionkey",
  "sessionid",
  "cookie",
  "authorization",
  "socialsecurity",
  "creditcard",
  "cardnumber",
  "recoverycode",
  "bearer",
  // "password" in other languages, ASCII spellings
  "passwort",
  "kennwort",
  "wachtwoord",
  "senha",
  "contrasena",
  "motdepasse",
  "haslo"
] as const

/** "Password" written in other scripts or with letters the compact form drops. */
const SENSITIVE_NON_ASCII = [
  "contraseña",
  "hasło",
  "şifre",
  "пароль",
  "密码",
  "密碼",
  "口令",
  "パスワード",
  "비밀번호"
]

/** Short key words that count only as a whole name part (`ssn`, not `classname`). */
const SENSITIVE_PARTS: ReadonlySet<string> = new Set([
  "pwd",
  "pass",
  "pw",
  "ssn",
  "pin",
  "otp",
  "cvv",
  "cvc",
  "iban",
  "mfa",
  "totp",
  "salt",
  "auth",
  "jwt",
  "session",
  "sin",
  "tin"
])

const PARTS_RE = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g

/**
 * True when a column or field name names a secret, whatever its case, prefix or suffix:
 * `password`, `USER_PASSWORD_HASH`, `apiToken`, `x-api-key`, `ssn`, `db.pwd`.
 */
export const isSensitiveName = (name: string): boolean => {
  const compact = name.toLowerCase().replace(/[^a-z0-9]/g, "")
  for (const word of SENSITIVE_SUBSTRINGS) if (compact.includes(word)) return true
  for (const part of name.match(PARTS_RE) ?? []) if (SENSITIVE_PARTS.has(part.toLowerCase())) return true
  if (compact.length !== name.length) {
    const lower = name.toLowerCase()
    for (const word of SENSITIVE_NON_ASCII) if (lower.includes(word)) return true
  }
  return false
}
