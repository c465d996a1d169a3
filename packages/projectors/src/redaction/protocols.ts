import { ANY_VALUE as VALUE } from "./cli.js"
import { keepThenSecret as keep, PLACEHOLDERS } from "./placeholders.js"

/**
 * Passwords that protocol transcripts and network configs carry by position: Redis `ACL SETUSER
 * name ... >X`, FTP `PASS X`, IMAP `a1 LOGIN user X`, the SMTP `AUTH LOGIN` exchange (the line
 * after the `Password:` prompt, `334 UGFzc3dvcmQ6`), ZooKeeper `addauth digest user:X` and SNMP
 * communities (`snmp-server community X`, `rocommunity X`). Each rule runs only on text holding
 * its command word.
 */

const SECRET = PLACEHOLDERS.secret

/** `>X` adds password X to a Redis ACL user (`#<sha256>` adds a hash: kept). */
const ACL_PASSWORD_RE = /((?:^|[ \t])>)(?!<)[^\s]{1,256}/g
const ACL_LINE_RE = /\bACL[ \t]+SETUSER\b[^\r\n]*/gi

/** FTP: `PASS X` as the whole command (a transcript's `>` or `C:` prompt allowed). */
const FTP_PASS_RE = new RegExp(`((?:^|[>:])[ \\t]*PASS[ \\t]+)${VALUE}(?=[ \\t]*$)`, "gm")
/** IMAP: `tag LOGIN user X` as the whole command. */
const IMAP_LOGIN_RE = new RegExp(
  `((?:^|[>:])[ \\t]*[A-Za-z0-9.]{1,16}[ \\t]+LOGIN[ \\t]+${VALUE}[ \\t]+)${VALUE}(?=[ \\t]*$)`,
  "gm"
)
/** SMTP AUTH LOGIN: the base64 line answering the `Password:` prompt (`334 UGFzc3dvcmQ6`). */
const SMTP_LOGIN_RE = /(334[ \t]+UGFzc3dvcmQ6[ \t]*\r?\n(?:[CS]:[ \t]*)?)[A-Za-z0-9+/=]{4,1024}/g
/** ZooKeeper: `addauth digest user:X`. */
const ZK_ADDAUTH_RE = new RegExp(`(\\baddauth[ \\t]+digest[ \\t]+[^\\s:]{1,128}:)${VALUE}`, "gi")
/** SNMP communities: Cisco `snmp-server community X`, net-snmp `rocommunity X`, `com2sec n src X`. */
const SNMP_COMMUNITY_RE = new RegExp(
  `((?:^|[ \\t])(?:snmp-server[ \\t]+community|r[ow]community6?|com2sec6?[ \\t]+\\S+[ \\t]+\\S+)[ \\t]+)${VALUE}`,
  "gim"
)

/** Any command word below (one scan: most texts have none). */
const PROTOCOL_HINT_RE = /SETUSER|setuser|PASS|LOGIN|UGFzc3dvcmQ6|addauth|ommunity|OMMUNITY|com2sec/

export const redactProtocolPasswords = (text: string): string => {
  if (!PROTOCOL_HINT_RE.test(text)) return text
  let out = text
  if (out.includes("SETUSER") || out.includes("setuser"))
    out = out.replace(ACL_LINE_RE, (line) => line.replace(ACL_PASSWORD_RE, `$1${SECRET}`))
  if (out.includes("PASS")) out = out.replace(FTP_PASS_RE, keep)
  if (out.includes("LOGIN")) out = out.replace(IMAP_LOGIN_RE, keep)
  if (out.includes("UGFzc3dvcmQ6")) out = out.replace(SMTP_LOGIN_RE, keep)
  if (out.includes("addauth")) out = out.replace(ZK_ADDAUTH_RE, keep)
  if (out.includes("ommunity") || out.includes("OMMUNITY") || out.includes("com2sec"))
    out = out.replace(SNMP_COMMUNITY_RE, keep)
  return out
}
