import { WILDCARD } from "./patterns/normalize.js"
import { redactText } from "./redaction/index.js"

/**
 * A mined template as the agent may see it. The template comes from raw (unredacted) tokens, so a
 * secret repeated on every line is one of its constants: the template is redacted, and then every
 * token that is not `<*>` must also be a token of `example`, the fully redacted example line shown
 * next to it (a token holding `<*>` must match one, `<*>` standing for any text). Any other token
 * becomes `<*>`. So a template never shows text that full redaction of its example would not show.
 */
export const redactTemplate = (rawTemplate: string, redactedExample: string): string => {
  const redacted = redactText(rawTemplate)
  const visible = new Set(redactedExample.split(/\s+/))
  const tokens = redacted.split(" ")
  let changed = false
  for (let k = 0; k < tokens.length; k++) {
    const token = tokens[k]!
    if (token === WILDCARD || visible.has(token)) continue
    if (token.includes(WILDCARD) && matchesSome(token, visible)) continue
    tokens[k] = WILDCARD
    changed = true
  }
  return changed ? tokens.join(" ") : redacted
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const matchesSome = (pattern: string, tokens: ReadonlySet<string>): boolean => {
  const re = new RegExp(`^${pattern.split(WILDCARD).map(escapeRegExp).join("[\\s\\S]*")}$`)
  for (const token of tokens) if (re.test(token)) return true
  return false
}
