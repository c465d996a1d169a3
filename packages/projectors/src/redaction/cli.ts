import { keepThenSecret, PLACEHOLDERS } from "./placeholders.js"

/**
 * Passwords given to command-line tools by their own short options, which no key word names:
 * `sshpass -p X`, `docker login -p X`, `redis-cli -a X`, `curl -u user:X`, `sqlcmd -P X`,
 * `ldapsearch -w X`, `smbclient -U user%X`, `sqlplus user/X@db`, `mysql -pX`, `htpasswd -b file
 * user X`, `echo X | docker login --password-stdin`. The same letters mean other things
 * elsewhere (`ssh -p 22`, `docker run -p 80:80`, `mkdir -p`), so each option is read only after
 * the tool that gives it that meaning, within the same command (up to a line end, a `|`, `;` or
 * `&` before a blank, or the next tool's name). `--password X` and friends are the flag rule's
 * (rules.ts), for every tool.
 */

const SECRET = PLACEHOLDERS.secret

/** A single- or double-quoted value on one line (shared with statements.ts). */
export const QUOTED = `(?:'[^'\\r\\n]{1,256}'|"[^"\\r\\n]{1,256}")`
/**
 * A value: quoted, or a bare word that is not another option or a placeholder. A `$VAR` is taken
 * too: a literal password may start with `$`, and a variable's name costs nothing to hide.
 */
const VALUE = `(?:${QUOTED}|(?![-<'"])[^\\s'"]{1,256})`
/**
 * Any value: quoted, or a bare word that is not a placeholder; it may start with `-` (an attached
 * value, `-p-x`: the password is `-x`; shared with protocols.ts).
 */
export const ANY_VALUE = `(?:${QUOTED}|(?![<'"])[^\\s'"]{1,256})`

/** `-x VALUE` or `-xVALUE`: the option and the blanks after it kept (group 1), the value replaced. */
const option = (flags: string): RegExp => new RegExp(`((?<=[ \\t])(?:${flags})[ \\t]*)${VALUE}`, "g")
/** `-x VALUE` only (an attached value would be another option cluster). */
const spacedOption = (flags: string): RegExp => new RegExp(`((?<=[ \\t])(?:${flags})[ \\t]+)${VALUE}`, "g")
/** `-x` with the value attached only (alone, the tool prompts). */
const attachedOption = (flags: string): RegExp => new RegExp(`((?<=[ \\t])(?:${flags}))${ANY_VALUE}`, "g")

/** `user:X` / `user%X` after `flags`: the user (and a quote) kept, X replaced. */
const userPassword = (flags: string, separator: string): RegExp =>
  new RegExp(
    `((?<=[ \\t])(?:${flags})(?:[ \\t]+|=)['"]?[^\\s${separator}'"]{0,128}${separator}['"]?)[^\\s'"]{1,256}`,
    "g"
  )

interface CliRule {
  /** Command names (the word itself, after an optional directory). */
  readonly tools: ReadonlyArray<string>
  /** The rest of the command must also hold this (a subcommand such as `login`). */
  readonly within?: RegExp
  /** Each match's value is replaced; group 1, when present, is kept in front. */
  readonly values: ReadonlyArray<RegExp>
}

const RULES: ReadonlyArray<CliRule> = [
  // Only sshpass's own options, before the command it runs (`ssh -p 2222` is a port).
  {
    tools: ["sshpass"],
    values: [new RegExp(`^(\\S+(?:[ \\t]+(?:-[fdP][ \\t]*[^\\s-]\\S*|-[evhV]))*[ \\t]+-p[ \\t]*)${VALUE}`)]
  },
  {
    tools: ["docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "crane", "az", "cf"],
    within: /[ \t]login\b/,
    values: [option("-p")]
  },
  { tools: ["redis-cli", "valkey-cli", "keydb-cli"], values: [option("-a")] },
  {
    tools: ["rabbitmqctl"],
    values: [
      new RegExp(`((?<=[ \\t])(?:add_user|change_password|authenticate_user)[ \\t]+\\S+[ \\t]+)${VALUE}`, "g")
    ]
  },
  { tools: ["useradd", "usermod"], values: [spacedOption("-p")] },
  // `net user NAME X [/add]`: not an option (`/add`) or `*` (a prompt).
  {
    tools: ["net"],
    values: [
      new RegExp(`((?<=[ \\t])user[ \\t]+\\S+[ \\t]+)(?![/*])${VALUE}`, "gi"),
      // `net use Z: \\\\host\\share /user:DOMAIN\\user X`
      new RegExp(`((?<=[ \\t])/user:\\S+[ \\t]+)(?![/*])${VALUE}`, "gi")
    ]
  },
  {
    tools: [
      "mongo",
      "mongosh",
      "mongodump",
      "mongorestore",
      "mongoexport",
      "mongoimport",
      "mongostat",
      "mongotop"
    ],
    values: [spacedOption("-p")]
  },
  { tools: ["sqlcmd", "bcp", "osql", "isql"], values: [option("-P")] },
  {
    tools: [
      "ldapsearch",
      "ldapadd",
      "ldapmodify",
      "ldapdelete",
      "ldapwhoami",
      "ldappasswd",
      "ldapcompare",
      "ldapmodrdn"
    ],
    values: [option("-w")]
  },
  { tools: ["zip", "zipcloak", "unzip", "funzip"], values: [spacedOption("-P")] },
  // `openssl enc -k X` (a passphrase; `-pass pass:X` is the key-value rules'). `s_client -k` has none.
  { tools: ["openssl"], values: [spacedOption("-k")] },
  // SNMP v1/v2c community (`-c`), v3 auth and privacy passphrases (`-A`, `-X`).
  {
    tools: [
      "snmpwalk",
      "snmpbulkwalk",
      "snmpget",
      "snmpbulkget",
      "snmpgetnext",
      "snmpset",
      "snmptable",
      "snmptrap",
      "snmpdelta",
      "snmpstatus"
    ],
    values: [spacedOption("-c|-A|-X")]
  },
  { tools: ["ipmitool"], values: [option("-P")] },
  { tools: ["psexec", "PsExec", "psexec64", "PsExec64"], values: [spacedOption("-p")] },
  { tools: ["cqlsh", "cypher-shell"], values: [spacedOption("-p")] },
  { tools: ["mosquitto_pub", "mosquitto_sub", "mosquitto_rr"], values: [spacedOption("-P")] },
  // `db2 connect to DB user U using X`
  { tools: ["db2"], values: [new RegExp(`((?<=[ \\t])user[ \\t]+\\S+[ \\t]+using[ \\t]+)${VALUE}`, "gi")] },
  // MinIO client: `mc alias set NAME URL ACCESS_KEY X` (older: `mc config host add ...`).
  {
    tools: ["mc"],
    values: [
      new RegExp(
        `((?<=[ \\t])(?:alias[ \\t]+set|config[ \\t]+host[ \\t]+add)(?:[ \\t]+\\S+){3}[ \\t]+)${VALUE}`,
        "g"
      )
    ]
  },
  { tools: ["rclone"], values: [new RegExp(`((?<=[ \\t])obscure[ \\t]+)${VALUE}`, "g")] },
  // `lftp -u user,X host`
  { tools: ["lftp"], values: [new RegExp(`((?<=[ \\t])-u[ \\t]+[^\\s,]{1,128},)${VALUE}`, "g")] },
  // `ssh-keygen -p -P old -N new`: both passphrases.
  { tools: ["ssh-keygen"], values: [spacedOption("-P|-N")] },
  // PowerShell: `ConvertTo-SecureString [-String] "X" -AsPlainText`.
  {
    tools: ["ConvertTo-SecureString"],
    within: /-AsPlainText/i,
    values: [new RegExp(`^(\\S+[ \\t]+(?:-String[ \\t]+)?)${VALUE}`, "i")]
  },
  // `wpa_passphrase SSID X`: the second argument.
  { tools: ["wpa_passphrase"], values: [new RegExp(`^(\\S+[ \\t]+(?:"[^"]*"|\\S+)[ \\t]+)${VALUE}`)] },
  // macOS keychain: `security add-generic-password ... -w X`.
  { tools: ["security"], within: /[ \t]add-(?:generic|internet)-password\b/, values: [spacedOption("-w")] },
  { tools: ["7z", "7za", "7zr"], values: [attachedOption("-p")] },
  {
    tools: [
      "mysql",
      "mysqldump",
      "mysqladmin",
      "mysqlimport",
      "mysqlcheck",
      "mysqlpump",
      "mysqlshow",
      "mariadb",
      "mariadb-dump"
    ],
    values: [attachedOption("-p")]
  },
  {
    tools: ["curl"],
    values: [userPassword("-u|--user|-U|--proxy-user", ":"), spacedOption("--oauth2-bearer")]
  },
  {
    tools: ["smbclient", "rpcclient", "smbmap", "smbget", "smbcacls"],
    values: [userPassword("-U|--user", "%")]
  },
  {
    // Not the legacy `exp` / `imp`: as words they are too common in other text.
    tools: ["sqlplus", "sqlldr", "expdp", "impdp", "rman", "dgmgrl"],
    // `user/X@db`, `user/X` or `userid=user/X` as a word of its own (`/nolog` and `/ as sysdba`
    // have no user).
    values: [/((?<=[ \t])(?:userid=)?[A-Za-z_][\w$#.]{0,63}\/)(?![<@])[^\s@/'"]{1,256}(?=@|\s|$)/gi]
  }
]

const TOOL_OF = new Map<string, CliRule>(RULES.flatMap((rule) => rule.tools.map((tool) => [tool, rule])))
interface TrieNode {
  end: boolean
  readonly next: Map<string, TrieNode>
}
/**
 * The names as one regex alternation factored by shared prefixes (`m(?:ongo(?:sh|dump)?|ysql)`):
 * V8 tries a plain 70-way alternation at every position, this about twice as fast.
 */
const alternation = (names: ReadonlyArray<string>): string => {
  const root: TrieNode = { end: false, next: new Map() }
  for (const name of names) {
    let node = root
    for (const ch of name) {
      let child = node.next.get(ch)
      if (child === undefined) {
        child = { end: false, next: new Map() }
        node.next.set(ch, child)
      }
      node = child
    }
    node.end = true
  }
  const emit = (node: TrieNode): string => {
    // Tool names are `[A-Za-z0-9_-]`: no character to escape.
    const parts = [...node.next].map(([ch, child]) => ch + emit(child))
    if (parts.length === 0) return ""
    if (parts.length === 1 && !node.end) return parts[0]!
    return `(?:${parts.join("|")})${node.end ? "?" : ""}`
  }
  return emit(root)
}
const TOOLS = alternation([...TOOL_OF.keys(), "htpasswd"])

/** A tool's name (after a directory or a quote) and a blank. */
const TOOL_RE = new RegExp(`(?<![\\w.-])(${TOOLS})(?:\\.exe)?[ \\t]`, "g")
/** A cheaper first look (no lookbehind): a tool's name and a blank somewhere. */
const HINT_RE = new RegExp(`\\b(?:${TOOLS})(?:\\.exe)?[ \\t]`)
/**
 * Where a command ends: a line end, or `|`, `;`, `&` before a blank (one inside a word may be
 * part of a password).
 */
const COMMAND_END_RE = /[\r\n]|[|;&](?=[ \t\r\n]|$)/g
const MAX_COMMAND = 4000

/**
 * `echo X | docker login --password-stdin`, `echo X | passwd --stdin user`, `echo user:X |
 * chpasswd`: the echoed text is the password (with chpasswd, `user:` too).
 */
const STDIN_RE = new RegExp(
  `(?<![\\w.-])((?:echo|printf)(?:[ \\t]+(?:-[neE]+|'%s(?:\\\\n)?'|"%s(?:\\\\n)?"))*[ \\t]+)${VALUE}(?=[ \\t]*\\|[^|\\r\\n]{0,512}(?:--password-stdin|--stdin|\\bchpasswd\\b))`,
  "g"
)

const replaceValues = (command: string, rule: CliRule): string => {
  if (rule.within !== undefined && !rule.within.test(command)) return command
  let out = command
  for (const re of rule.values) out = out.replace(re, (_whole, kept?: string) => `${kept ?? ""}${SECRET}`)
  return out
}

/** `htpasswd -b[c...] file user X` (`-n`: no file): the last of its positional words. */
const redactHtpasswd = (command: string): string => {
  const words = command.split(/[ \t]+/)
  let i = 1
  let flags = ""
  for (; i < words.length && words[i]!.startsWith("-"); i++) flags += words[i]!.slice(1)
  if (!flags.includes("b")) return command
  const at = i + (flags.includes("n") ? 1 : 2)
  if (at >= words.length || words[at] === "") return command
  words[at] = SECRET
  return words.join(" ")
}

/**
 * Any other tool: a user option (`-u NAME`, `-U NAME`, `--user NAME`, `/u:NAME`) and, in the same
 * command, `-p X`, `-P X`, `-w X` or `/p:X`: `tool -u admin -p X` names its password so. A number
 * or port (`ssh -p 2222`, `docker run -u 1000 -p 8080:80`), another option (`mysql -u root -p -h
 * db`) or a prompt (`sudo -p "Password:"`) after it is not one.
 */
const USER_OPTION_RE = /(?:^|[ \t])(?:-u|-U|--user(?:name)?)(?:[ \t]+|=)(?![-<])\S|(?:^|[ \t])\/u(?:ser)?:\S/
const PASSWORD_OPTION_RE = new RegExp(
  `((?<=[ \\t])(?:-[pPw][ \\t]+|/p(?:ass(?:word)?)?:))(?![-<])(?![0-9]+(?:[:,.][0-9]+)*(?:[ \\t]|$))${VALUE}`,
  "g"
)
const PROMPT_RE = /[:%][ \t]*['"]?$/
const PAIR_HINT_RE = /[ \t](?:-[uU][ \t=]|--user|\/u(?:ser)?:)/

const redactUserPasswordPairs = (text: string): string => {
  if (!PAIR_HINT_RE.test(text)) return text
  let out = ""
  let last = 0
  COMMAND_END_RE.lastIndex = 0
  for (let m = COMMAND_END_RE.exec(text); ; m = COMMAND_END_RE.exec(text)) {
    const end = m === null ? text.length : m.index
    const command = text.slice(last, end)
    out +=
      USER_OPTION_RE.test(command) && /[ \t](?:-[pPw][ \t]|\/p)/.test(command)
        ? command.replace(PASSWORD_OPTION_RE, (whole, kept: string) =>
            PROMPT_RE.test(whole) ? whole : `${kept}${SECRET}`
          )
        : command
    if (m === null) break
    out += m[0]
    last = end + m[0].length
  }
  return out
}

/**
 * Every command-line password of the table above in `text`; other text is left as it is. A
 * tool's command runs from its name to the command's end or the next tool's name, whichever
 * comes first (`cf mysql -pX`: mysql's `-p` is read as mysql's); one pass over the text.
 */
export const redactCliPasswords = (text: string): string => {
  let out = text
  if (HINT_RE.test(out)) {
    const starts = [...out.matchAll(TOOL_RE)]
    const ends = [...out.matchAll(COMMAND_END_RE)].map((m) => m.index)
    const pieces: string[] = []
    let last = 0
    let e = 0
    for (let k = 0; k < starts.length; k++) {
      const at = starts[k]!.index
      while (e < ends.length && ends[e]! < at) e++
      const end = Math.min(starts[k + 1]?.index ?? out.length, ends[e] ?? out.length, at + MAX_COMMAND)
      const tool = starts[k]![1]!
      const command = out.slice(at, end)
      pieces.push(
        out.slice(last, at),
        tool === "htpasswd" ? redactHtpasswd(command) : replaceValues(command, TOOL_OF.get(tool)!)
      )
      last = end
    }
    pieces.push(out.slice(last))
    out = pieces.join("")
  }
  if (out.includes("stdin") || out.includes("chpasswd")) out = out.replace(STDIN_RE, keepThenSecret)
  return redactUserPasswordPairs(out)
}
