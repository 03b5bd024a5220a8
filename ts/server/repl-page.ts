/**
 * The browser REPL's page: markup and style only; the behaviour is `/repl.js` (ts/web, bundled),
 * loaded from this same origin (the Content-Security-Policy allows nothing else).
 */
import { CHART_TEXT_CSS } from '../report/svg.js';

const STYLE = `
:root{--fg:#1d2330;--muted:#5d6677;--line:#d9dee7;--bg:#fff;--soft:#f4f6fa;--accent:#3b6fb6;--err:#b3261e;--ok:#2e7d32}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:var(--fg);background:var(--bg);display:flex;flex-direction:column;height:100vh}
header{display:flex;align-items:center;gap:16px;padding:8px 16px;border-bottom:1px solid var(--line);background:var(--soft)}
header h1{font-size:16px;margin:0}
#dump{color:var(--muted);font-size:13px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;flex:1}
#state{font-size:13px;white-space:nowrap}
#state .dot{display:inline-block;width:9px;height:9px;border-radius:50%;margin-right:6px;background:var(--muted)}
#state.ready .dot{background:var(--ok)}#state.analyzing .dot{background:#d9822b}#state.failed .dot,#state.offline .dot{background:var(--err)}
progress{width:140px;vertical-align:middle}
#output{flex:1;overflow:auto;padding:8px 16px}
.entry{margin:6px 0 14px}
.echo{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;color:var(--accent);white-space:pre-wrap;margin:0 0 4px}
pre.out{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;margin:2px 0;white-space:pre-wrap}
pre.err{color:var(--err)}
.note{color:var(--muted);font-size:12.5px;margin:2px 0}
table{border-collapse:collapse;margin:4px 0 6px;font-size:13px}
th,td{border-bottom:1px solid var(--line);padding:3px 10px;text-align:left;vertical-align:top;max-width:640px;overflow-wrap:anywhere;white-space:pre-wrap}
th{background:var(--soft);font-weight:600;position:sticky;top:0}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:pre}
svg.chart{display:block;max-width:100%;height:auto;margin:6px 0}
${CHART_TEXT_CSS}
#prompt{display:flex;gap:8px;align-items:flex-start;border-top:1px solid var(--line);padding:8px 16px;background:var(--soft);position:relative}
#prompt label{font-family:ui-monospace,Menlo,Consolas,monospace;padding-top:5px;color:var(--accent)}
#running{white-space:nowrap;font-size:12.5px;color:var(--muted);padding-top:5px}#running[hidden]{display:none}
#running .spin{display:inline-block;width:8px;height:8px;border-radius:50%;background:#d9822b;margin-right:6px;animation:pulse 1s ease-in-out infinite}
@keyframes pulse{50%{opacity:.25}}
#stop{margin-left:6px;font:inherit;padding:1px 10px;border:1px solid var(--err);color:var(--err);background:#fff;border-radius:4px;cursor:pointer}
#output:focus-visible{outline:2px solid var(--accent);outline-offset:-2px}
#input{flex:1;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px;padding:5px 8px;border:1px solid var(--line);border-radius:4px;resize:none;min-height:32px}
#completions{position:absolute;bottom:100%;left:64px;background:#fff;border:1px solid var(--line);box-shadow:0 2px 8px rgba(0,0,0,.12);max-height:240px;overflow:auto;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px;display:none;min-width:240px}
#completions div{padding:2px 8px;cursor:pointer;white-space:pre}#completions div.sel{background:var(--accent);color:#fff}
#completions div[aria-disabled]{cursor:not-allowed;color:var(--muted)}#completions div.sel[aria-disabled]{background:var(--line);color:var(--fg)}
#completions .escaped-note,#completions .more-note{cursor:default;color:var(--muted);font-style:italic;border-top:1px solid var(--line);white-space:normal}#completions .escaped-note.flash{color:var(--err)}
.warn{color:#8a4b00;background:#fff4e0;border-left:3px solid #d9822b;padding:4px 8px;font-size:12.5px;margin:4px 0}
.result-block.stale{opacity:.55}
.pages button{font:inherit;padding:0 8px;margin-left:4px;border:1px solid var(--line);background:#fff;border-radius:4px;cursor:pointer}.pages button[hidden]{display:none}.pages button.close-pages{border-color:var(--err);color:var(--err)}
#banner{display:none;padding:6px 16px;background:#fdecea;color:var(--err);border-bottom:1px solid var(--line)}
#banner.show{display:block}
.hint{color:var(--muted);font-size:12px;padding:0 16px 6px;background:var(--soft)}
`;

export function replPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>heapql REPL</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<header><h1>heapql</h1><span id="dump"></span><span id="state"><span class="dot"></span><span id="state-text">connecting…</span> <progress id="progress" hidden></progress></span></header>
<div id="banner" role="alert"></div>
<main id="output" aria-live="polite" tabindex="0"></main>
<div id="prompt"><label for="input">oql&gt;</label><textarea id="input" rows="1" spellcheck="false" autocomplete="off" placeholder="SELECT … or !help  (Enter runs a complete statement, Shift+Enter adds a line, Tab completes, ↑/↓ history)"></textarea><span id="running" role="status" hidden><span class="spin"></span>running <span id="elapsed"></span> · Esc or Ctrl-C cancels<button id="stop" type="button">Stop</button></span><div id="completions" role="listbox"></div></div>
<div class="hint">Enter runs a complete statement (an open one continues on the next line; pasted lines run one statement at a time) · Shift+Enter new line · Tab completes (on an empty prompt, or after Escape, Tab moves on) · ↑/↓ history · PageUp/PageDown scroll · Esc or Ctrl-C cancels · !help</div>
<script src="/repl.js"></script>
</body>
</html>
`;
}
