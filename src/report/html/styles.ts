/** The page's one stylesheet: light and dark themes, the charts coloured by class. */
export const STYLE = `
:root{color-scheme:light dark;--bg:#f4f6f8;--card:#fff;--fg:#1b2430;--muted:#5a6472;--border:#dde2e8;--grid:#e8ecf0;--axis:#9aa3ae;--accent:#2458c6;
--published:#007a5a;--failed:#c4410c;--invalid:#a86a00;--skipped:#6f7885;--not_attempted:#9b3f8c;--validated:#2767c9;--not_read:#c6ccd4;
--good-bg:#e3f4ec;--good-fg:#075e43;--bad-bg:#fbe7df;--bad-fg:#8f2d06;--warn-bg:#fbf0d9;--warn-fg:#6e4700}
@media (prefers-color-scheme:dark){:root{--bg:#0e1217;--card:#161b22;--fg:#e4e8ee;--muted:#9aa5b3;--border:#2b323c;--grid:#232a33;--axis:#5d6773;--accent:#79a7ff;
--published:#34c28f;--failed:#ff7a45;--invalid:#f2b53a;--skipped:#98a2ae;--not_attempted:#d68bc8;--validated:#6ea8ff;--not_read:#3a424d;
--good-bg:#0f2e23;--good-fg:#7fe0b7;--bad-bg:#3a1a10;--bad-fg:#ffb395;--warn-bg:#33280f;--warn-fg:#f5cd7a}}
*{box-sizing:border-box}
html{background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue","Noto Sans","DejaVu Sans",Arial,sans-serif;-webkit-text-size-adjust:100%}
body{margin:0 auto;max-width:1180px;padding:28px 24px 40px}
h1,h2,h3{line-height:1.25;margin:0}
h1{font-size:1.55rem;font-weight:650;overflow-wrap:anywhere}
h2{font-size:1.05rem;font-weight:650;margin-bottom:12px}
h3{font-size:.95rem;font-weight:650;margin:22px 0 8px}
.muted{color:var(--muted);font-weight:400}
.mono,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:.9em}
.eyebrow{color:var(--muted);font-size:.8rem;letter-spacing:.06em;text-transform:uppercase;font-weight:600;margin:0 0 4px}
header.top{display:flex;flex-wrap:wrap;align-items:flex-end;justify-content:space-between;gap:12px 24px;margin-bottom:20px}
.verdict{display:inline-flex;align-items:center;gap:10px;margin:0;padding:8px 14px;border-radius:999px;font-weight:600}
.verdict.good{background:var(--good-bg);color:var(--good-fg)}.verdict.bad{background:var(--bad-bg);color:var(--bad-fg)}.verdict.warn{background:var(--warn-bg);color:var(--warn-fg)}
.verdict .code{white-space:nowrap;font-size:.78rem;border:1.5px solid currentColor;border-radius:999px;padding:0 8px}
.tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(140px,1fr));gap:12px;margin-bottom:16px}
.tile{background:var(--card);border:1px solid var(--border);border-radius:12px;padding:12px 14px 10px;display:flex;flex-direction:column;position:relative;overflow:hidden}
.tile::before{content:"";position:absolute;left:0;top:0;bottom:0;width:4px;background:var(--c,var(--fg))}
.tile-label{font-size:.82rem;color:var(--muted);font-weight:600}
.tile-value{font-size:1.7rem;font-weight:650;font-variant-numeric:tabular-nums;line-height:1.2}
.tile-note{font-size:.8rem;color:var(--muted);min-height:1.2em}
.tile.zero .tile-value{color:var(--muted);font-weight:500}
.t-rows{--c:var(--accent)}.t-published,.p-published,.f-published{--c:var(--published)}.t-failed,.p-failed,.f-failed{--c:var(--failed)}.t-invalid,.p-invalid,.f-invalid{--c:var(--invalid)}
.t-skipped,.f-skipped{--c:var(--skipped)}.t-not_attempted,.p-not_attempted,.f-not_attempted{--c:var(--not_attempted)}.t-validated,.f-validated{--c:var(--validated)}.f-not_read{--c:var(--not_read)}
.grid2{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px;margin-bottom:16px}
@media (max-width:860px){.grid2{grid-template-columns:minmax(0,1fr)}}
.card{background:var(--card);border:1px solid var(--border);border-radius:12px;padding:16px 18px}
.card > p.sub{margin:-8px 0 8px;color:var(--muted);font-size:.85rem}
svg{display:block;width:100%;height:auto;overflow:visible}
svg text{fill:var(--muted);font-size:11px;font-family:inherit}
svg .tick{font-variant-numeric:tabular-nums}svg .unit{font-weight:600}
svg .mark{fill:var(--fg);font-size:10.5px;font-weight:600;paint-order:stroke;stroke:var(--card);stroke-width:3px;stroke-linejoin:round}
svg .none{font-size:13px}
svg .grid{stroke:var(--grid);stroke-width:1}svg .axis{stroke:var(--axis);stroke-width:1}
svg .frame{fill:none;stroke:var(--border);stroke-dasharray:4 4}
svg .pct{stroke:var(--fg);stroke-width:1;stroke-dasharray:2 3;opacity:.8}
svg rect[class^="f-"]{fill:var(--c)}
svg.bar{height:28px;border-radius:6px;overflow:hidden}
svg.bar .f-not_read{fill:var(--not_read)}
svg.bar rect{stroke:var(--card);stroke-width:2px;vector-effect:non-scaling-stroke}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;list-style:none;padding:0;margin:12px 0 0;font-size:.88rem}
.legend li{display:flex;align-items:center;gap:7px}
.legend b{font-variant-numeric:tabular-nums;font-weight:650}
.dot{display:inline-block;width:10px;height:10px;border-radius:3px;background:var(--c);flex:none}
.stats{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:10px;margin:16px 0 0;padding-top:14px;border-top:1px solid var(--grid)}
.stats dt{color:var(--muted);font-size:.8rem}.stats dd{margin:0;font-size:1.15rem;font-weight:650;font-variant-numeric:tabular-nums}
.stats .zero dd{color:var(--muted);font-weight:500}
.meta{display:grid;grid-template-columns:1fr;margin:0}
.meta div{display:grid;grid-template-columns:120px minmax(0,1fr);gap:12px;padding:5px 0;border-top:1px solid var(--grid)}
.meta div:first-child{border-top:0}
.meta dt{color:var(--muted);font-size:.86rem}.meta dd{margin:0;overflow-wrap:anywhere}
.meta .code{font-weight:700;font-variant-numeric:tabular-nums;margin-right:4px}
.problems .lede{margin:-6px 0 4px;color:var(--muted)}
.controls{display:flex;flex-wrap:wrap;align-items:center;gap:10px 16px;margin:14px 0 4px;padding:10px 12px;border:1px solid var(--border);border-radius:10px;background:var(--bg)}
.controls[hidden]{display:none}
fieldset{border:0;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:8px;align-items:center}
legend{float:left;margin-right:6px;color:var(--muted);font-size:.86rem;font-weight:600}
.check{display:inline-flex;align-items:center;gap:7px;padding:4px 10px;border:1px solid var(--border);border-radius:999px;background:var(--card);cursor:pointer;font-size:.88rem}
.check input{margin:0;accent-color:var(--c)}
.check:has(input:not(:checked)){opacity:.6}
.check:focus-within{outline:2px solid var(--accent);outline-offset:2px}
.search{flex:1 1 260px}
.search input{width:100%;font:inherit;color:var(--fg);background:var(--card);border:1px solid var(--border);border-radius:8px;padding:6px 10px}
.search input:focus{outline:2px solid var(--accent);outline-offset:1px}
.shown{margin:0;color:var(--muted);font-size:.86rem;flex-basis:100%}
.scroll{overflow:auto;max-height:640px;border:1px solid var(--border);border-radius:10px}
table{border-collapse:collapse;width:100%;font-size:.88rem}
th{position:sticky;top:0;background:var(--card);text-align:left;font-weight:600;color:var(--muted);font-size:.8rem;padding:7px 10px;border-bottom:1px solid var(--border);white-space:nowrap}
td{padding:6px 10px;border-top:1px solid var(--grid);vertical-align:baseline}
tbody tr:first-child td{border-top:0}
tbody tr:hover td{background:color-mix(in srgb,var(--accent) 6%,transparent)}
table.groups td:nth-child(1),table.groups th:nth-child(1),table.rows td:nth-child(1),table.rows th:nth-child(1){text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.groups td:nth-child(1){font-weight:650}
table.rows td:nth-child(1),table.rows td:nth-child(2){font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:.82rem}
table.rows td:nth-child(2),table.groups td:nth-child(5){white-space:nowrap}
table.groups td:nth-child(3),table.rows td:nth-child(4){font-variant-numeric:tabular-nums;white-space:nowrap}
table.groups td:nth-child(4),table.rows td:nth-child(5){overflow-wrap:anywhere;min-width:18em}
.by-market{margin-top:14px}
table.markets th,table.markets td{padding:6px 8px;text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.markets thead th{white-space:normal;vertical-align:bottom}
table.markets th:first-child{text-align:left}
table.markets tbody th{position:static;color:var(--fg);font-weight:600;white-space:normal;overflow-wrap:anywhere;border-top:1px solid var(--grid);border-bottom:0}
table.markets tbody tr:first-child th{border-top:0}
td[class^="p-"]{white-space:nowrap}
td[class^="p-"]::before{content:"";display:inline-block;width:10px;height:10px;border-radius:3px;background:var(--c);margin-right:7px}
.note{color:var(--muted);font-size:.86rem;margin:8px 0 0}
.all-good{margin:0;color:var(--good-fg)}
.empty td{color:var(--muted);text-align:center;padding:14px}
.banner{margin:0 0 16px;padding:10px 14px;border-radius:10px;background:var(--warn-bg);color:var(--warn-fg)}
.banner.stop{background:var(--bad-bg);color:var(--bad-fg)}
.next{margin:0 0 16px}.next p{margin:6px 0 0}.next pre{margin:8px 0 0;white-space:pre-wrap;overflow-wrap:anywhere}
footer{margin-top:24px;color:var(--muted);font-size:.8rem;text-align:center}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media print{html{background:#fff}.controls{display:none}.scroll{max-height:none;overflow:visible}}
`;
