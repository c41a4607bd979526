import type { TimelineSection } from './model.js';

const STYLE = `
body{margin:0;font:13px/1.4 system-ui,sans-serif;color:#1d2330;background:#f7f8fa;display:grid;grid-template-columns:1fr 380px;grid-template-rows:auto 1fr;height:100vh}
header{grid-column:1/3;padding:8px 14px;background:#1d2330;color:#fff;display:flex;gap:18px;align-items:center}
header h1{font-size:15px;margin:0}header .counts{opacity:.8}
main{overflow:auto;padding:8px 14px}
section.cassette h2{font-size:13px;margin:12px 0 4px}
.scroll{overflow-x:auto;background:#fff;border:1px solid #d8dce3}
aside{border-left:1px solid #d8dce3;padding:8px 12px;overflow:auto;background:#fff}
aside pre{white-space:pre-wrap;word-break:break-all;font:12px/1.35 ui-monospace,monospace;background:#f2f4f7;padding:8px}
#tip{position:fixed;pointer-events:none;background:#1d2330;color:#fff;padding:4px 8px;border-radius:3px;font-size:12px;max-width:520px;z-index:2}
.lane-bg{fill:#fff}.lane:nth-child(even) .lane-bg{fill:#f6f7f9}
.lane-label{font-size:11px;fill:#4b5566}
.axis text{font-size:10px;fill:#7a8394}.axis line{stroke:#e3e6eb}
.mark{cursor:pointer}
.request{fill:#9fb3d1}.event{fill:#3b6fd8}.client-frame{fill:#7d4fd8}.server-frame{fill:#2f9e6e}.end{fill:#59606d}
.failed{fill:#d6453d!important}
.violation{stroke:#d6453d;stroke-width:3}
.drift{stroke:#e39b1c;stroke-width:3}
.violation.drift{stroke:#a23bd6}
.arrow{fill:none;stroke:#8a93a3;stroke-width:1;opacity:.55}
.arrow.lit{stroke:#d6453d;opacity:1;stroke-width:2}
.selected{stroke:#000;stroke-width:2}
ul#notes{padding-left:18px}li.violation-note{color:#b3261e}li.drift-note{color:#9a5b00}
`;

// Runs in the page: draws every section from the embedded data, then wires hover, click and zoom.
const SCRIPT = `
const data = JSON.parse(document.getElementById('timeline-data').textContent);
const LANE = 26, LABEL = 360, TOP = 22;
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'})[c]);
const all = [];
function draw(zoom) {
  const width = 1100 * zoom;
  const html = data.sections.map((s, si) => {
    const x = (at) => LABEL + (at / s.spanMs) * width;
    const y = (lane) => TOP + lane * LANE + LANE / 2;
    const h = TOP + s.lanes.length * LANE + 6;
    const out = ['<svg xmlns="http://www.w3.org/2000/svg" width="' + (LABEL + width + 20) + '" height="' + h + '">',
      '<defs><marker id="head' + si + '" viewBox="0 0 6 6" refX="6" refY="3" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0L6,3L0,6z" fill="#8a93a3"/></marker></defs><g class="lanes">'];
    for (const l of s.lanes) out.push('<g class="lane" data-lane="' + l.id + '" data-kind="' + l.kind + '"><rect class="lane-bg" x="0" y="' + (TOP + l.id * LANE) + '" width="' + (LABEL + width + 20) + '" height="' + LANE + '"/><text class="lane-label" x="6" y="' + (y(l.id) + 4) + '">' + esc(l.label.length > 58 ? l.label.slice(0, 57) + '…' : l.label) + '</text></g>');
    out.push('</g><g class="axis">');
    for (let t = 0; t <= 10; t++) { const at = (s.spanMs * t) / 10; out.push('<line x1="' + x(at) + '" x2="' + x(at) + '" y1="' + (TOP - 4) + '" y2="' + h + '"/><text x="' + x(at) + '" y="12">' + at.toFixed(at < 10 ? 1 : 0) + ' ms</text>'); }
    out.push('</g><g class="arrows">');
    const at = (m) => [m.kind === 'request' ? x(m.at) : x(m.at), y(m.lane)];
    for (const a of s.arrows) { const f = at(s.marks[a.from]), t = at(s.marks[a.to]); const mid = (f[0] + t[0]) / 2; out.push('<path class="arrow" data-from="' + a.from + '" data-to="' + a.to + '" marker-end="url(#head' + si + ')" d="M' + f[0] + ',' + f[1] + 'C' + mid + ',' + f[1] + ' ' + mid + ',' + t[1] + ' ' + t[0] + ',' + t[1] + '"/>'); }
    out.push('</g><g class="marks">');
    for (const m of s.marks) {
      const cls = 'mark ' + m.kind + (m.failed ? ' failed' : '') + (m.notes && m.notes.some((n) => n.kind === 'violation') ? ' violation' : '') + (m.notes && m.notes.some((n) => n.kind === 'drift') ? ' drift' : '');
      const attrs = ' class="' + cls + '" data-section="' + si + '" data-mark="' + m.id + '"';
      const cx = x(m.at), cy = y(m.lane);
      if (m.kind === 'request') out.push('<rect' + attrs + ' x="' + cx + '" y="' + (cy - 6) + '" width="' + Math.max(3, x(m.until) - cx) + '" height="12" rx="2"/>');
      else if (m.kind === 'client-frame') out.push('<path' + attrs + ' d="M' + cx + ',' + (cy - 5) + 'l5,5l-5,5l-5,-5z"/>');
      else if (m.kind === 'end') out.push('<path' + attrs + ' d="M' + cx + ',' + (cy - 8) + 'l0,16l5,0l0,-16z"/>');
      else out.push('<circle' + attrs + ' cx="' + cx + '" cy="' + cy + '" r="4"/>');
    }
    out.push('</g></svg>');
    return '<section class="cassette" data-name="' + esc(s.name) + '"><h2>' + esc(s.name) + ' · ' + esc(s.target) + ' · ' + s.lanes.length + ' lanes, ' + s.marks.length + ' marks, ' + s.arrows.length + ' links, ' + s.spanMs.toFixed(0) + ' ms</h2><div class="scroll">' + out.join('') + '</div></section>';
  });
  document.getElementById('sections').innerHTML = html.join('');
}
const markOf = (el) => { const s = el.closest && el.closest('.mark'); return s ? data.sections[+s.dataset.section].marks[+s.dataset.mark] : undefined; };
const tip = document.getElementById('tip');
document.addEventListener('mouseover', (e) => {
  const m = markOf(e.target);
  if (!m) { tip.hidden = true; return; }
  tip.textContent = m.label + (m.notes ? ' — ' + m.notes.map((n) => n.text).join('; ') : '');
  tip.hidden = false;
});
document.addEventListener('mousemove', (e) => { tip.style.left = e.clientX + 14 + 'px'; tip.style.top = e.clientY + 10 + 'px'; });
// Marks recorded at the same moment sit on one another: clicking the same spot again steps to the next one under it.
let last;
document.addEventListener('click', (e) => {
  const under = document.elementsFromPoint(e.clientX, e.clientY).filter((x) => x.classList && x.classList.contains('mark'));
  if (under.length === 0) return;
  const at = under.indexOf(last);
  const el = at === -1 ? under[0] : under[(at + 1) % under.length];
  last = el;
  const m = data.sections[+el.dataset.section].marks[+el.dataset.mark];
  for (const x of document.querySelectorAll('.selected, .lit')) x.classList.remove('selected', 'lit');
  el.classList.add('selected');
  const svg = el.ownerSVGElement;
  for (const a of svg.querySelectorAll('.arrow[data-from="' + m.id + '"], .arrow[data-to="' + m.id + '"]')) a.classList.add('lit');
  document.getElementById('detail-title').textContent = m.label + (under.length > 1 ? ' (' + under.length + ' marks here: click again for the next)' : '');
  document.getElementById('payload').textContent = m.payload;
  document.getElementById('notes').innerHTML = (m.notes || []).map((n) => '<li class="' + n.kind + '-note">' + esc(n.text) + '</li>').join('');
});
document.getElementById('zoom').addEventListener('input', (e) => draw(+e.target.value));
draw(1);
document.body.dataset.ready = 'true';
`;

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

/**
 * One self-contained HTML file: the data embedded, the drawing done by the
 * page itself, and a Content-Security-Policy that forbids every fetch, so
 * the page cannot reach the network even by mistake.
 */
export function renderTimelineHtml(title: string, sections: readonly TimelineSection[]): string {
  const count = (f: (s: TimelineSection) => number) => sections.reduce((n, s) => n + f(s), 0);
  const notes = (kind: string) => count((s) => s.marks.filter((m) => m.notes?.some((n) => n.kind === kind)).length);
  const summary = `${sections.length} cassettes · ${count((s) => s.lanes.length)} lanes · ${count((s) => s.marks.length)} marks · ${count((s) => s.arrows.length)} links · ${notes('violation')} marks with violations · ${notes('drift')} with drift`;
  // `<` escaped so no payload can close the script element it lives in.
  const json = JSON.stringify({ sections })
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><header><h1>${escapeHtml(title)}</h1><span class="counts">${escapeHtml(summary)}</span><label>zoom <input type="range" id="zoom" min="1" max="40" value="1"></label></header>
<main id="sections"></main>
<aside><h2 id="detail-title">Click a mark to see its payload</h2><ul id="notes"></ul><pre id="payload"></pre></aside>
<div id="tip" hidden></div>
<script type="application/json" id="timeline-data">${json}</script>
<script>${SCRIPT}</script>
</body></html>
`;
}
