// The page: decodes the embedded profile, derives the trees the state asks for, wires the views.
import { base64Bytes, inflateRaw, decodeProfile } from './data.mjs';
import { applyTransform, reorder, reweigh, timelineWeights, unionShape, functionTable,
  callersOf, calleesOf, matchFrames, matchedTotal, nameRanks, pathOf, findPath } from './tree.mjs';
import { FlameView, middleTruncate } from './flame.mjs';
import { VirtualTable, cell } from './table.mjs';
import { encodeState, decodeState, transformLabel } from './state.mjs';
import { buildChart, drawChart, drawActivity } from './timeorder.mjs';
import { formatValue, percent, signed } from './format.mjs';
import { KIND_STYLE, frameColor, textOn } from './colors.mjs';
import { diffProfiles, nodeByNames, namePath } from './compare.mjs';

const $ = (id) => document.getElementById(id);
const meta = JSON.parse($('sf-meta').textContent);
const TIME_UNITS = ['nanoseconds', 'microseconds', 'milliseconds', 'seconds'];

let P;            // decoded profile
let S;            // state
let nameRank;     // frame -> rank by name
let kinds;        // frame -> kind name
let derived = { key: null, tree: null };
let fnTable = null;
let theme = localStorage.getItem('stackfold-theme') || 'system';
// Comparison pages (view A B [C...]): every profile decoded, the shown one by key ('k' or 'a-b').
const PROFILES = meta.profiles || null;
const decoded = [];
const diffs = new Map();
let pageKey = null;

const darkQuery = matchMedia('(prefers-color-scheme: dark)');
function dark() {
  return document.documentElement.dataset.theme === 'dark'
    || (document.documentElement.dataset.theme !== 'light' && darkQuery.matches);
}

function unit() { return meta.unit; }
function fmt(v) { return formatValue(v, unit()); }
const isDiff = () => meta.columns === 2;

// ---- the derived tree: filters, transforms, diff shape, order

function sampleFilter() {
  const tl = P.timeline;
  if (!tl || (!S.threads && !S.status && !S.range)) return null;
  const threads = S.threads ? new Set(S.threads) : null;
  return (i) => (!threads || threads.has(tl.thread[i])) && (!S.status || (tl.status[i] & S.status) === S.status)
    && (!S.range || (tl.time[i] >= S.range[0] && tl.time[i] < S.range[1]));
}

function currentTree() {
  const key = JSON.stringify([S.threads, S.status, S.range, S.transforms, S.union, S.byName]);
  if (derived.key === key) return derived.tree;
  const nf = P.names.length, rank = S.byName ? nameRank : null;
  let t = P.tree;
  const keep = sampleFilter();
  if (keep) {
    const w = timelineWeights(t, P.timeline, keep);
    t = reweigh(t, w.self, w.before, nf, rank);
  }
  for (const tr of S.transforms) t = applyTransform(t, tr, nf, rank);
  if (isDiff() && S.union) t = unionShape(t, nf, rank);
  if (S.byName && t === P.tree) t = reorder(t, rank);
  derived = { key, tree: t };
  fnTable = null;
  return t;
}

function functions() {
  if (!fnTable) fnTable = functionTable(currentTree(), P.names.length);
  return fnTable;
}

// ---- shared UI: tooltip, menu, search

const tooltip = $('tooltip');

function showTooltip(tree, i, ev, Q = P, fmtQ = fmt) {
  if (i < 0 || !ev) { tooltip.hidden = true; return; }
  const f = tree.frame[i], fmt = fmtQ;
  tooltip.textContent = '';
  const name = document.createElement('div');
  name.className = 'tname';
  name.textContent = Q.names[f];
  tooltip.appendChild(name);
  if (Q.file[f] >= 0 || Q.line[f] >= 0) {
    const loc = document.createElement('div');
    loc.className = 'tloc';
    loc.textContent = (Q.file[f] >= 0 ? Q.files[Q.file[f]] : '?') + (Q.line[f] >= 0 ? ':' + Q.line[f] : '');
    tooltip.appendChild(loc);
  }
  const table = document.createElement('table');
  const row = (k, v) => { const r = table.insertRow(); r.insertCell().textContent = k; r.insertCell().textContent = v; };
  const view = tree.total[0], whole = Q.tree.total[0];
  row('total', `${fmt(tree.total[i])}  (${percent(tree.total[i], view)} of view, ${percent(tree.total[i], whole)} of profile)`);
  row('self', `${fmt(tree.self[i])}  (${percent(tree.self[i], view)} of view)`);
  if (tree.before) {
    const b = tree.totalBefore[i], a = tree.totalAfter[i];
    const nb = b / (tree.totalBefore[0] || 1), na = a / (tree.totalAfter[0] || 1);
    row('before', `${fmt(b)}  (${percent(b, tree.totalBefore[0])})`);
    row('after', `${fmt(a)}  (${percent(a, tree.totalAfter[0])})`);
    row('delta', `${signed(fmt(a - b), a - b)}  (${signed(((na - nb) * 100).toFixed(2) + ' points', na - nb)})`);
  }
  const kn = Q.kindNames[f];
  row('kind', kindBreakdown(f, Q) || (KIND_STYLE[kn] ? KIND_STYLE[kn].label : kn));
  tooltip.appendChild(table);
  tooltip.hidden = false;
  const x = Math.min(ev.clientX + 14, innerWidth - tooltip.offsetWidth - 4);
  const y = ev.clientY + 16 + tooltip.offsetHeight > innerHeight ? ev.clientY - tooltip.offsetHeight - 8 : ev.clientY + 16;
  tooltip.style.left = Math.max(0, x) + 'px';
  tooltip.style.top = Math.max(0, y) + 'px';
}

const menu = $('menu');

function openMenu(tree, i, ev) {
  const f = tree.frame[i];
  menu.textContent = '';
  const item = (text, fn) => {
    const b = document.createElement('button');
    b.textContent = text;
    b.addEventListener('click', () => { menu.hidden = true; fn(); });
    menu.appendChild(b);
  };
  item('Focus on this subtree', () => pushTransform({ kind: 'focus', path: pathOf(tree, i) }));
  item('Focus on function ' + P.names[f], () => pushTransform({ kind: 'focusfn', f }));
  item('Merge function into callers', () => pushTransform({ kind: 'merge', f }));
  item('Drop stacks with this function', () => pushTransform({ kind: 'drop', f }));
  item('Collapse recursion', () => pushTransform({ kind: 'rec', f }));
  item('Show in sandwich', () => { S.sel = f; setView('sandwich'); });
  if (P.lines.has(f)) item('Show source lines', () => showSource(f));
  item('Copy name', () => navigator.clipboard && navigator.clipboard.writeText(P.names[f]));
  menu.hidden = false;
  menu.style.left = Math.min(ev.clientX, innerWidth - menu.offsetWidth - 4) + 'px';
  menu.style.top = Math.min(ev.clientY, innerHeight - menu.offsetHeight - 4) + 'px';
}
addEventListener('mousedown', (e) => { if (!menu.contains(e.target)) menu.hidden = true; });

function pushTransform(tr) {
  S.transforms = [...S.transforms, tr];
  flame.zoom = 0;
  S.zoom = null;
  update();
}

let matchCache = { pattern: null, match: null };
function match() {
  if (matchCache.pattern !== S.search) matchCache = { pattern: S.search, match: matchFrames(P.names, S.search, 'i') };
  return matchCache.match;
}

// Search matches in the current tree, in preorder, for next/previous (n, Shift+n, Enter in the box).
let hits = { tree: null, match: null, nodes: null, at: -1 };
function matchNodes() {
  const t = currentTree(), m = match();
  if (hits.tree !== t || hits.match !== m) {
    const nodes = [];
    if (m) for (let i = 1; i < t.n; i++) if (m[t.frame[i]]) nodes.push(i);
    hits = { tree: t, match: m, nodes: Int32Array.from(nodes), at: -1 };
  }
  return hits;
}

function stepMatch(dir) {
  const h = matchNodes();
  if (!h.nodes.length) return;
  if (S.view !== 'flame') setView('flame');
  h.at = h.at < 0 ? (dir > 0 ? 0 : h.nodes.length - 1) : (h.at + dir + h.nodes.length) % h.nodes.length;
  const i = h.nodes[h.at];
  flame.zoomTo(flame.tree.parent[i] > 0 ? flame.tree.parent[i] : i);
  flame.select(i);
  S.zoom = flame.zoomPath();
  saveState(true);
  drawMatched();
}

// ---- export: the current view (transforms, filters, zoom) as folded text, the graph as PNG

/**
 * Folded lines of the flame graph's tree under its zoomed frame (whole stacks from the root, so the
 * file reads back as the profile of what is on screen); a differential tree gives "before after".
 */
function foldedOfView() {
  const t = currentTree(), z = flame.tree === t && flame.zoom > 0 ? flame.zoom : 0;
  // The stack of names along the preorder walk, starting with the zoomed frame's callers.
  const stack = [];
  for (let v = z > 0 ? t.parent[z] : 0; v > 0; v = t.parent[v]) stack.unshift(P.names[t.frame[v]]);
  const lines = [];
  for (let i = z > 0 ? z : 1, stop = z > 0 ? t.end[z] : t.n; i < stop; i++) {
    stack.length = t.depth[i] - 1;
    stack.push(P.names[t.frame[i]]);
    if (t.before ? t.before[i] || t.after[i] : t.self[i]) {
      lines.push(stack.join(';') + ' ' + (t.before ? `${t.before[i]} ${t.after[i]}` : t.self[i]));
    }
  }
  return lines.join('\n') + (lines.length ? '\n' : '');
}

/** XML text: names are data (escaped), never markup. */
const xml = (t) => String(t).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]);

/** The flame graph as drawn now (viewport, orientation, search colours) as a standalone SVG, a title per frame. */
function svgOfView() {
  const v = flame, w = v.canvas.clientWidth, h = v.canvas.clientHeight;
  const style = getComputedStyle(document.documentElement);
  const bg = style.getPropertyValue('--bg').trim(), m = match(), search = style.getPropertyValue('--search').trim();
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="${xml(bg)}"/>`];
  for (const i of v.drawn) {
    const b = v.box(i), f = v.tree.frame[i];
    const x = Math.max(0, b.x), bw = Math.min(b.x + b.w, w) - x;
    if (bw <= 0) continue;
    const fill = m && m[f] ? search : v.color(i);
    const faded = m && !m[f] ? ' fill-opacity="0.35"' : '';
    out.push(`<g><title>${xml(P.names[f])} (${xml(fmt(v.tree.total[i]))})</title>`
      + `<rect x="${x.toFixed(1)}" y="${b.y}" width="${Math.max(bw - 0.5, 0.5).toFixed(1)}" height="17" fill="${xml(fill)}"${faded}/>`);
    const max = Math.floor((bw - 6) / 7);
    if (bw > 24 && max >= 3) out.push(`<text x="${(x + 3).toFixed(1)}" y="${b.y + 13}" fill="${faded ? xml(style.getPropertyValue('--muted').trim()) : textOn(fill)}">${xml(middleTruncate(P.names[f], max))}</text>`);
    out.push('</g>');
  }
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function download(name, blob) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

function exportName(ext) {
  const base = ($('title').textContent || 'profile').replace(/[^\w.-]+/g, '_').slice(0, 80);
  return `${base}.view.${ext}`;
}

function openExportMenu(ev) {
  menu.textContent = '';
  const item = (text, fn) => {
    const b = document.createElement('button');
    b.textContent = text;
    b.addEventListener('click', () => { menu.hidden = true; fn(); });
    menu.appendChild(b);
  };
  item('Folded text of this view (transforms, filters, zoom)', () => download(exportName('folded'),
    new Blob([foldedOfView()], { type: 'text/plain' })));
  if (S.view === 'flame') item('SVG of this graph (as drawn: zoom, search)', () => download(exportName('svg'),
    new Blob([svgOfView()], { type: 'image/svg+xml' })));
  const canvas = { flame: flame.canvas, sandwich: callers.canvas, time: timeCanvas }[S.view];
  if (canvas) item('PNG of this graph', () => canvas.toBlob((b) => b && download(exportName('png'), b), 'image/png'));
  menu.hidden = false;
  const r = ev.target.getBoundingClientRect();
  menu.style.left = Math.max(0, Math.min(r.left, innerWidth - menu.offsetWidth - 4)) + 'px';
  menu.style.top = r.bottom + 2 + 'px';
  menu.querySelector('button').focus();
}

// ---- views

const host = (onClick) => ({
  names: null, kinds: null, dark, match,
  format: (v) => fmt(v),
  byName: () => S.byName,
  diffColors: () => true,
  onHover: (v, i, ev) => showTooltip(v.tree, i, ev),
  onClick,
  onMenu: (v, i, ev) => openMenu(v.tree, i, ev),
  onSelect: (v, i) => { if (v === flame) showDetail(v.tree, i); announce(v, i); },
  // A free viewport is not kept in the address; the address changes once, when it stops being a frame's zoom
  // (not on every wheel step: browsers throttle history calls, and each costs a frame's time).
  onViewport: (v) => { if (v === flame && S.zoom !== null) { S.zoom = null; saveState(false); } },
});

const flame = new FlameView(document.querySelector('#view-flame canvas'), { ...host((v, i) => {
  if (i < 0) return;
  v.zoomTo(i === v.zoom ? Math.max(0, v.tree.parent[i]) : i);
  v.select(i);
  S.zoom = v.zoomPath();
  saveState(true);
}), minimap: true });
flame.canvas.setAttribute('aria-label', 'Flame graph');
const callers = new FlameView(document.querySelector('#callers canvas'), host((v, i) => {
  if (i > 0) selectFunction(v.tree.frame[i]);
}));
const callees = new FlameView(document.querySelector('#callees canvas'), host((v, i) => {
  if (i > 0) selectFunction(v.tree.frame[i]);
}));
callers.canvas.setAttribute('aria-label', 'Callers of the selected function');
callees.canvas.setAttribute('aria-label', 'Callees of the selected function');

/** The focused frame's name and weights, for screen readers (a live region) and as the canvas's description. */
function announce(v, i) {
  const live = $('announce');
  if (i <= 0) { live.textContent = ''; return; }
  const t = v.tree, f = t.frame[i];
  live.textContent = `${v.host.names[f]}: total ${fmt(t.total[i])} (${percent(t.total[i], t.total[0])}), self ${fmt(t.self[i])}`;
}

// The detail panel: the selected frame's totals here and over all its instances, and its whole stack.
function showDetail(t, i) {
  const box = $('frame-detail');
  box.textContent = '';
  if (i <= 0) { box.hidden = true; return; }
  box.hidden = false;
  const f = t.frame[i], ft = functions(), all = t.total[0];
  const head = document.createElement('div');
  head.className = 'dname';
  head.textContent = P.names[f];
  const loc = location_(f);
  const stats = document.createElement('table');
  stats.className = 'dstats';
  const r0 = stats.insertRow();
  for (const h of ['', 'total', 'self']) { const c = document.createElement('th'); c.textContent = h; r0.appendChild(c); }
  const row = (label, tot, self) => {
    const r = stats.insertRow();
    r.insertCell().textContent = label;
    r.insertCell().textContent = `${fmt(tot)} (${percent(tot, all)})`;
    r.insertCell().textContent = `${fmt(self)} (${percent(self, all)})`;
  };
  row('this frame', t.total[i], t.self[i]);
  row('all instances', ft.total[f], ft.self[f]);
  const info = document.createElement('div');
  info.className = 'dinfo';
  info.append(head);
  if (loc) { const l = document.createElement('div'); l.className = 'tloc'; l.textContent = loc; info.append(l); }
  const kb = kindBreakdown(f);
  if (kb) { const k = document.createElement('div'); k.className = 'dkinds'; k.textContent = kb; info.append(k); }
  info.append(stats);
  if (P.lines.has(f)) {
    const b = document.createElement('button');
    b.className = 'dsource';
    b.textContent = `Source lines (${P.lines.get(f).length})`;
    b.addEventListener('click', () => showSource(f));
    info.append(b);
  }
  const stack = document.createElement('ol');
  stack.className = 'dstack';
  stack.setAttribute('aria-label', 'Stack, root first');
  const path = [];
  for (let v = i; v > 0; v = t.parent[v]) path.push(v);
  for (const v of path.reverse()) {
    const li = document.createElement('li');
    const chit = document.createElement('span');
    chit.className = 'chit';
    chit.style.background = frameColor(P.names[t.frame[v]], kinds[t.frame[v]], dark());
    li.append(chit, document.createTextNode(P.names[t.frame[v]]));
    if (v === i) li.className = 'current';
    li.addEventListener('click', () => flame.select(v));
    stack.appendChild(li);
  }
  box.append(info, stack);
}

function location_(f) {
  if (P.file[f] < 0 && P.line[f] < 0) return '';
  return (P.file[f] >= 0 ? P.files[P.file[f]] : '?') + (P.line[f] >= 0 ? ':' + P.line[f] : '');
}

/** A function's weight by frame kind (JIT, inlined, interpreted...), where it ran as more than one. */
function kindBreakdown(f, Q = P) {
  const parts = Q.kindParts && Q.kindParts.get(f);
  if (!parts) return '';
  let sum = 0;
  for (const [, w] of parts) sum += w;
  return parts.map(([k, w]) => `${KIND_STYLE[meta.kinds[k]] ? KIND_STYLE[meta.kinds[k]].label : meta.kinds[k]} ${percent(w, sum)}`).join(' · ');
}

function drawFlame() {
  const t = currentTree();
  flame.setTree(t, S.icicle);
  if (S.zoom) {
    const z = findPath(t, S.zoom);
    if (z > 0) flame.zoomTo(z);
  }
}

// Sandwich
let fnRows = null, fnSort = { key: 'self', desc: true }, fnFilter = '';
const fnTableView = new VirtualTable($('fn-table'), [
  { title: 'Total', cls: 'num wide', key: 'total' }, { title: 'Self', cls: 'num wide', key: 'self' },
  { title: 'Function', cls: 'name', key: 'name' }],
(r, row) => {
  const f = fnRows[r], t = functions(), all = currentTree().total[0];
  cell(row, 'num wide', `${fmt(t.total[f])} (${percent(t.total[f], all)})`);
  cell(row, 'num wide', `${fmt(t.self[f])} (${percent(t.self[f], all)})`);
  const n = cell(row, 'name', '');
  const chit = document.createElement('span');
  chit.className = 'chit';
  chit.style.background = frameColor(P.names[f], kinds[f], dark());
  n.appendChild(chit);
  n.appendChild(document.createTextNode(P.names[f]));
  n.title = P.names[f];
  const m = match();
  if (m && m[f]) n.classList.add('match');
  row.dataset.frame = String(f);
  row.addEventListener('click', () => selectFunction(f));
},
(key) => { fnSort = { key, desc: fnSort.key === key ? !fnSort.desc : key !== 'name' }; fnRows = null; drawSandwich(); });

fnTableView.onMove = (r) => selectFunction(fnRows[r]);

function sortedFunctions() {
  const t = functions(), ft = fnFilter.toLowerCase();
  const rows = [];
  for (let f = 0; f < P.names.length; f++) {
    if (t.total[f] === 0 && t.self[f] === 0 && !(t.totalB && t.totalB[f])) continue;
    if (ft && !P.names[f].toLowerCase().includes(ft)) continue;
    rows.push(f);
  }
  const k = fnSort.key, d = fnSort.desc ? -1 : 1;
  const val = k === 'name' ? null : k === 'self' ? t.self : t.total;
  rows.sort(val ? (a, b) => d * (val[a] - val[b]) || a - b : (a, b) => d * (nameRank[a] - nameRank[b]));
  return rows;
}

function drawSandwich() {
  if (!fnRows) fnRows = sortedFunctions();
  // The default selection (the first row) is chosen before the rows are painted, so it shows as selected.
  if (S.sel < 0 && fnRows.length) S.sel = fnRows[0];
  fnTableView.selected = fnRows.indexOf(S.sel);
  fnTableView.setSortMark(fnSort.key, fnSort.desc);
  fnTableView.setCount(fnRows.length);
  if (S.sel >= 0) {
    const t = currentTree(), rank = S.byName ? nameRank : null;
    $('sw-name').textContent = P.names[S.sel];
    callers.setTree(callersOf(t, S.sel, P.names.length, rank), false);
    callees.setTree(calleesOf(t, S.sel, P.names.length, rank), true);
  }
}

function selectFunction(f) {
  S.sel = f;
  if (S.view !== 'sandwich') { setView('sandwich'); return; }
  drawSandwich();
  const r = fnRows.indexOf(f);
  if (r >= 0) fnTableView.scrollTo(r);
  saveState(false);
}

// Call tree
let expanded = null, treeRows = null, treeOf = null, treeSel = -1;
const treeView = new VirtualTable($('call-tree'), [
  { title: 'Total', cls: 'num wide' }, { title: 'Self', cls: 'num wide' }, { title: 'Function', cls: 'name' }],
(r, row) => {
  const t = treeOf, i = treeRows[r], all = t.total[0];
  cell(row, 'num wide', `${fmt(t.total[i])} (${percent(t.total[i], all)})`);
  cell(row, 'num wide', `${fmt(t.self[i])} (${percent(t.self[i], all)})`);
  const n = cell(row, 'name', '');
  n.style.paddingLeft = indent(t.depth[i]) + 'px';
  n.title = `${P.names[t.frame[i]]} (depth ${t.depth[i]})`;
  const tw = document.createElement('span');
  tw.className = 'twisty';
  tw.textContent = t.end[i] > i + 1 ? (expanded[i] ? '▾' : '▸') : '';
  n.appendChild(tw);
  n.appendChild(document.createTextNode(P.names[t.frame[i]]));
  const m = match();
  if (m && m[t.frame[i]]) n.classList.add('match');
  if (i === treeSel) row.classList.add('selected');
  row.addEventListener('click', () => { treeSel = i; expanded[i] ^= 1; listTree(); });
});

/**
 * Indentation of a call-tree row: 14 px a level up to a third of the name column, then growing ever
 * more slowly (still monotonic), so a frame 200 levels deep keeps its name in view.
 */
function indent(depth) {
  const width = $('call-tree').clientWidth - 2 * 12 * 13 || 600;
  const cap = Math.max(60, width / 3), d = (depth - 1) * 14;
  return d <= cap * 0.6 ? d : cap * 0.6 + cap * 0.4 * (1 - Math.exp(-(d - cap * 0.6) / (cap * 0.4)));
}

treeView.onMove = (r) => { treeSel = treeRows[r]; treeView.selected = r; treeView.paint(); };
treeView.onEnter = (r, key) => {
  const i = treeRows[r];
  if (key === 'ArrowRight') expanded[i] = 1; else if (key === 'ArrowLeft') expanded[i] = 0; else expanded[i] ^= 1;
  listTree();
};

function listTree() {
  const t = treeOf, rows = [];
  for (let i = 1; i < t.n;) {
    rows.push(i);
    i = expanded[i] ? i + 1 : t.end[i];
  }
  treeRows = rows;
  treeView.selected = rows.indexOf(treeSel);
  treeView.setCount(rows.length);
}

function drawTree() {
  const t = currentTree();
  if (treeOf !== t) {
    treeOf = t;
    expanded = new Uint8Array(t.n);
    hotPath();
    return;
  }
  listTree();
}

function hotPath() {
  const t = treeOf;
  let i = treeSel > 0 ? treeSel : 0;
  while (t.end[i] > i + 1) {
    expanded[i] = 1;
    const c = i + 1;
    if (t.total[c] < t.total[0] * 0.005) break;
    i = c;
  }
  treeSel = i;
  listTree();
  const r = treeRows.indexOf(i);
  if (r >= 0) treeView.scrollTo(r);
}
$('hot-path').addEventListener('click', hotPath);
$('collapse-all').addEventListener('click', () => { expanded.fill(0); treeSel = -1; listTree(); });

// Diff table
let diffRows = null, diffSort = { key: 'dtotal', desc: true };
const diffView = new VirtualTable($('diff-table'), [
  { title: 'Δ total', cls: 'num', key: 'dtotal' }, { title: 'Δ self', cls: 'num', key: 'dself' },
  { title: 'Total before', cls: 'num', key: 'tb' }, { title: 'Total after', cls: 'num', key: 'ta' },
  { title: 'Self before', cls: 'num', key: 'sb' }, { title: 'Self after', cls: 'num', key: 'sa' },
  { title: 'Function', cls: 'name', key: 'name' }],
(r, row) => {
  const f = diffRows[r], t = functions();
  const dt = t.totalA[f] - t.totalB[f], ds = t.selfA[f] - t.selfB[f];
  cell(row, 'num ' + (dt > 0 ? 'grew' : dt < 0 ? 'shrank' : ''), signed(fmt(dt), dt));
  cell(row, 'num ' + (ds > 0 ? 'grew' : ds < 0 ? 'shrank' : ''), signed(fmt(ds), ds));
  cell(row, 'num', fmt(t.totalB[f])); cell(row, 'num', fmt(t.totalA[f]));
  cell(row, 'num', fmt(t.selfB[f])); cell(row, 'num', fmt(t.selfA[f]));
  cell(row, 'name', P.names[f]).title = P.names[f];
  row.addEventListener('click', () => selectFunction(f));
},
(key) => { diffSort = { key, desc: diffSort.key === key ? !diffSort.desc : key !== 'name' }; diffRows = null; drawDiffTable(); });

function drawDiffTable() {
  const t = functions();
  if (!diffRows) {
    const rows = [];
    for (let f = 0; f < P.names.length; f++) if (t.totalA[f] || t.totalB[f]) rows.push(f);
    const v = {
      dtotal: (f) => t.totalA[f] - t.totalB[f], dself: (f) => t.selfA[f] - t.selfB[f], tb: (f) => t.totalB[f],
      ta: (f) => t.totalA[f], sb: (f) => t.selfB[f], sa: (f) => t.selfA[f],
    }[diffSort.key];
    const d = diffSort.desc ? -1 : 1;
    rows.sort(v ? (a, b) => d * (v(a) - v(b)) || a - b : (a, b) => d * (nameRank[a] - nameRank[b]));
    diffRows = rows;
  }
  diffView.setSortMark(diffSort.key, diffSort.desc);
  diffView.setCount(diffRows.length);
}

// Source: the selected function's lines with self and total weights (of the whole profile), with the
// file's text where the page carries it, else line numbers alone.
const SOURCE_CONTEXT = 3, SOURCE_MAX_ROWS = 5000;

function showSource(f) {
  S.sel = f;
  setView('source');
}

/** Functions with line information, heaviest (by the sum of their lines' self weights) first. */
let sourceFns = null;
function functionsWithLines() {
  if (!sourceFns) {
    const weight = new Map();
    for (const [f, rows] of P.lines) weight.set(f, rows.reduce((a, r) => a + r[1], 0) + 1e-9 * rows.reduce((a, r) => Math.max(a, r[2]), 0));
    sourceFns = [...P.lines.keys()].sort((a, b) => weight.get(b) - weight.get(a) || a - b);
  }
  return sourceFns;
}

/** The source lines of one function: [start, end] of the lines to show, and whether the text is known. */
function sourceRows(f) {
  const rows = P.lines.get(f), text = P.file[f] >= 0 ? P.sources.get(P.file[f]) : undefined;
  const lines = text === undefined ? null : text.split(/\r\n|\n|\r/);
  return { rows, lines };
}

function drawSource() {
  const fns = functionsWithLines(), select = $('src-fn'), body = $('src-body');
  let f = S.sel;
  const note = $('src-note');
  note.textContent = '';
  if (!P.lines.has(f)) {
    if (f >= 0) note.textContent = `${P.names[f]} has no line information in this profile; showing the heaviest function that has.`;
    f = fns[0];
  }
  if (select.options.length !== fns.length) {
    select.textContent = '';
    for (const g of fns) {
      const o = document.createElement('option');
      o.value = String(g);
      o.textContent = P.names[g];
      select.appendChild(o);
    }
  }
  select.value = String(f);
  const loc = location_(f);
  $('src-loc').textContent = loc;
  body.textContent = '';
  const { rows, lines } = sourceRows(f);
  const all = P.tree.total[0] || 1;
  let maxSelf = 0;
  for (const r of rows) maxSelf = Math.max(maxSelf, r[1]);
  const table = document.createElement('table');
  table.setAttribute('aria-label', `Lines of ${P.names[f]}`);
  const head = table.createTHead().insertRow();
  for (const [t, cls] of [['Line', 'ln'], ['Self', 'w'], ['Total', 'w'], [lines ? 'Source' : 'Source (file not embedded: line numbers only)', 'code']]) {
    const th = document.createElement('th');
    th.textContent = t;
    th.scope = 'col';
    if (cls === 'code') th.style.textAlign = 'left';
    head.appendChild(th);
  }
  const tb = table.createTBody();
  const byLine = new Map(rows.map((r) => [r[0], r]));
  const heat = dark() ? '255,120,60' : '255,90,30';
  const addRow = (n) => {
    const r = byLine.get(n), tr = tb.insertRow();
    tr.dataset.line = String(n);
    tr.insertCell().textContent = String(n);
    tr.cells[0].className = 'ln';
    const self = tr.insertCell(), total = tr.insertCell();
    self.className = 'w'; total.className = 'w';
    if (r) {
      tr.className = 'hot';
      self.textContent = r[1] ? `${fmt(r[1])} (${percent(r[1], all)})` : '';
      total.textContent = `${fmt(r[2])} (${percent(r[2], all)})`;
      if (maxSelf > 0 && r[1] > 0) tr.style.background = `rgba(${heat},${(0.08 + 0.5 * r[1] / maxSelf).toFixed(3)})`;
    }
    const code = tr.insertCell();
    code.className = 'code';
    code.textContent = lines && n >= 1 && n <= lines.length ? lines[n - 1] : '';
  };
  const gap = (text) => { const tr = tb.insertRow(); tr.className = 'gap'; const c = tr.insertCell(); c.colSpan = 4; c.textContent = text; };
  if (lines) {
    const lo = Math.max(1, rows[0][0] - SOURCE_CONTEXT);
    const hi = Math.min(lines.length, Math.max(rows[rows.length - 1][0] + SOURCE_CONTEXT, lo), lo + SOURCE_MAX_ROWS);
    for (let n = lo; n <= hi; n++) addRow(n);
    // Lines the profile names past the end of the file (an edited file): shown without text.
    for (const r of rows) if (r[0] > hi) addRow(r[0]);
  } else {
    rows.forEach((r, k) => {
      if (k > 0 && r[0] > rows[k - 1][0] + 1) gap('⋮');
      addRow(r[0]);
    });
  }
  body.appendChild(table);
}

// Time order
let chart = null, chartKey = null, chartBoxes = null, chartView = null;
const timeCanvas = document.querySelector('#view-time canvas');
const timeThread = document.createElement('select');

function drawTime() {
  const tl = P.timeline;
  if (!tl) return;
  const thread = Number(timeThread.value || 0);
  const key = JSON.stringify([thread, S.status]);
  if (chartKey !== key) {
    // Weights are durations where the timeline has no time unit, or where they are in a time unit (perf's
    // cpu-clock periods); a count of events (perf's cycles) is not one.
    const durations = !TIME_UNITS.includes(meta.timeUnit)
      || (tl.weight.some((w) => w !== 1) && !['events', 'count'].includes(meta.unit));
    chart = buildChart(P.tree, tl, (i) => tl.thread[i] === thread && (!S.status || (tl.status[i] & S.status) === S.status),
      durations, meta.interval || 0);
    chartKey = key;
  }
  const v0 = S.range ? S.range[0] : chart.t0, v1 = S.range ? S.range[1] : chart.t1;
  chartView = { v0, v1 };
  chartBoxes = drawChart(timeCanvas, chart, P.tree, P.names, kinds, v0, v1, dark());
}

timeCanvas.addEventListener('mousemove', (e) => {
  if (!chart || !chartBoxes) return;
  const r = timeCanvas.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
  const tx = chartView.v0 + x / chartBoxes.scale, d = Math.floor(y / chartBoxes.row) + 1;
  for (const c of chartBoxes.drawn) {
    if (chart.depth[c] === d && chart.start[c] <= tx && tx < chart.end[c]) { showTooltip(P.tree, chart.node[c], e); return; }
  }
  showTooltip(null, -1, null);
});
timeCanvas.addEventListener('mouseleave', () => showTooltip(null, -1, null));

// Activity strip and range selection
const activity = $('activity');
let span = null, dragFrom = null;
function drawStrip() {
  if (!P.timeline || activity.clientWidth === 0) return;
  const shown = S.threads || P.timeline.threads.map((_, k) => k);
  span = drawActivity(activity, P.timeline, shown, S.range, S.status);
}
const timeAt = (e) => {
  const r = activity.getBoundingClientRect();
  return span.t0 + Math.min(Math.max(0, (e.clientX - r.left) / r.width), 1) * (span.t1 - span.t0);
};
activity.addEventListener('mousedown', (e) => { if (span) dragFrom = timeAt(e); });
addEventListener('mouseup', (e) => {
  if (dragFrom === null) return;
  const to = timeAt(e), a = Math.min(dragFrom, to), b = Math.max(dragFrom, to);
  dragFrom = null;
  S.range = b - a > (span.t1 - span.t0) / 1000 ? [a, b] : null;
  update();
});

// ---- filters, breadcrumbs, toolbar

function drawFilters() {
  const box = $('filters');
  box.textContent = '';
  const tl = P.timeline;
  if (!tl) return;
  if (tl.threads.length > 1) {
    // A drop-down list: a profile may have hundreds of threads.
    const d = document.createElement('details');
    d.className = 'threads';
    d.open = threadsOpen;
    d.addEventListener('toggle', () => { threadsOpen = d.open; });
    const sum = document.createElement('summary');
    sum.textContent = `Threads (${S.threads ? S.threads.length : tl.threads.length} of ${tl.threads.length})`;
    const list = document.createElement('div');
    const all = document.createElement('button');
    all.textContent = S.threads ? 'all' : 'none';
    all.addEventListener('click', () => { S.threads = S.threads ? null : []; update(); });
    list.appendChild(all);
    for (const k of threadOrder()) {
      const l = document.createElement('label');
      const c = document.createElement('input');
      c.type = 'checkbox';
      c.checked = !S.threads || S.threads.includes(k);
      c.addEventListener('change', () => {
        const on = new Set(S.threads || tl.threads.map((_, j) => j));
        if (c.checked) on.add(k); else on.delete(k);
        S.threads = on.size === tl.threads.length ? null : [...on].sort((a, b) => a - b);
        update();
      });
      l.append(c, document.createTextNode(` ${tl.threads[k]} (${fmt(threadWeight()[k])})`));
      list.appendChild(l);
    }
    d.append(sum, list);
    box.appendChild(d);
  }
  let seen = 0;
  for (let i = 0; i < tl.n; i++) seen |= tl.status[i];
  for (const [bit, label] of meta.statusFlags) {
    if (!(seen & bit)) continue;
    const l = document.createElement('label');
    const c = document.createElement('input');
    c.type = 'checkbox';
    c.checked = (S.status & bit) !== 0;
    c.addEventListener('change', () => { S.status = c.checked ? S.status | bit : S.status & ~bit; update(); });
    l.append(c, document.createTextNode(' ' + label));
    box.appendChild(l);
  }
  if (S.range) {
    const b = document.createElement('button');
    b.textContent = 'clear time range';
    b.addEventListener('click', () => { S.range = null; update(); });
    box.appendChild(b);
  }
}

let threadsOpen = false, threadWeights = null;
function threadWeight() {
  if (!threadWeights) {
    const tl = P.timeline;
    threadWeights = new Float64Array(tl.threads.length);
    for (let i = 0; i < tl.n; i++) threadWeights[tl.thread[i]] += tl.weight[i];
  }
  return threadWeights;
}

/** Thread indices, heaviest first. */
function threadOrder() {
  const w = threadWeight();
  return P.timeline.threads.map((_, k) => k).sort((a, b) => w[b] - w[a] || a - b);
}

function drawCrumbs() {
  const box = $('crumbs');
  box.textContent = '';
  const crumb = (text, k, current) => {
    if (k > 0) { const s = document.createElement('span'); s.className = 'sep'; s.textContent = '›'; box.appendChild(s); }
    const b = document.createElement(current ? 'span' : 'button');
    b.textContent = text;
    if (current) b.className = 'current';
    else b.addEventListener('click', () => { S.transforms = S.transforms.slice(0, k); S.zoom = null; update(); });
    box.appendChild(b);
  };
  crumb('Whole profile', 0, S.transforms.length === 0);
  S.transforms.forEach((t, k) => crumb(transformLabel(t, P.names), k + 1, k === S.transforms.length - 1));
}

function drawLegend() {
  const box = $('legend');
  box.textContent = '';
  if (isDiff()) {
    for (const [c, text] of [['hsl(0,85%,60%)', 'grew'], ['hsl(220,85%,60%)', 'shrank'], ['hsl(0,0%,85%)', 'unchanged']]) {
      const s = document.createElement('span'), i = document.createElement('i');
      i.style.background = c;
      s.append(i, document.createTextNode(text));
      box.appendChild(s);
    }
    return;
  }
  const present = new Set(kinds);
  for (const k of meta.kinds) {
    if (!present.has(k)) continue;
    const s = document.createElement('span'), i = document.createElement('i');
    i.style.background = frameColor(k, k, dark());
    s.append(i, document.createTextNode(KIND_STYLE[k] ? KIND_STYLE[k].label : k));
    box.appendChild(s);
  }
}

function drawMatched() {
  const m = match(), el = $('matched'), input = $('search');
  input.classList.toggle('bad', !!S.search && !m);
  const count = $('match-count');
  if (!m) { el.textContent = ''; count.textContent = ''; return; }
  const t = currentTree();
  el.textContent = 'Matched: ' + percent(matchedTotal(t, m), t.total[0]);
  const h = matchNodes();
  count.textContent = h.at >= 0 ? `${h.at + 1}/${h.nodes.length}` : `${h.nodes.length}`;
  count.title = `${h.nodes.length} matching frames in the view`;
}

function setView(v) {
  if (v === 'time' && !P.timeline) return;
  if (v === 'difftable' && !isDiff()) return;
  if (v === 'source' && !P.lines.size) return;
  if (v === 'compare' && !PROFILES) return;
  S.view = v;
  update();
}

/**
 * Writes the state to the address: a new history entry for a change of view, zoom, transform or filter
 * (push), so Back returns to the state before; in place for typing and wheel/drag moves.
 */
function saveState(push) {
  const h = encodeState(S);
  if (location.hash.replace(/^#/, '') === h) return;
  const url = h ? '#' + h : location.pathname + location.search;
  if (push) history.pushState(null, '', url); else history.replaceState(null, '', url);
}

/** The state from the address (Back, Forward, an edited hash); what cannot be read is named in a note. */
function applyHash() {
  if (location.hash.replace(/^#/, '') === encodeState(S)) return;
  const problems = [];
  usePage(pageParam(location.hash, problems));
  S = decodeState(location.hash, P.names.length, problems);
  S.pv = pageKey;
  S.cmp = checkPair(S.cmp, problems);
  showNote(problems.length ? 'Ignored in the address: ' + problems.join('; ') : '');
  if (flame.tree) flame.zoomTo(0);
  flame.selected = -1;
  showDetail(null, -1);
  update(null);
}

function showNote(text) {
  const n = $('note');
  n.hidden = !text;
  $('note-text').textContent = text;
}

function update(push = true) {
  if (push !== null) saveState(push);
  for (const b of document.querySelectorAll('#tabs button')) b.setAttribute('aria-selected', String(b.dataset.view === S.view));
  for (const s of document.querySelectorAll('.view')) s.classList.toggle('active', s.id === 'view-' + S.view);
  $('orient').textContent = S.icicle ? 'Icicle' : 'Flame';
  $('order').textContent = S.byName ? 'By name' : 'Left heavy';
  $('union').checked = S.union;
  if ($('search').value !== S.search) $('search').value = S.search;
  fnRows = null; diffRows = null;
  drawCrumbs();
  drawFilters();
  drawMatched();
  drawStrip();
  if (S.view === 'flame') drawFlame();
  else if (S.view === 'sandwich') drawSandwich();
  else if (S.view === 'tree') drawTree();
  else if (S.view === 'time') drawTime();
  else if (S.view === 'difftable') drawDiffTable();
  else if (S.view === 'source') drawSource();
  else if (S.view === 'compare') drawCompare();
  const t = currentTree();
  $('detail').textContent = `${fmt(t.total[0])} ${TIME_UNITS.includes(unit()) ? 'of ' : ''}${meta.valueType} in view · ${P.tree.n - 1} call-tree nodes · ${P.names.length} functions`;
}

function redrawCharts() {
  if (S.view === 'flame') flame.draw();
  if (S.view === 'sandwich') { callers.draw(); callees.draw(); fnTableView.paint(); }
  if (S.view === 'time') drawTime();
  if (S.view === 'tree') treeView.paint();
  if (S.view === 'difftable') diffView.paint();
  if (S.view === 'compare') { sides[0].draw(); sides[1].draw(); }
  drawStrip();
}

function applyTheme() {
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  $('theme').textContent = 'Theme: ' + theme;
  for (const v of [flame, callers, callees, ...sides]) v.colorCache.clear();
}

function wire() {
  for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => setView(b.dataset.view));
  $('orient').addEventListener('click', () => { S.icicle = !S.icicle; update(); });
  $('order').addEventListener('click', () => { S.byName = !S.byName; update(); });
  $('union').addEventListener('change', () => { S.union = $('union').checked; update(); });
  $('search').addEventListener('input', () => { S.search = $('search').value; update(false); });
  $('search').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') { e.preventDefault(); stepMatch(e.shiftKey ? -1 : 1); }
  });
  $('match-prev').addEventListener('click', () => stepMatch(-1));
  $('match-next').addEventListener('click', () => stepMatch(1));
  $('note-close').addEventListener('click', () => showNote(''));
  addEventListener('popstate', applyHash);
  addEventListener('hashchange', applyHash);
  $('table-filter').addEventListener('input', () => { fnFilter = $('table-filter').value; fnRows = null; drawSandwich(); });
  $('theme').addEventListener('click', () => {
    theme = { system: 'light', light: 'dark', dark: 'system' }[theme];
    localStorage.setItem('stackfold-theme', theme);
    applyTheme();
    drawLegend();
    redrawCharts();
  });
  $('help-button').addEventListener('click', () => $('help').showModal());
  $('export').addEventListener('click', openExportMenu);
  timeThread.addEventListener('change', () => { chartKey = null; drawTime(); });
  addEventListener('resize', redrawCharts);
  darkQuery.addEventListener('change', () => { applyTheme(); redrawCharts(); });
  addEventListener('keydown', onKey);
}

function onKey(e) {
  const typing = e.target instanceof HTMLInputElement;
  if ((e.ctrlKey || e.metaKey) && e.key === 'f' || (!typing && e.key === '/')) {
    e.preventDefault();
    $('search').focus();
    $('search').select();
    return;
  }
  if (e.key === 'Escape') {
    if (!menu.hidden) { menu.hidden = true; flame.canvas.focus(); return; }
    // Esc leaves the search box but keeps the query (clear it with the box's ×).
    if (typing) { e.target.blur(); return; }
    flame.zoomTo(0); flame.select(-1); S.zoom = null; saveState(true);
    return;
  }
  if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
  if (S.view === 'flame' && navigate(e)) { e.preventDefault(); return; }
  const views = { 1: 'flame', 2: 'sandwich', 3: 'tree', 4: 'time', 5: 'difftable', 6: 'source', 7: 'compare' };
  if (views[e.key]) setView(views[e.key]);
  else if (e.key === '0') { flame.zoomTo(0); S.zoom = null; saveState(true); }
  else if (e.key === 'n' || e.key === 'N') stepMatch(e.shiftKey ? -1 : 1);
  else if (e.key === 'i') { S.icicle = !S.icicle; update(); }
  else if (e.key === 'o') { S.byName = !S.byName; update(); }
  else if (e.key === 'u' && isDiff()) { S.union = !S.union; update(); }
  else if (e.key === 't') $('theme').click();
  else if (e.key === 'h' && S.view === 'tree') hotPath();
  else if (e.key === '?') $('help').showModal();
  else if (e.key === 'Backspace' && S.transforms.length) { S.transforms = S.transforms.slice(0, -1); update(); }
}

/**
 * Flame graph keys: + - (and w s) zoom, a d pan, arrows move the selection between frames (parent,
 * child, siblings; as drawn: up is towards the leaves in a flame graph) or, with none selected or with
 * Shift, pan; Enter zooms to the selection.
 */
function navigate(e) {
  const k = e.key, v = flame, w = v.canvas.clientWidth || 800;
  const at = v.mouse === null || v.mouse === undefined ? undefined : v.mouse;
  if (k === '+' || k === '=' || k === 'w' || k === 'W') v.zoomBy(1.25, at);
  else if (k === '-' || k === '_' || k === 's' || k === 'S') v.zoomBy(0.8, at);
  else if (k === 'a' || k === 'A') v.panBy(-w * 0.1, 0);
  else if (k === 'd' || k === 'D') v.panBy(w * 0.1, 0);
  else if (k.startsWith('Arrow') && (v.selected <= 0 || e.shiftKey)) {
    const dx = k === 'ArrowLeft' ? -w * 0.1 : k === 'ArrowRight' ? w * 0.1 : 0;
    const dy = k === 'ArrowUp' ? -54 : k === 'ArrowDown' ? 54 : 0;
    if (v.selected <= 0 && !e.shiftKey && (k === 'ArrowUp' || k === 'ArrowDown')) { v.select(v.neighbour(-1)); return true; }
    v.panBy(dx, v.inverted ? dy : -dy);
  } else if (k.startsWith('Arrow')) {
    const up = v.inverted ? 'parent' : 'child', down = v.inverted ? 'child' : 'parent';
    const dir = { ArrowUp: up, ArrowDown: down, ArrowLeft: 'prev', ArrowRight: 'next' }[k];
    v.select(v.neighbour(v.selected, dir));
    return true;
  } else if ((k === 'ContextMenu' || k === 'm') && v.selected > 0) {
    // The transforms menu from the keyboard, at the selected frame; Tab moves through it, Esc closes it.
    const b = v.box(v.selected), r = v.canvas.getBoundingClientRect();
    openMenu(v.tree, v.selected, { clientX: r.left + Math.max(0, b.x) + 10, clientY: r.top + b.y + 18 });
    menu.querySelector('button').focus();
    return true;
  } else if (k === 'Enter' && v.selected > 0) {
    v.zoomTo(v.selected);
    S.zoom = v.zoomPath();
    saveState(true);
    return true;
  } else return false;
  if (S.zoom !== null) { S.zoom = null; saveState(false); }
  return true;
}

/** The profile key in an address: 'k' or 'a-b' within this page's profiles, else '0' (with a problem). */
function pageParam(hash, problems) {
  const p = new URLSearchParams(hash.replace(/^#/, '')).get('p');
  if (p === null) return '0';
  const n = PROFILES ? PROFILES.length : 1, parts = p.split('-').map(Number);
  const ok = /^\d+(-\d+)?$/.test(p) && parts.every((k) => k < n)
    && (parts.length === 1 || (parts[0] !== parts[1] && PROFILES[parts[0]].unit === PROFILES[parts[1]].unit));
  if (!ok) { problems.push(`p=${p.slice(0, 40)} (no such profile or difference in this page)`); return '0'; }
  return p;
}

function checkPair(c, problems) {
  if (!PROFILES) return c; // a page of one profile has no side by side: the pair is never used
  const n = PROFILES.length;
  if (c.every((k) => k < n)) return c;
  problems.push(`c=${c.join('.')} (no such pair of profiles)`);
  return [0, Math.min(1, n - 1)];
}

/** A page profile by key: profile k as decoded, or a-b the difference of a to b (made once). */
function pageProfile(key) {
  if (!key.includes('-')) return decoded[Number(key)];
  if (!diffs.has(key)) {
    const [a, b] = key.split('-').map(Number);
    const d = diffProfiles(decoded[a], decoded[b]);
    d.kindNames = Array.from(d.kind, (k) => meta.kinds[k] || 'unknown');
    diffs.set(key, d);
  }
  return diffs.get(key);
}

const label = (k) => { const l = PROFILES[k].label; return l.replace(/[\\/]+$/, '').split(/[\\/]/).pop() || l; };

/**
 * Shows a profile of the page (its key) with everything derived from it reset: trees, tables, colours,
 * thread list, tabs; the unit is the profile's (a difference takes its after's).
 */
function usePage(key) {
  if (key === pageKey) return;
  pageKey = key;
  P = pageProfile(key);
  if (PROFILES) {
    const parts = key.split('-').map(Number), m = PROFILES[parts[parts.length - 1]];
    Object.assign(meta, { columns: P.columns, valueType: m.valueType, unit: m.unit,
      timeUnit: parts.length > 1 ? null : m.timeUnit, interval: parts.length > 1 ? 0 : m.interval });
    $('profile-pick').value = key;
  }
  kinds = P.kindNames;
  for (const v of [flame, callers, callees]) {
    v.host.names = P.names; v.host.kinds = kinds;
    v.tree = null; v.zoom = 0; v.selected = -1; v.colorCache.clear();
  }
  nameRank = nameRanks(P.names);
  derived = { key: null, tree: null }; fnTable = null;
  matchCache = { pattern: null, match: null }; hits = { tree: null, match: null, nodes: null, at: -1 };
  threadWeights = null; chartKey = null; treeOf = null; sourceFns = null; fnRows = null; diffRows = null;
  const tab = (v) => $('tabs').querySelector(`[data-view="${v}"]`);
  tab('time').hidden = !P.timeline;
  tab('difftable').hidden = !isDiff();
  $('union-label').hidden = !isDiff();
  tab('source').hidden = !P.lines.size;
  tab('compare').hidden = !PROFILES;
  timeThread.textContent = '';
  $('time-tools').textContent = '';
  $('activity-wrap').hidden = !(P.timeline && TIME_UNITS.includes(meta.timeUnit));
  if (!$('activity-wrap').hidden) {
    for (const k of threadOrder()) {
      const o = document.createElement('option');
      o.value = String(k);
      o.textContent = `thread ${P.timeline.threads[k]} (${fmt(threadWeight()[k])})`;
      timeThread.appendChild(o);
    }
    $('time-tools').append(document.createTextNode('Thread: '), timeThread);
  }
  showDetail(null, -1);
  drawLegend();
}

/** Switches the profile shown from the picker: frames differ between profiles, so their state starts anew. */
function switchPage(key) {
  const view = S.view, search = S.search, cmp = S.cmp, icicle = S.icicle;
  usePage(key);
  S = decodeState('', P.names.length);
  Object.assign(S, { search, cmp, icicle, pv: key });
  const tab = $('tabs').querySelector(`[data-view="${view}"]`);
  S.view = tab && !tab.hidden ? view : 'flame';
  update();
}

// Side by side: two profiles of the page, whole, selection linked by the path of names (or the function).
const sideProfile = (k) => decoded[S.cmp[k]];
const sideFormat = (k) => (v) => formatValue(v, PROFILES ? PROFILES[S.cmp[k]].unit : meta.unit);
const sideMatch = [{ pattern: null, names: null, match: null }, { pattern: null, names: null, match: null }];
const sideHost = (k) => ({
  names: null, kinds: null, dark,
  match: () => {
    const c = sideMatch[k], Q = sideProfile(k);
    if (c.pattern !== S.search || c.names !== Q.names) Object.assign(c, { pattern: S.search, names: Q.names, match: matchFrames(Q.names, S.search, 'i') });
    return c.match;
  },
  format: (v) => sideFormat(k)(v),
  byName: () => false,
  diffColors: () => true,
  onHover: (v, i, ev) => showTooltip(v.tree, i, ev, sideProfile(k), sideFormat(k)),
  onClick: (v, i) => linkSelect(k, i),
  onMenu: () => {},
  onSelect: (v, i) => announce(v, i),
  onViewport: () => {},
});
const sides = [new FlameView(document.querySelector('#cmp-left canvas'), sideHost(0)),
  new FlameView(document.querySelector('#cmp-right canvas'), sideHost(1))];
sides[0].canvas.setAttribute('aria-label', 'Left profile');
sides[1].canvas.setAttribute('aria-label', 'Right profile');

function drawCompare() {
  for (const [k, id] of [[0, 'cmp-a'], [1, 'cmp-b']]) {
    const sel = $(id);
    if (sel.options.length !== PROFILES.length) {
      sel.textContent = '';
      PROFILES.forEach((p, j) => { const o = document.createElement('option'); o.value = String(j); o.textContent = label(j); o.title = p.label; sel.appendChild(o); });
    }
    sel.value = String(S.cmp[k]);
    const Q = sideProfile(k), v = sides[k];
    if (v.host.names !== Q.names) { v.host.names = Q.names; v.host.kinds = Q.kindNames; v.tree = null; v.colorCache.clear(); }
    v.setTree(Q.tree, S.icicle);
  }
}

/** A click on side k: zoom there to the frame, and in the other side to the same path of names (else the function). */
function linkSelect(k, i) {
  const v = sides[k], o = sides[1 - k], Q = sideProfile(k), R = sideProfile(1 - k);
  const note = $('cmp-note');
  note.textContent = '';
  if (i <= 0) { v.zoomTo(0); v.select(-1); o.zoomTo(0); o.select(-1); return; }
  v.zoomTo(i === v.zoom ? Math.max(0, v.tree.parent[i]) : i);
  v.select(i);
  const j = nodeByNames(o.tree, R.names, namePath(v.tree, Q.names, i));
  if (j > 0) { o.zoomTo(j); o.select(j); } else {
    o.zoomTo(0); o.select(-1);
    note.textContent = `${Q.names[v.tree.frame[i]]} is not in ${label(S.cmp[1 - k])}`;
  }
}

async function main() {
  const count = PROFILES ? PROFILES.length : 1;
  for (let k = 0; k < count; k++) {
    const columns = PROFILES ? PROFILES[k].columns : meta.columns;
    const q = decodeProfile(await inflateRaw(base64Bytes($(k === 0 ? 'sf-data' : 'sf-data-' + k).textContent)), columns);
    q.columns = columns;
    q.kindNames = Array.from(q.kind, (x) => meta.kinds[x] || 'unknown');
    decoded.push(q);
  }
  if (PROFILES) {
    const pick = $('profile-pick');
    pick.hidden = false;
    const option = (value, text) => { const o = document.createElement('option'); o.value = value; o.textContent = text; pick.appendChild(o); };
    PROFILES.forEach((p, k) => option(String(k), label(k)));
    // Differences of profiles of one unit (a JFR recording's CPU samples and allocated bytes are not one).
    PROFILES.forEach((p, a) => PROFILES.forEach((q, b) => { if (a !== b && p.unit === q.unit) option(`${a}-${b}`, `diff ${label(a)} → ${label(b)}`); }));
    pick.addEventListener('change', () => switchPage(pick.value));
    for (const [k, id] of [[0, 'cmp-a'], [1, 'cmp-b']]) {
      $(id).addEventListener('change', () => { S.cmp = k === 0 ? [Number($(id).value), S.cmp[1]] : [S.cmp[0], Number($(id).value)]; $('cmp-note').textContent = ''; update(); });
    }
  }
  const problems = [];
  usePage(pageParam(location.hash, problems));
  S = decodeState(location.hash, P.names.length, problems);
  S.pv = pageKey;
  S.cmp = checkPair(S.cmp, problems);
  if (problems.length) showNote('Ignored in the address: ' + problems.join('; '));
  // The title shows the files' names (the path is in its tooltip): a long path no longer hides the name.
  const base = (p) => p.replace(/[\\/]+$/, '').split(/[\\/]/).pop() || p;
  const joined = PROFILES ? meta.inputs.join(' | ') : meta.inputs.join(' → ');
  const shortTitle = meta.inputs.length && meta.title === joined ? meta.inputs.map(base).join(PROFILES ? ' | ' : ' → ') : meta.title;
  $('title').textContent = shortTitle;
  $('title').title = meta.title;
  document.title = shortTitle + ' – stackfold';
  $('src-fn').addEventListener('change', () => showSource(Number($('src-fn').value)));
  applyTheme();
  drawLegend();
  wire();
  update(false);
  requestAnimationFrame(() => {
    window.stackfold.readyAt = performance.now();
    document.documentElement.dataset.ready = '1';
  });
}

// For tests and scripts: the state and the views, read-only use.
window.stackfold = {
  get state() { return S; }, get profile() { return P; }, flame, callers, callees, sides, currentTree, switchPage,
  functions: () => functions(), setView, update, foldedOfView, svgOfView, kindName: (f) => kinds[f], boxOf: (view, name) => {
    const v = { flame, callers, callees, left: sides[0], right: sides[1] }[view];
    for (const i of v.drawn) if (v.host.names[v.tree.frame[i]] === name) return v.box(i);
    return null;
  },
};

main().catch((e) => {
  document.documentElement.dataset.ready = 'error';
  $('detail').textContent = 'Could not read the profile: ' + e.message;
  throw e;
});
