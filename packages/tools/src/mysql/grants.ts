/**
 * Least-privilege check of the query user from its `SHOW GRANTS` lines (MySQL and MariaDB
 * formats). Allowed: `USAGE` anywhere, `SELECT` / `SHOW VIEW` on named non-system databases or
 * their tables/columns. Everything else is a problem: any write or admin privilege, FILE, any
 * global (`*.*`) privilege, privileges on a system schema (directly or through a wildcard database
 * pattern), `WITH GRANT OPTION`, PROXY, roles and lines this parser does not understand.
 */

const SYSTEM_SCHEMAS = ["mysql", "sys", "performance_schema", "information_schema"]
const READ_PRIVILEGES: ReadonlySet<string> = new Set(["SELECT", "SHOW VIEW"])

/** `db` part of a grant target (`\`db\`.*`, `db.t`), unquoted; undefined for `*.*` / `*`. */
const targetDatabase = (target: string): string | undefined => {
  const quoted = /^`((?:[^`]|``)*)`\./.exec(target)
  if (quoted) return quoted[1]!.replaceAll("``", "`")
  const plain = /^([^.`*\s]+)\./.exec(target)
  return plain ? plain[1] : undefined
}

/** Whether a grant database pattern (`%`, `_` wildcards, `\_` / `\%` literal) matches a system schema. */
const matchesSystemSchema = (pattern: string): boolean => {
  let source = ""
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === "\\" && i + 1 < pattern.length) {
      source += pattern[i + 1]!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      i++
    } else if (c === "%") source += ".*"
    else if (c === "_") source += "."
    else source += c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  }
  const re = new RegExp(`^${source}$`, "i")
  return SYSTEM_SCHEMAS.some((s) => re.test(s))
}

/** Problems (short, no secrets) found in `SHOW GRANTS` output; empty when the user is read-only. */
export const checkGrants = (lines: ReadonlyArray<string>): Array<string> => {
  const problems: Array<string> = []
  if (lines.length === 0) problems.push("no grants visible")
  for (const raw of lines) {
    // Drop password clauses before anything is reported.
    const line = raw.replace(/\s+IDENTIFIED\s+(?:BY|VIA|WITH)\s[\s\S]*$/i, "").trim()
    if (/\bWITH\s+GRANT\s+OPTION\b/i.test(raw)) problems.push("WITH GRANT OPTION")
    if (/^GRANT\s+PROXY\s+ON\b/i.test(line)) {
      problems.push("PROXY")
      continue
    }
    const withoutColumns = line.replace(/\([^)]*\)/g, "")
    const m = /^GRANT\s+([\s\S]+?)\s+ON\s+([\s\S]+?)\s+TO\s/i.exec(withoutColumns)
    if (!m) {
      problems.push("role or unrecognised grant")
      continue
    }
    const privileges = m[1]!.split(",").map((p) => p.trim().toUpperCase().replace(/\s+/g, " "))
    const target = m[2]!.trim()
    if (/^(?:FUNCTION|PROCEDURE|PACKAGE)\b/i.test(target)) {
      problems.push(`${privileges.join(",")} on a routine`)
      continue
    }
    const db = targetDatabase(target)
    for (const privilege of privileges) {
      if (privilege === "USAGE") continue
      if (!READ_PRIVILEGES.has(privilege)) {
        problems.push(`${privilege} privilege`)
        continue
      }
      if (db === undefined) problems.push(`global ${privilege}`)
      else if (matchesSystemSchema(db)) problems.push(`${privilege} on a system schema`)
    }
  }
  return problems
}
