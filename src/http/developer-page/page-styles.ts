/** /developer/assets/developer.css: system fonts, no external resources. */
export const DEVELOPER_STYLES = `
:root { --fg: #1b1f24; --muted: #5b6570; --line: #d8dee4; --bg: #f6f8fa; --accent: #2457c5; --ok: #1a7f37; --bad: #c62828; --warn: #9a6700; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
code, pre, textarea { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 13px; }
.top { display: flex; align-items: center; gap: 24px; padding: 12px 24px; background: #fff; border-bottom: 1px solid var(--line); }
.top h1 { font-size: 18px; margin: 0; }
.top nav a { margin-right: 12px; color: var(--accent); text-decoration: none; }
.whoami { margin-left: auto; color: var(--muted); }
main { max-width: 1200px; margin: 0 auto; padding: 16px 24px 48px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px 20px; margin-bottom: 16px; }
.card h2 { margin: 0 0 8px; font-size: 16px; }
.muted { color: var(--muted); }
.error { color: var(--bad); min-height: 0; margin: 6px 0; }
.error:empty { display: none; }
.notice { background: #fff8c5; border: 1px solid #e9d98b; border-radius: 6px; padding: 8px 12px; color: var(--warn); }
textarea, input, select { width: 100%; padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
label { display: block; margin: 8px 0; font-weight: 600; }
label.check { display: inline-flex; align-items: center; gap: 4px; font-weight: normal; margin: 2px 12px 2px 0; }
label.check input { width: auto; }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; }
.scopes { display: flex; flex-wrap: wrap; }
table.scope-picker { margin: 4px 0; }
.scope-picker td { vertical-align: middle; }
.scope-picker td.resource { font-weight: 600; white-space: nowrap; }
.scope-picker td.levels { white-space: nowrap; }
.scope-picker label.check { margin: 0 10px 0 0; }
.scope-picker label.check:has(input:disabled) { color: var(--muted); }
button { padding: 6px 14px; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; font: inherit; margin-top: 6px; }
button.link { background: none; border: none; color: var(--accent); padding: 0 4px; margin: 0; }
button.danger { background: #fff; color: var(--bad); border-color: var(--bad); }
button.small { padding: 2px 8px; margin: 0; }
button:disabled { opacity: 0.5; cursor: default; }
table { width: 100%; border-collapse: collapse; margin: 8px 0; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; text-transform: uppercase; color: var(--muted); letter-spacing: 0.03em; }
.chip { display: inline-block; background: #eef2f7; border-radius: 10px; padding: 0 8px; margin: 1px 2px; font-size: 12px; }
.status.on { color: var(--ok); } .status.off { color: var(--muted); }
.create-key { margin-top: 8px; } .create-key summary { cursor: pointer; color: var(--accent); font-weight: 600; }
.secret { margin-top: 12px; padding: 10px 12px; border: 1px solid #e9d98b; background: #fff8c5; border-radius: 6px; }
.secret-row { display: flex; gap: 8px; align-items: center; margin-top: 6px; }
.secret-row code { flex: 1; background: #fff; padding: 6px 8px; border-radius: 4px; word-break: break-all; }
.secret-row button { margin: 0; }
.grid { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 24px; margin-top: 12px; }
@media (max-width: 900px) { .grid { grid-template-columns: 1fr; } }
.procedure-info { background: var(--bg); border-radius: 6px; padding: 4px 12px; }
.badge { display: inline-block; padding: 0 8px; border-radius: 4px; font-size: 12px; font-weight: 700; color: #fff; background: var(--muted); }
.badge.get { background: var(--ok); } .badge.post { background: var(--accent); }
.badge.deprecated { background: var(--warn); }
pre { background: #0d1117; color: #e6edf3; padding: 10px 12px; border-radius: 6px; overflow: auto; max-height: 420px; white-space: pre; }
/* A long curl line (a bearer token, an encoded input) wraps rather than scrolling off the page. */
#result-curl { white-space: pre-wrap; overflow-wrap: anywhere; }
.result .ok { color: var(--ok); } .result .bad { color: var(--bad); }
.result h3 { font-size: 14px; margin: 12px 0 4px; }
pre .key { color: #79c0ff; } pre .string { color: #a5d6ff; } pre .number { color: #ffa657; }
pre .literal { color: #ff7b72; } pre .date { color: #7ee787; font-weight: 600; }
.feed { list-style: none; margin: 8px 0 0; padding: 0; max-height: 360px; overflow: auto; }
.feed-item { display: grid; grid-template-columns: 7em 14em minmax(0, 1fr) auto; gap: 12px; padding: 4px 0; border-bottom: 1px solid var(--line); align-items: baseline; }
.feed-time { color: var(--muted); font-variant-numeric: tabular-nums; }
.feed-object { overflow-wrap: anywhere; }
[hidden] { display: none !important; }
`;
