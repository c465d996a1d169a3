import { QUOTED } from "./cli.js"
import { keepThenSecret as keep } from "./placeholders.js"

/**
 * Passwords that SQL statements and Redis commands carry by syntax, with no `key=` in front:
 * `IDENTIFIED BY 'X'`, `PASSWORD('X')`, `SET PASSWORD ... = 'X'`, `WITH [ENCRYPTED] PASSWORD 'X'`
 * (general and slow query logs, `pg_stat_activity`, processlists), Redis `AUTH [user] X` at a
 * prompt, `"AUTH" ... "X"` in MONITOR output, `requirepass X` / `masterauth X` in a config line
 * or after `CONFIG SET`, Sentinel's `auth-pass`. Text that only names them (`AUTH failed`,
 * `requirepass is not set`, `SET PASSWORD is deprecated`) has no value in those places and is
 * left alone.
 */

/** A quoted value or a bare word that is not a placeholder. */
const VALUE = `(?:${QUOTED}|(?![<'"])[^\\s'";,)]{1,256})`

/** Each regex keeps group 1 and replaces what follows it. */
const SQL_RES: ReadonlyArray<RegExp> = [
  // MySQL, MariaDB, Oracle: IDENTIFIED [WITH plugin] BY [PASSWORD] X (bare in Oracle).
  new RegExp(`(\\bIDENTIFIED[ \\t]+(?:WITH[ \\t]+\\S+[ \\t]+)?BY[ \\t]+(?:PASSWORD[ \\t]+)?)${VALUE}`, "gi"),
  // MySQL's PASSWORD('X') function.
  new RegExp(`(\\bPASSWORD[ \\t]*\\([ \\t]*)${QUOTED}`, "gi"),
  // SET PASSWORD [FOR user] = 'X'.
  new RegExp(`(\\bSET[ \\t]+PASSWORD\\b[^=\\r\\n]{0,256}=[ \\t]*)${QUOTED}`, "gi"),
  // PostgreSQL (WITH [ENCRYPTED] PASSWORD 'X', ALTER USER u PASSWORD 'X'), SQL Server (WITH
  // PASSWORD = 'X'): after the statement's own words (`password = 'X'` alone is the key-value
  // rules').
  new RegExp(
    `(\\b(?:WITH|LOGIN|ENCRYPTED|UNENCRYPTED|USER[ \\t]+\\S+|ROLE[ \\t]+\\S+)[ \\t]+PASSWORD(?:[ \\t]*=[ \\t]*|[ \\t]+))${QUOTED}`,
    "gi"
  )
]
/** Only text that may hold one of the above (a bare `password=x` does not). */
const SQL_HINT_RE = /IDENTIFIED|PASSWORD[ \t]*\(|SET[ \t]+PASSWORD|[ \t]PASSWORD[ \t]*=?[ \t]*['"]/i

/** SASL mechanism names: `AUTH LOGIN`, `AUTH PLAIN` (SMTP, IMAP) name no password. */
const SASL_MECHANISMS =
  "LOGIN|PLAIN|CRAM-MD5|DIGEST-MD5|XOAUTH2|OAUTHBEARER|GSSAPI|NTLM|EXTERNAL|ANONYMOUS|SCRAM-SHA-1|SCRAM-SHA-256"

/**
 * `AUTH X` or `AUTH user X` as the whole command (a line's or after a prompt's `>`), upper case;
 * not a status (`AUTH failed`, `AUTH OK`) or a SASL mechanism (`AUTH LOGIN`).
 */
const AUTH_COMMAND_RE = new RegExp(
  `((?:^|>)[ \\t]*AUTH[ \\t]+(?:\\S+[ \\t]+)?)(?!(?:OK|ok|failed|error|required|succeeded|success|${SASL_MECHANISMS})(?![\\w-]))${VALUE}(?=[ \\t]*$)`,
  "gm"
)
/**
 * MONITOR: `"AUTH" "X"` or `"AUTH" "user" "X"`, X the last argument; the quotes stay (`"<SECRET>"`),
 * so that a second pass finds nothing to take.
 */
const AUTH_MONITOR_RE =
  /("auth"[ \t]+(?:"(?:[^"\\\r\n]|\\.){0,256}"[ \t]+)?")(?!<)(?:[^"\\\r\n]|\\.){1,256}(?="(?![ \t]+"))/gi
/** redis.conf lines and `CONFIG SET`: `requirepass X`, `masterauth X`, the value ending the line. */
const REDIS_CONFIG_RE = new RegExp(
  `((?:^[ \\t]*|\\bCONFIG[ \\t]+SET[ \\t]+)(?:requirepass|masterauth)[ \\t]+)${VALUE}(?=[ \\t]*$)`,
  "gim"
)

/**
 * Sentinel's passwords (sentinel.conf, `SENTINEL SET`): `sentinel auth-pass <master> X`,
 * `sentinel set <master> auth-pass X`, `sentinel sentinel-pass X`.
 */
const SENTINEL_RE = new RegExp(
  `(\\bsentinel[ \\t]+(?:auth-pass[ \\t]+\\S+|set[ \\t]+\\S+[ \\t]+auth-pass|sentinel-pass)[ \\t]+)${VALUE}`,
  "gi"
)

/**
 * `keyHint`: whether the text holds a secret key word (`pass`, `auth`, ...; rules.ts
 * `hasKeyHint`). Every rule here but `IDENTIFIED BY` needs one, so most lines cost one test.
 */
export const redactStatementPasswords = (text: string, keyHint: boolean): string => {
  let out = text
  if (!keyHint) return /IDENTIFIED/i.test(out) ? out.replace(SQL_RES[0]!, keep) : out
  if (SQL_HINT_RE.test(out)) for (const re of SQL_RES) out = out.replace(re, keep)
  // The command upper case, or quoted as MONITOR prints it (`Authorization` is neither).
  if (/AUTH|"auth"/.test(out)) out = out.replace(AUTH_COMMAND_RE, keep).replace(AUTH_MONITOR_RE, keep)
  if (/requirepass|masterauth|REQUIREPASS|MASTERAUTH/.test(out)) out = out.replace(REDIS_CONFIG_RE, keep)
  if (/-pass/i.test(out)) out = out.replace(SENTINEL_RE, keep)
  return out
}
