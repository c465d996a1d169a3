/**
 * Key-name vocabulary beyond the secret key words: vendor and service names whose value is a
 * credential when it looks like one (`algolia=9faefc…`, `"mapbox": "…"`), and key names that
 * hold identifiers (`trace_id`, `commit`, `sha256`) whose hex value is not a secret.
 */

/** Vendors and services that hand out API keys (matched as a part of a key name). */
export const VENDOR_KEY_NAMES: ReadonlyArray<string> = (
  "stripe algolia adafruit mapbox pusher twilio sendgrid mailgun mailchimp mandrill postmark sparkpost " +
  "mailjet datadog newrelic segment mixpanel amplitude heap sentry bugsnag rollbar honeybadger raygun " +
  "contentful launchdarkly cloudinary fastly heroku okta auth0 braintree paypal plaid square shopify " +
  "pagerduty honeycomb opsgenie statuspage circleci travis snyk vercel netlify github gitlab bitbucket " +
  "slack discord telegram openai anthropic cohere huggingface replicate pinecone mistral groq zendesk " +
  "intercom hubspot salesforce atlassian jira linear notion airtable dropbox firebase supabase " +
  "cloudflare digitalocean linode vultr azure gcp google aws mongodb elastic algolia nexmo vonage plivo " +
  "messagebird clickup asana trello figma docusign zoom twitch twitter facebook instagram linkedin " +
  "recaptcha hcaptcha turnstile onesignal branch appsflyer adjust clevertap braze iterable customerio " +
  "klaviyo mailerlite sendinblue brevo postmark mux vimeo youtube giphy unsplash openweather weather " +
  "maps geocode here tomtom mapquest ipinfo ipstack abstract rapidapi serpapi bing yandex baidu " +
  "coinbase binance kraken alpaca polygon finnhub iex quandl nasdaq shippo easypost aftership " +
  "lob smartystreets avalara taxjar chargebee recurly paddle gocardless adyen checkout razorpay " +
  "mollie klarna wise flutterwave paystack doppler vault infisical onepassword 1password lastpass " +
  "bitwarden sonar sonarqube codecov coveralls percy browserstack saucelabs lambdatest cypress " +
  "buildkite jenkins teamcity bamboo drone harness octopus pulumi terraform ansible chef puppet " +
  "grafana prometheus loki splunk sumologic logdna logz papertrail loggly dynatrace appdynamics " +
  "instana lightstep elastic kibana opsgenie victorops rootly firehydrant incident blameless " +
  "adobe beamer bittrex confluent droneci drone etsy finicity flickr frameio freshbooks gitter kucoin " +
  "mattermost nytimes sendbird sidekiq squarespace travisci intra42 lob rapidapi sumologic yandex " +
  "authress scalingo readme rubygems pypi clojars duffel prefect infracost typeform openshift jfrog " +
  "artifactory sourcegraph dynatrace easypost shippo flutterwave planetscale postman databricks " +
  "hashicorp alibaba tencent huawei oracle ibm sap workday zuora twitch kraken gemini bitfinex"
)
  .split(" ")
  .filter((v, i, all) => v !== "" && all.indexOf(v) === i)

/** Any vendor name as a part of a key (`ALGOLIA_ADMIN`, `integrations.mapbox`, `stripeLive`). */
export const VENDOR_KEY_RE = new RegExp(`(?:${VENDOR_KEY_NAMES.join("|")})`, "i")

/**
 * Keys whose hex value is an identifier, a hash or a digest, not a credential: `trace_id`,
 * `span`, `request-id`, `commit`, `sha256`, `etag`, `checksum`, `traceparent`, `objectId`.
 */
const ID_SUFFIX_RE =
  /(?:^|[_.-])(?:ids?|uuid|guid|trace|span|parent|request|req|correlation|commit|sha\d*|md5|hash|digest|checksum|crc\d*|etag|fingerprint|rev|revision|version|build|container|image|object|blob|tree|ref|oid|txid|tx|block|address|msg|message|event|run|job)$|traceparent|tracestate/i
/** `requestId`, `objectID`, `fileHash` (CamelCase: case-sensitive, so `sendgrid` is not one). */
const ID_CAMEL_RE = /[a-z](?:Id|ID|Ids|IDs|Hash|Sha|Digest|Checksum)$/

export const ID_KEY_RE = {
  test: (key: string): boolean => ID_SUFFIX_RE.test(key) || ID_CAMEL_RE.test(key)
} as const
