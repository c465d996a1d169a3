import { createHash } from "node:crypto"

/** Every style of the viewer: inline, no external fonts (system font stack). */
export const VIEWER_CSS = `
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--bg:#fff;--panel:#f6f8fa;--line:#d0d7de;
--ok:#1a7f37;--warn:#9a6700;--err:#cf222e;--info:#0969da;--bar:#0969da;--focus:#fb8500}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--panel:#161b22;--line:#30363d;
--ok:#3fb950;--warn:#d29922;--err:#f85149;--info:#4493f8;--bar:#4493f8}}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--info)}
a:focus-visible,button:focus-visible,summary:focus-visible,select:focus-visible,input:focus-visible,[tabindex]:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:var(--bg);padding:.5rem}
.skip:focus{left:.5rem}
header.site{display:flex;gap:1rem;align-items:center;padding:.6rem 1rem;border-bottom:1px solid var(--line);background:var(--panel)}
header.site .brand{font-weight:600}
header.site nav a{margin-right:1rem}
main{max-width:1240px;margin:0 auto;padding:1rem}
footer.site{max-width:1240px;margin:0 auto;padding:1rem;color:var(--muted);font-size:.85rem}
h1{font-size:1.4rem;margin:.2rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:1.6rem 0 .6rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}
h3{font-size:1rem;margin:1rem 0 .4rem}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--panel);padding:.5rem;border-radius:4px;margin:.2rem 0}
.filters{display:flex;flex-wrap:wrap;gap:.6rem 1rem;align-items:flex-end;margin-bottom:1rem}
.filters label{display:flex;flex-direction:column;font-size:.85rem;color:var(--muted)}
.filters select,.filters input,.filters button{font:inherit;padding:.3rem .5rem;border:1px solid var(--line);border-radius:4px;background:var(--bg);color:var(--fg);min-height:2.2rem}
.table-wrap{overflow-x:auto;border:1px solid var(--line);border-radius:6px}
table{border-collapse:collapse;width:100%}
caption{text-align:left;padding:.4rem .6rem;color:var(--muted);font-size:.85rem}
th,td{padding:.4rem .6rem;border-top:1px solid var(--line);text-align:left;vertical-align:top}
th{background:var(--panel);font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;white-space:nowrap}
td.q{min-width:16rem;overflow-wrap:anywhere}
.badge{display:inline-block;padding:0 .45rem;border-radius:999px;border:1px solid currentColor;font-size:.8rem;white-space:nowrap}
.badge.o-released,.badge.s-ok{color:var(--ok)}
.badge.o-cannot_conclude,.badge.o-running,.badge.s-warn,.badge.s-no_evidence,.badge.s-running{color:var(--warn)}
.badge.o-refused,.badge.o-cancelled{color:var(--muted)}
.badge.o-failed,.badge.s-error,.badge.s-refused{color:var(--err)}
tr.s-error td,tr.s-warn td{background:color-mix(in srgb,var(--warn) 10%,transparent)}
ol.items.compact>li{padding:.1rem .3rem}
ol.items .f{margin-right:.8rem;overflow-wrap:anywhere}
ol.items .f>.k{color:var(--muted);margin-right:.25rem;font-size:.8rem}
.pager{display:flex;gap:1rem;margin-top:1rem}
.alert{border:2px solid var(--err);border-left-width:8px;padding:.6rem .8rem;border-radius:6px;margin:1rem 0}
.alert.warn{border-color:var(--warn)}
.alert strong{display:block}
.notice{border:1px dashed var(--line);padding:.5rem .8rem;border-radius:6px;color:var(--muted)}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.3rem 0}
dl.kv dt{color:var(--muted)}
dl.kv dd{margin:0;overflow-wrap:anywhere}
ol.waterfall{list-style:none;margin:0;padding:0;border:1px solid var(--line);border-radius:6px}
ol.waterfall li{display:grid;grid-template-columns:minmax(10rem,16rem) 1fr 5.5rem 6rem;gap:.6rem;align-items:center;padding:.25rem .6rem;border-top:1px solid var(--line)}
ol.waterfall li:first-child{border-top:0}
ol.waterfall li.axis{color:var(--muted);font-size:.8rem}
ol.waterfall li.nested .wl{padding-left:1.2rem}
ol.waterfall .wl{overflow-wrap:anywhere}
ol.waterfall .wl small{display:block;color:var(--muted)}
ol.waterfall svg{width:100%;height:14px;display:block}
ol.waterfall svg .track{fill:var(--panel)}
ol.waterfall svg .bar{fill:var(--bar)}
ol.waterfall li.s-error svg .bar,ol.waterfall li.s-refused svg .bar{fill:var(--err)}
ol.waterfall li.s-warn svg .bar,ol.waterfall li.s-no_evidence svg .bar{fill:var(--warn)}
ol.waterfall li.s-error .wl a,ol.waterfall li.s-refused .wl a{color:var(--err);font-weight:600}
.report{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--panel);padding:.8rem;border-radius:6px}
a.cite{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.8rem}
details.call{border:1px solid var(--line);border-radius:6px;margin:.5rem 0}
details.call.s-error,details.call.s-refused{border-color:var(--err);border-left-width:6px}
details.call>summary{cursor:pointer;padding:.5rem .7rem;overflow-wrap:anywhere}
details.call[open]>summary{border-bottom:1px solid var(--line)}
.call-body{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,3fr);gap:1rem;padding:.6rem .8rem}
.call-body section h3{margin-top:0}
ol.items{padding-left:1.4rem;margin:.2rem 0}
ol.items>li{margin:.3rem 0;padding:.2rem .4rem;border-radius:4px}
ol.items>li:target,.call :target{outline:3px solid var(--focus)}
.muted{color:var(--muted)}
@media (max-width:700px){
body{font-size:14px}
main{padding:.6rem}
ol.waterfall li{grid-template-columns:1fr 4.5rem;grid-template-areas:"l d" "b b" "t t"}
ol.waterfall li .wl{grid-area:l}
ol.waterfall li .wd{grid-area:d;text-align:right}
ol.waterfall li .wb{grid-area:b}
ol.waterfall li .wt{grid-area:t;text-align:left}
.call-body{grid-template-columns:1fr}
dl.kv{grid-template-columns:minmax(5.5rem,max-content) 1fr;gap:.1rem .6rem}
.table-wrap.cards{overflow:visible;border:0}
.cards table,.cards tbody,.cards tr,.cards td{display:block}
.cards thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
.cards tr{border:1px solid var(--line);border-radius:6px;margin:.5rem 0;padding:.3rem 0}
.cards td{display:grid;grid-template-columns:6.5rem 1fr;gap:.5rem;border:0;padding:.15rem .6rem;text-align:left}
.cards td.num{text-align:left}
.cards td.q{min-width:0}
.cards td>*{justify-self:start}
.cards caption{display:block;padding-left:0}
.cards td::before{content:attr(data-label);color:var(--muted);font-size:.8rem;font-family:system-ui,sans-serif}
}
`

/**
 * The viewer's only script: opens the tool call a link targets, and on a run still in
 * progress polls the run's own fragment endpoint (`data-live`) and swaps it in until the run
 * has finished (the state of open tool calls is kept across updates).
 */
export const VIEWER_JS = `(() => {
  const openTarget = () => {
    const id = decodeURIComponent(location.hash.slice(1));
    const el = id ? document.getElementById(id) : null;
    if (!el) return;
    for (let d = el.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) d.open = true;
    el.scrollIntoView({ block: "start" });
  };
  addEventListener("hashchange", openTarget);
  openTarget();
  const root = document.querySelector("[data-live]");
  if (!root) return;
  const body = document.getElementById("run-body");
  const status = document.getElementById("live-status");
  const every = Number(root.getAttribute("data-interval")) || 1000;
  const tick = async () => {
    const url = root.getAttribute("data-live");
    if (!url) return;
    try {
      const res = await fetch(url, { cache: "no-store", headers: { accept: "text/html" } });
      if (res.ok) {
        const open = Array.from(document.querySelectorAll("#run-body details[open][id]"), (d) => d.id);
        body.innerHTML = await res.text();
        for (const id of open) { const d = document.getElementById(id); if (d) d.open = true; }
        const state = res.headers.get("x-run-status");
        if (state && state !== "RUNNING") {
          root.removeAttribute("data-live");
          status.textContent = "The run has finished (" + state + "); this page no longer updates.";
          return;
        }
        status.textContent = "Run in progress: this page updates every " + every / 1000 + " s.";
      } else {
        status.textContent = "Live update failed (HTTP " + res.status + "); retrying.";
      }
    } catch {
      status.textContent = "Live update failed (network); retrying.";
    }
    setTimeout(tick, every);
  };
  setTimeout(tick, every);
})();`

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`

/**
 * Content-Security-Policy of every viewer page: nothing loads from anywhere but the app's own
 * origin (fetches of the live endpoint), and only the two inline blocks above run or style.
 */
export const VIEWER_CSP = [
  "default-src 'none'",
  `style-src ${sha256(VIEWER_CSS)}`,
  `script-src ${sha256(VIEWER_JS)}`,
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join("; ")
