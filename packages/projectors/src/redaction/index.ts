import type { Json } from "@aiops-harness/core"
import { redactBoundParameters } from "./bindings.js"
import { redactCardNumbers } from "./cards.js"
import { redactCliPasswords } from "./cli.js"
import { isSensitiveName } from "./names.js"
import { redactPhrasePasswords } from "./phrases.js"
import { redactProtocolPasswords } from "./protocols.js"
import {
  hasKeyHint,
  redactAuthAndEntropy,
  redactEmails,
  redactFlagsAndProse,
  redactHosts,
  redactIps,
  redactKeyValues,
  redactPids,
  redactPods,
  redactPrivateKeys,
  redactSqlLiterals,
  redactStackTraces,
  redactSyslogHosts,
  redactTokenShapes,
  redactUrlCredentials
} from "./rules.js"
import { redactStatementPasswords } from "./statements.js"
import { redactStructured } from "./structured.js"
import { redactDecodedViews } from "./views.js"

export { isSensitiveName } from "./names.js"
export type { VendorTokenFormat } from "./vendors.js"
export { VENDOR_TOKEN_FORMATS } from "./vendors.js"
export type { Placeholder } from "./rules.js"
export { PLACEHOLDERS } from "./rules.js"

/**
 * Secrets only: private keys, credentials in URLs, JWTs, cloud/SaaS key shapes and webhook URLs,
 * `key=value` / JSON-field secrets, secret CLI flags (`--password x`) and tools' own password
 * options (`mysql -px`, `sshpass -p x`, `curl -u user:x`, ... see cli.ts), passwords in
 * prose, bearer/basic auth and high-entropy values after a secret key word.
 * Leaves hosts, IPs and identifiers alone (used for document sources and titles).
 */
export const redactSecrets = (text: string): string => {
  if (text.length === 0) return text
  return secretRules(redactDecodedViews(text, viewRules))
}

/** On a decoded view: the rules an encoded secret can hide from (no private keys). */
const viewRules = (text: string): string => {
  const hint = hasKeyHint(text)
  const out = redactCommands(redactStructured(redactTokenShapes(redactUrlCredentials(text)), hint), hint)
  return redactAuthAndEntropy(redactFlagsAndProse(redactKeyValues(out, hint), hint), hint)
}

/**
 * Passwords that commands carry by position or syntax (`sshpass -p X`, `IDENTIFIED BY 'X'`,
 * `AUTH X`), before the key-value rules read `SET PASSWORD = PASSWORD('X')` as `key=value`; and
 * those written in words or code (phrases.ts: keys in other languages, quoted passphrases, one-time
 * codes, fallback literals, auth pairs, `.pgpass`, `::add-mask::`) and protocol transcripts
 * (protocols.ts: Redis ACL, FTP, IMAP, SMTP, ZooKeeper, SNMP).
 */
const redactCommands = (text: string, hint: boolean): string =>
  redactPhrasePasswords(
    redactProtocolPasswords(redactStatementPasswords(redactCliPasswords(text), hint)),
    hint
  )

/** The secret rules on one (possibly decoded) view of the text. */
const secretRules = (text: string): string => secretRulesAfterKeys(redactPrivateKeys(text))

/**
 * The secret rules but private keys, on text whose private keys are already replaced
 * (`redactText` does that first; a second pass could never match again).
 */
const secretRulesAfterKeys = (text: string): string => {
  // Redactions only remove text, so a key-word hint taken once holds for every later pass
  // (`<PRIVATE_KEY>` and the key block it replaced both hold `key`).
  const hint = hasKeyHint(text)
  let out = redactUrlCredentials(text)
  out = redactCardNumbers(out)
  out = redactTokenShapes(out)
  out = redactStructured(out, hint)
  out = redactCommands(out, hint)
  out = redactKeyValues(out, hint)
  out = redactFlagsAndProse(out, hint)
  out = redactAuthAndEntropy(out, hint)
  return out
}

/**
 * The whole catalogue on one string: stack-trace suffixes, secrets, SQL literals (inside
 * SQL-looking text), e-mail addresses, IPv4/IPv6 (with ports), Kubernetes pod names, host names
 * and PIDs. Every redaction leaves a typed placeholder (`<SECRET>`, `<IP>`, `<HOST>`, ...).
 * Service names, levels, exception class names and message words are kept.
 */
export const redactText = (text: string): string => {
  if (text.length === 0) return text
  let out = redactPrivateKeys(text)
  out = redactStackTraces(out)
  out = secretRulesAfterKeys(redactDecodedViews(out, viewRules))
  // Bound values first: the literal rule would read `binding parameter [1]`'s index as one.
  out = redactSqlLiterals(redactBoundParameters(out))
  out = redactEmails(out)
  out = redactIps(out)
  out = redactPods(out)
  out = redactHosts(out)
  out = redactPids(out)
  out = redactSyslogHosts(out)
  return out
}

/**
 * {@link redactText} applied to every string of a JSON value (object keys are kept; values of
 * keys that name a secret are replaced by `<SECRET>` whatever their type).
 */
export const redactValue = (value: Json): Json => {
  if (typeof value === "string") return redactText(value)
  if (value === null || typeof value !== "object") return value
  if (Array.isArray(value)) return value.map((item) => redactValue(item))
  const out: Record<string, Json> = {}
  for (const [key, item] of Object.entries(value as { readonly [key: string]: Json })) {
    out[key] = isSensitiveName(key) && item !== null ? "<SECRET>" : redactValue(item)
  }
  return out
}
