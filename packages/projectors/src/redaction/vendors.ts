/**
 * Vendor token formats, kept as data: each row is a self-identifying credential shape taken from
 * the vendor's public format description (a fixed prefix or structure plus a random body).
 * A match anywhere in the text becomes `<SECRET>`, with no key word needed. The test suite has one
 * generated example per row (`test/vendor-examples.ts`). Why our own table rather than a rule
 * set such as secretlint's preset: see docs/decisions/0009-redaction-token-table.md.
 */
export interface VendorTokenFormat {
  readonly vendor: string
  readonly name: string
  /** Regex source (no flags, no anchors): the whole token. */
  readonly pattern: string
  /**
   * For a shape with no literal prefix: a regex source every match contains, checked first (an
   * alternation of literal prefixes is fast; one starting with a character class is not).
   */
  readonly hint?: string
}

const B64U = "[A-Za-z0-9_-]"
const AN = "[A-Za-z0-9]"
const HEX = "[0-9a-f]"
const HEXI = "[0-9a-fA-F]"

const row = (vendor: string, name: string, pattern: string, hint?: string): VendorTokenFormat =>
  hint === undefined ? { vendor, name, pattern } : { vendor, name, pattern, hint }

/** Known vendor token formats, as data: one row per format (vendor, name, regex source, optional hint). */
export const VENDOR_TOKEN_FORMATS: ReadonlyArray<VendorTokenFormat> = [
  row("AWS", "access key id", "(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}"),
  row("GitHub", "classic / oauth / app token", `gh[pousr]_${AN}{36,255}`),
  row("GitHub", "fine-grained PAT", `github_pat_[A-Za-z0-9_]{40,255}`),
  row("GitLab", "personal / project access token", `glpat-${B64U}{20,255}`),
  row("GitLab", "runner authentication token", `glrt-(?:t\\d_)?${B64U}{20,255}`),
  row("GitLab", "runner registration token", `GR1348941${B64U}{20,255}`),
  row("GitLab", "deploy token", `gldt-${B64U}{20,255}`),
  row(
    "GitLab",
    "feed / cluster agent / misc tokens",
    `gl(?:ft|soat|cbt|ffct|imt|agent|oas|ptt|rtr|wt)-${B64U}{20,255}`
  ),
  row("Slack", "bot / user / app-level / config token", "xox[abposre]-[A-Za-z0-9-]{20,255}"),
  row("Slack", "app token", "xapp-\\d-[A-Z0-9]{8,16}-\\d{8,16}-[a-z0-9]{32,128}"),
  row("Slack", "config refresh token", "xoxe(?:\\.xox[bp])?-\\d-[A-Za-z0-9]{40,255}"),
  row("Stripe", "secret / restricted / publishable key", `(?:sk|rk|pk)_(?:live|test|prod)_${AN}{16,255}`),
  row("Stripe", "webhook signing secret", `whsec_${AN}{24,255}`),
  row("Google", "API key", `AIza${B64U}{30,40}`),
  row("Google", "OAuth client secret", `GOCSPX-${B64U}{24,40}`),
  row("Google", "OAuth access token", `ya29\\.${B64U}{30,2048}`),
  row(
    "OpenAI / Anthropic",
    "API key",
    `sk-(?:proj-|svcacct-|admin-|ant-(?:api|admin)\\d\\d-)?${B64U}{20,255}`
  ),
  row("npm", "access token", `npm_${AN}{30,255}`),
  row("SendGrid", "API key", `SG\\.${B64U}{16,32}\\.${B64U}{16,64}`),
  row("Twilio", "API key SID", `SK${HEXI}{32}`),
  row("DigitalOcean", "personal / oauth / refresh token", `do[opr]_v1_${HEX}{64}`),
  row("Hugging Face", "user / org token", "(?:hf_|api_org_)[A-Za-z]{30,40}"),
  row("Shopify", "access / custom / private app token, shared secret", `shp(?:at|ca|pa|ss)_${HEXI}{32}`),
  row("Square", "access token / OAuth secret", `sq0(?:atp|csp|idp)-${B64U}{22,60}`),
  row("Square", "access token (v2)", `EAAA${B64U}{60}`),
  row("PyPI", "upload token", `pypi-AgEIcHlwaS5vcmc${B64U}{40,255}`),
  row("Grafana", "service account token", `glsa_${AN}{32}_${HEXI}{8}`),
  row("Grafana", "cloud token", "glc_[A-Za-z0-9+/]{32,400}={0,2}"),
  row("Mailgun", "API key", `key-${HEX}{32}`),
  row("Mailchimp", "API key", `${HEX}{32}-us\\d{1,2}`, "[0-9a-f]-us\\d"),
  row("Atlassian", "API token", `ATATT3${B64U}{60,255}(?:=[0-9A-F]{8})?`),
  row("Bitbucket", "app password", `ATBB${AN}{32}(?:${HEXI}{8})?`),
  row("Linear", "API key", `lin_(?:api|oauth)_${AN}{40}`),
  row("Postman", "API key", `PMAK-${HEX}{24}-${HEX}{34}`),
  row("Doppler", "token", `dp\\.(?:pt|st|sa|ct|scim|audit)\\.${AN}{40,44}`),
  row("Databricks", "token", `dapi${HEX}{32}(?:-\\d)?`),
  row("Dynatrace", "API token", "dt0[a-z]\\d{2}\\.[A-Z0-9]{24}\\.[A-Z0-9]{64}"),
  row("New Relic", "user / insert / license keys", `NR(?:AK|II|JS|RA|RI|LK)-${B64U}{20,40}`),
  row("Sentry", "user / org auth token", `sntry[us]_${B64U}{40,512}`),
  row("HashiCorp Terraform", "Cloud token", `${AN}{14}\\.atlasv1\\.${B64U}{60,70}`, "\\.atlasv1\\."),
  row("HashiCorp Vault", "service / batch / recovery token", `hv[sbr]\\.${B64U}{24,512}`),
  row("Pulumi", "access token", `pul-${HEX}{40}`),
  row("Figma", "personal token", `fig[dou]_${B64U}{40}`),
  row("Notion", "integration token", `(?:ntn_\\d{11}${AN}{35}|secret_${AN}{43})`),
  row("Airtable", "personal access token", `pat${AN}{14}\\.${HEX}{64}`),
  row("age", "secret key", "AGE-SECRET-KEY-1[0-9A-Z]{58}"),
  row("Shippo", "API token", `shippo_(?:live|test)_${HEX}{40}`),
  row("Flutterwave", "secret / encryption key", `FLW(?:SECK|PUBK)(?:_TEST)?-${HEX}{32}-X`),
  row("Alibaba Cloud", "access key id", `LTAI${AN}{17,21}`),
  row("Microsoft Entra ID", "client secret", "[A-Za-z0-9_~.]{3}\\dQ~[A-Za-z0-9_~.-]{31,34}", "\\dQ~"),
  row("Telegram", "bot token", `\\d{8,10}:AA${B64U}{32,33}`, "\\d:AA"),
  row("Meta", "access token", `EAA[A-Za-z0-9]{100,400}`),
  row("Contentful", "personal access token", `CFPAT-${B64U}{43}`),
  row("Duffel", "API token", `duffel_(?:test|live)_${B64U}{43}`),
  row("EasyPost", "API key", `EZ[AT]K${AN}{54}`),
  row("Fly.io", "token", `fo1_${B64U}{43}`),
  row("Prefect", "API key", `pnu_${AN}{36}`),
  row("ReadMe", "API key", "rdme_[a-z0-9]{70}"),
  row("RubyGems", "API key", `rubygems_${HEX}{48}`),
  row("Brevo", "API key", `xkeysib-${HEX}{64}-${AN}{16}`),
  row("PlanetScale", "token / password", `pscale_(?:tkn|pw|oauth)_${B64U}{32,64}`),
  row("Clojars", "deploy token", "CLOJARS_[a-z0-9]{60}"),
  row("Mapbox", "secret token", `sk\\.eyJ${B64U}{10,400}\\.${B64U}{20,40}`),
  row("Netlify", "personal token", `nf[pc]_${AN}{36}`),
  row("Supabase", "service token", `sb[pa]_${HEX}{40}`),
  row("Docker Hub", "personal access token", `dckr_(?:pat|oat)_${B64U}{27,40}`),
  row("Buildkite", "API token", `bkua_${HEX}{40}`),
  row("CircleCI", "personal token", `CCIPAT_${AN}{22}_${HEX}{40}`),
  row("Groq", "API key", `gsk_${AN}{52}`),
  row("Replicate", "API token", `r8_${AN}{37}`),
  row("Perplexity", "API key", `pplx-${HEX}{48}`),
  row("xAI", "API key", `xai-${AN}{80}`),
  row("LangSmith", "API key", `lsv2_(?:pt|sk)_${HEX}{32}_${HEX}{10}`),
  row("Tailscale", "auth / API key", `tskey-(?:auth|api|client|scim|webhook)-${AN}{6,20}-${AN}{20,40}`),
  row("Render", "API key", `rnd_${AN}{32}`),
  row("Resend", "API key", `re_${AN}{8}_${AN}{24}`),
  row("Deno Deploy", "access token", `dd[pw]_${AN}{36}`),
  row(
    "LaunchDarkly",
    "SDK / mobile / API key",
    `(?:sdk|mob|api)-${HEX}{8}-${HEX}{4}-${HEX}{4}-${HEX}{4}-${HEX}{12}`
  ),
  row("OpenShift", "user token", `sha256~${B64U}{43}`),
  row("NuGet", "API key", "oy2[a-z0-9]{43}"),
  row("JFrog Artifactory", "API key / reference token", `(?:AKCp${AN}{60,80}|cmVmd[A-Za-z0-9]{59})`),
  row("X (Twitter)", "app bearer token", "A{22}[A-Za-z0-9%]{80,150}"),
  row("Dropbox", "short-lived token", `sl\\.${B64U}{130,1400}`),
  row(
    "Plaid",
    "access token",
    `access-(?:sandbox|development|production)-${HEX}{8}-${HEX}{4}-${HEX}{4}-${HEX}{4}-${HEX}{12}`
  ),
  row("Zoho", "refresh / access token", `1000\\.${HEX}{32}\\.${HEX}{32}`),
  row("Pinecone", "API key", `pcsk_${AN}{4,10}_${AN}{50,70}`),
  row("Sourcegraph", "access token", `sgp_(?:local_|${HEX}{16}_)?${HEX}{40}`),
  row("Octopus Deploy", "API key", "API-[A-Z0-9]{26,32}"),
  row("Typeform", "personal token", "tfp_[a-z0-9_.=-]{59}"),
  row("Adafruit IO", "key", `aio_${AN}{28}`),
  row("Cloudflare", "origin CA key", `v1\\.0-${HEX}{24}-${HEX}{146}`),
  row("Heroku", "API key (v2)", `HRKU-AA${B64U}{58}`),
  row("1Password", "service account token", `ops_eyJ${B64U}{250,}`),
  row("Frame.io", "API token", `fio-u-${B64U}{64}`),
  row("Infracost", "API key", `ico-${AN}{32}`),
  row("Scalingo", "API token", `tk-us-${B64U}{48}`),
  row("Yandex", "API key / IAM token", `(?:AQVN${B64U}{35,38}|t1\\.${B64U}{80,})`),
  row(
    "Authress",
    "service key",
    `(?:sc|ext|scauth|authress)_${AN}{10,32}\\.${AN}{4,6}\\.acc[_-]${AN}{10,32}\\.${B64U}{30,120}`
  ),
  row("Harness", "API token", `(?:pat|sat)\\.${B64U}{22}\\.${HEXI}{24}\\.${AN}{20}`)
]

const alternation = (rows: ReadonlyArray<VendorTokenFormat>): RegExp =>
  new RegExp(`(?<![A-Za-z0-9_+/.~-])(?:${rows.map((f) => f.pattern).join("|")})(?![A-Za-z0-9_])`, "g")

/** The rows with a literal prefix, in one alternation bounded by non-token characters. */
export const VENDOR_PREFIXED_RE = alternation(VENDOR_TOKEN_FORMATS.filter((f) => f.hint === undefined))
/** The rows without one, tried only when one of their hints occurs. */
export const VENDOR_HINTED_RE = alternation(VENDOR_TOKEN_FORMATS.filter((f) => f.hint !== undefined))
export const VENDOR_HINT_RE = new RegExp(
  VENDOR_TOKEN_FORMATS.flatMap((f) => (f.hint === undefined ? [] : [f.hint])).join("|")
)

/** The prefixed rows, anchored (`y`) where a value run starts: used by the run scan. */
export const VENDOR_PREFIXED_STICKY_RE = new RegExp(
  `(?:${VENDOR_TOKEN_FORMATS.filter((f) => f.hint === undefined)
    .map((f) => f.pattern)
    .join("|")})(?![A-Za-z0-9_])`,
  "y"
)
