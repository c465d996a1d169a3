import type { Child } from "hono/jsx"
import { VIEWER_CSS, VIEWER_JS } from "./assets.js"

export interface PageProps {
  readonly title: string
  readonly children?: Child
}

/** The page shell: landmarks (banner, navigation, main, contentinfo), a skip link, inline style and script. */
export const Page = ({ title, children }: PageProps) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="referrer" content="no-referrer" />
      <title>{`${title} · aiops-harness trace viewer`}</title>
      <style dangerouslySetInnerHTML={{ __html: VIEWER_CSS }} />
    </head>
    <body>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="site">
        <span class="brand">aiops-harness</span>
        <nav aria-label="Site">
          <a href="/">Recent runs</a>
        </nav>
      </header>
      <main id="main" tabindex={-1}>
        {children}
      </main>
      <footer class="site">
        Trace viewer of the durable audit. Questions, reports and observations are redacted by the harness;
        raw backend responses are never shown.
      </footer>
      <script dangerouslySetInnerHTML={{ __html: VIEWER_JS }} />
    </body>
  </html>
)

/** A page that says what went wrong (404, 400, 503). */
export const MessagePage = ({ title, message }: { title: string; message: string }) => (
  <Page title={title}>
    <h1>{title}</h1>
    <p>{message}</p>
    <p>
      <a href="/">Back to recent runs</a>
    </p>
  </Page>
)
