import { QUOTED } from "./cli.js"
import { PLACEHOLDERS } from "./placeholders.js"

/**
 * Secrets that people and programs write in words rather than as `key=value` with an English
 * key: a password key in another language (`Passwort: X`, `contraseña=X`, `密码：X`), a quoted
 * password or passphrase in prose (`passphrase "correct horse battery staple"`), a one-time code
 * (`your 2FA code is 918273`), a `user/password` pair after "credentials", a webhook's HMAC
 * (`signature sha256=<hex>`), and in code a literal after a secret key's expression (`password:
 * process.env.X || 'X'`) or as the second of an auth pair (`auth=('u', 'X')`), the password of
 * a `.pgpass` line, a GitHub Actions `::add-mask::` value and a value handed to a command that
 * stores a secret (`<<< 'X'`, `--value X` after a secret's name, `set "Db:Password" "X"`). Text
 * that only names them (`Passwort vergessen?`, `verification code sent`, `signature verification
 * failed`, `auth=("oauth2", "bearer")`) has no value in those places and stays.
 */

const SECRET = PLACEHOLDERS.secret

/**
 * "Password" in other languages, written with letters a key-value key cannot hold (non-ASCII, or
 * blanks: `mot de passe`); the ASCII spellings (`Passwort`, `senha`) are secret keys in rules.ts.
 */
const PASSWORD_WORDS = [
  "mot de passe",
  "contraseña",
  "hasło",
  "lösenord",
  "şifre",
  "jelszó",
  "пароль",
  "密码",
  "密碼",
  "口令",
  "パスワード",
  "비밀번호",
  "κωδικός"
]

/** A key in one of those languages (optionally quoted), `:`, `=` or a full-width colon, a value. */
const FOREIGN_KEY_RE = new RegExp(
  `(?<![\\p{L}\\p{N}_])((?:${PASSWORD_WORDS.join("|")})["']?[ \\t]*[:=：][ \\t]*)(?:${QUOTED}|(?![<'"])[^\\s'",;]{1,256})`,
  "giu"
)
/** Whole-text ASCII check (anchored: faster than searching for one non-ASCII character). */
const ASCII_ONLY_RE = /^[\x00-\x7f]*$/

/** `password "X"`, `passphrase 'X'`, `set passphrase to "X"`: blanks (and a linking word), a quote. */
const QUOTED_PROSE_RE =
  /(?<![\w-])((?:passw(?:or)?d|passphrase)(?:[ \t]+(?:is|was|of|now|to|set to|changed to))?[ \t]+)(["'])(?!<[A-Z_]{2,20}>)([^"'\r\n]{4,256})\2/gi
/** Quoted words that describe a password instead of being one. */
const NOT_A_PASSWORD_RE =
  /^(?:\*+|x+|redacted|masked|hidden|none|null|empty|required|invalid|reset|changed|expired)$/i

/** `OTP 482913`, `your 2FA code is 918273`, `MFA token 552019`, `verification code: 730155`. */
const ONE_TIME_CODE_RE =
  /(?<![\w-])((?:t?otp(?:[ \t]+code)?|one[- ]time[ \t]+(?:code|password|passcode|pin)|(?:verification|confirmation|security|login|sms|2fa|mfa|auth(?:entication)?)[ \t]+(?:code|token|pin)|passcode)(?:[ \t]+(?:is|was))?[ \t]*[:=]?[ \t]*)\d{4,8}(?![\d.,:/-])/gi
const ONE_TIME_HINT_RE = /code|otp|mfa|2fa|one[- ]time/i

/** `credentials admin/X`, `credentials are bob:X`: the part after the user goes (when it looks like one). */
const CREDENTIAL_PAIR_RE =
  /(?<![\w-])(credentials?(?:[ \t]+(?:are|is|were|was))?[ \t]*[:=]?[ \t]+[^\s/:@'"]{1,64}[/:])([^\s'"/]{4,256})/gi
const PASSWORD_SHAPED_RE = /^(?=.*[A-Za-z])(?=.*[\d!#$%&*+=?@^_~]).+$/

/** `X-Hub-Signature-256: sha256=<hex>`, `signature sha1=<hex>`: a webhook's HMAC. */
const HMAC_RE =
  /((?:signature|sig)[\w-]{0,8}[ \t]*[:=]?[ \t]*(?:sha1|sha256|sha512)=)[0-9a-fA-F]{40,128}(?![0-9a-fA-F])/gi

/**
 * A literal after a secret key's expression, as its fallback or argument: `password:
 * process.env.X || 'X'`, `pass = env.get("SMTP_PASS") ?? "X"`, `os.getenv("DB_PASSWORD", "X")`.
 */
const FALLBACK_RE =
  /((?:passw(?:or)?d|passphrase|pwd|pass|secret|token|api[_-]?key)[\w-]{0,16}["']?[ \t]*(?:=>|:=|[:=])[ \t]*(?:[^\r\n;'"]|"[^"\r\n]{0,64}"|'[^'\r\n]{0,64}'){1,128}?(?:\|\||\?\?|[ \t]or[ \t]|,)[ \t]*)(["'])([^"'\r\n\\]{6,256})\2/gi
/** A fallback operator or an environment lookup with a default (`getenv("X", "d")`, `fetch(`). */
const FALLBACK_HINT_RE = /\|\||\?\?|[ \t]or[ \t]|get(?:env)?\(|fetch\(/
/** `auth=("user", "X")`, `HTTPBasicAuth("user", "X")`, `aiohttp.BasicAuth('user', 'X')`. */
const AUTH_PAIR_RE =
  /((?:\bauth|BasicAuth|DigestAuth|basic_auth|http_auth)[ \t]*(?:=[ \t]*)?\([ \t]*(["'])[^"'\r\n]{1,128}\2[ \t]*,[ \t]*)(["'])([^"'\r\n\\]{1,256})\3/gi
/** A `.pgpass` line: `host:port:database:user:password` (`*` wildcards), the password last. */
const PGPASS_RE =
  /(?<![^\s"'])((?:[^:\s"']{1,253}|\*):(?:\d{1,5}|\*):(?:[^:\s]{1,63}|\*):[^:\s]{0,62}[A-Za-z_][^:\s]{0,62}:)(?![<])[^\s:]{1,256}(?=[\s"']|$)/gm
/** Consul/Nomad ACL tokens as their CLIs print them: `SecretID: <uuid>`, `Secret ID = <uuid>`. */
const SECRET_ID_RE =
  /(\bSecret[ _-]?ID[ \t]*[:=][ \t]*)[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/gi
/** GitHub Actions' `::add-mask::VALUE`: the value is what the runner must hide. */
const ADD_MASK_RE = /(::add-mask::)(?![<\s])[^\s"']{1,4096}/g

/** A secret-named argument earlier in the same command (`db-password`, `NPM_TOKEN`, `secret set`). */
const SECRET_ARG = "(?:passw|passphrase|pwd|secret|token|api[_-]?key|credential)"
/** A value given after a secret-named argument: `<<< 'X'`, `--value X`, `--body X`, `--secret-string X`. */
const SECRET_VALUE_FLAG_RE = new RegExp(
  String.raw`(${SECRET_ARG}[^\r\n|;&]{0,200}?(?:<<<[ \t]*|[ \t]--(?:value|body|secret-string)(?:[ \t]+|=)))(?:${QUOTED}|(?![-<'"])[^\s'"]{1,4096})`,
  "gi"
)
/** `set KEY VALUE` with a secret-named key: `dotnet user-secrets set "Smtp:Password" "X"`. */
const SET_SECRET_RE = new RegExp(
  String.raw`(\b(?:set|add|put)[ \t]+(["']?)[\w.:/-]{0,64}${SECRET_ARG}[\w.:/-]{0,64}\2[ \t]+)(?:(["'])([^"'\r\n]{1,4096})\3|(?![-<])([^\s'"]{1,4096}))`,
  "gi"
)

/**
 * Keys, codes and phrases named by two words and `:` or `=` (`signing key: X`, `recovery key =
 * 4821-...`, `backup codes: a b c`, `seed phrase: w1 w2 ...`): one value after a key, code or pin,
 * the rest of the clause (to `;` or the line's end) after codes and phrases.
 */
const NAMED = String.raw`\b(?:encryption|private|master|secret|signing|api|access|license|licence|recovery|product|activation|serial|backup|unlock|wallet|seed|mnemonic)[ ]`
const NAMED_SEP = String.raw`[ \t]*[:=](?![:=>])(?![ \t]*[<'"])[ \t]*`
const NAMED_SINGLE_RE = new RegExp(String.raw`(${NAMED}(?:key|code|pin)${NAMED_SEP})([^\s;,'"]{1,256})`, "gi")
const NAMED_LIST_RE = new RegExp(
  String.raw`(${NAMED}(?:codes|phrase|words)${NAMED_SEP})([^\s;'"][^\r\n;'"]{0,511})`,
  "gi"
)
const NAMED_QUOTED_RE = new RegExp(
  String.raw`(${NAMED}(?:key|code|pin|codes|phrase|words)[ \t]*[:=](?![:=>])[ \t]*)${QUOTED}`,
  "gi"
)
/** States, not values: `license key: expired`. */
const NOT_A_VALUE_RE = /^(?:none|null|empty|expired|missing|required|invalid|\*+)$/i
const NAMED_KEY_HINT_RE = / (?:key|code|codes|pin|phrase|words)[ \t]*[:=]/i
/**
 * A grouped key right after `key` or `code` with no separator (`BitLocker recovery key
 * 123456-...`, `product key VK7JG-...`): four or more dash-joined groups; not a UUID.
 */
const GROUPED_KEY_RE =
  /(\b(?:key|code)[ \t]+)(?![0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b)[A-Za-z0-9]{4,8}(?:-[A-Za-z0-9]{4,8}){3,11}(?![\w-])/gi

/** A literal that reads as a password, not a name (`DB_PASSWORD`) or a word (`bearer`). */
const isPasswordLiteral = (value: string): boolean =>
  PASSWORD_SHAPED_RE.test(value) && !/^[A-Z][A-Z0-9_]*$/.test(value) && !/^[a-z][\w+.-]*:\/\//i.test(value)

/** Password keys in other languages (non-ASCII or with blanks; any text). */
const redactForeignKeys = (text: string): string =>
  !ASCII_ONLY_RE.test(text) || text.includes("de passe") ? text.replace(FOREIGN_KEY_RE, `$1${SECRET}`) : text

/** One-time codes (the caller has seen `code`, `otp`, `mfa`, `2fa` or `one-time`). */
const redactOneTimeCodes = (text: string): string =>
  ONE_TIME_HINT_RE.test(text) ? text.replace(ONE_TIME_CODE_RE, `$1${SECRET}`) : text

/** Credential pairs and HMACs (the caller has seen `cred` or `sig`). */
const redactPairsAndSignatures = (text: string): string => {
  let out = text
  if (/cred/i.test(out)) {
    out = out.replace(CREDENTIAL_PAIR_RE, (whole, head: string, value: string) =>
      PASSWORD_SHAPED_RE.test(value) ? `${head}${SECRET}` : whole
    )
  }
  return /sig/i.test(out) ? out.replace(HMAC_RE, `$1${SECRET}`) : out
}

/** Quoted passwords in prose (the caller has seen a quote). */
const redactQuotedProse = (text: string): string =>
  /passw|passphrase/i.test(text)
    ? text.replace(QUOTED_PROSE_RE, (whole, head: string, q: string, value: string) =>
        NOT_A_PASSWORD_RE.test(value.trim()) ? whole : `${head}${q}${SECRET}${q}`
      )
    : text

/** Literals in code: a secret key's fallback or default, the password of an auth pair (quoted text). */
const redactCodeLiterals = (text: string): string => {
  const literal = (whole: string, head: string, q: string, value: string): string =>
    isPasswordLiteral(value) ? `${head}${q}${SECRET}${q}` : whole
  let out = text
  if (FALLBACK_HINT_RE.test(out)) out = out.replace(FALLBACK_RE, literal)
  if (/auth/i.test(out)) {
    out = out.replace(AUTH_PAIR_RE, (whole, head: string, _q1: string, q: string, value: string) =>
      literal(whole, head, q, value)
    )
  }
  return out
}

/** What quoted prose or a code literal needs besides a quote. */
const QUOTED_FAMILIES_RE = /passw|passphrase|auth|\|\||\?\?|[ \t]or[ \t]|get(?:env)?\(|fetch\(/i
/** What a secret-storing command holds. */
const SECRET_SETTING_HINT_RE = /<<<|--value|--body|--secret-string|\b(?:set|add|put)[ \t]/i

/** A word that one-time codes, `::add-mask::` or `SecretID` lines hold (case as they print it). */
const LEAD_WORDS_RE = /ode|ODE|otp|OTP|Otp|mfa|MFA|2fa|2FA|one[- ]time|add-mask|ecret[ _-]?I[Dd]/
/** A `.pgpass` shape: four fields then a fifth (a clock time `10:00:00` stops at the third). */
const PGPASS_HINT_RE = /:(?:\d{1,5}|\*):[^:\s]{1,63}:[^:\s]{1,63}:[^\s:]/

/** Values handed to a command that stores a secret (`<<<`, `--value`, `set KEY VALUE`). */
const redactSecretSettingCommands = (text: string): string => {
  let out = text
  if (/<<<|--value|--body|--secret-string/.test(out)) out = out.replace(SECRET_VALUE_FLAG_RE, `$1${SECRET}`)
  if (/\b(?:set|add|put)[ \t]/i.test(out)) {
    out = out.replace(
      SET_SECRET_RE,
      (
        whole,
        head: string,
        _kq: string,
        q: string | undefined,
        quoted: string | undefined,
        bare: string | undefined
      ) =>
        q !== undefined && quoted !== undefined
          ? `${head}${q}${SECRET}${q}`
          : bare !== undefined && isPasswordLiteral(bare)
            ? `${head}${SECRET}`
            : whole
    )
  }
  return out
}

/** Two-word key, code and phrase names (the caller has seen one): see {@link NAMED_SINGLE_RE}. */
const redactNamedKeys = (text: string): string => {
  const value = (whole: string, head: string, found: string): string => {
    const trimmed = found.trimEnd()
    return NOT_A_VALUE_RE.test(trimmed) ? whole : `${head}${SECRET}${found.slice(trimmed.length)}`
  }
  return text
    .replace(NAMED_QUOTED_RE, `$1"${SECRET}"`)
    .replace(NAMED_SINGLE_RE, value)
    .replace(NAMED_LIST_RE, value)
}

/** `::add-mask::` values and `SecretID` lines (no key word in either). */
const redactCredentialFiles = (text: string): string => {
  let out = text
  if (out.includes("::add-mask::")) out = out.replace(ADD_MASK_RE, `$1${SECRET}`)
  if (/secret[ _-]?id/i.test(out)) out = out.replace(SECRET_ID_RE, `$1${SECRET}`)
  return out
}

/**
 * Each group of rules runs only on text holding its words (one scan per group); `hint` is
 * `hasKeyHint` of the text, which every group's words contain but the first three's.
 */
export const redactPhrasePasswords = (text: string, hint: boolean): string => {
  let out = redactForeignKeys(text)
  // One scan for the words of the families below that need no key word (most texts have none).
  if (LEAD_WORDS_RE.test(out)) out = redactCredentialFiles(redactOneTimeCodes(out))
  if (PGPASS_HINT_RE.test(out)) out = out.replace(PGPASS_RE, `$1${SECRET}`)
  if (NAMED_KEY_HINT_RE.test(out)) out = redactNamedKeys(out)
  if (/(?:key|code)[ \t]+[A-Za-z0-9]{4,8}-/i.test(out)) out = out.replace(GROUPED_KEY_RE, `$1${SECRET}`)
  if (!hint) return out
  // Each group behind one scan for its words.
  if (/cred|sig/i.test(out)) out = redactPairsAndSignatures(out)
  if ((out.includes('"') || out.includes("'")) && QUOTED_FAMILIES_RE.test(out))
    out = redactCodeLiterals(redactQuotedProse(out))
  if (SECRET_SETTING_HINT_RE.test(out)) out = redactSecretSettingCommands(out)
  return out
}
