// Time order: samples of one thread laid out along real time; neighbouring samples with the same
// leading frames share one wider box. Gaps longer than twice the usual interval stay visible.
import { frameColor, textOn } from './colors.mjs';
import { middleTruncate } from './flame.mjs';

const CHART_ROW = 18;

/**
 * The chart of the samples that keep(i) accepts, in timeline order: boxes as arrays (start, end,
 * depth, node of the base tree). A sample lasts until the next one, at most twice the median
 * interval (of the intervals above zero), or of the interval the file declares (interval > 0: Tachyon's
 * header, in the timeline's unit), since samplers write in bursts whose median gap is far below it; where
 * samples carry durations as weights (speedscope, folded lines) it lasts its weight.
 */
export function buildChart(tree, tl, keep, weightsAreDurations, interval = 0) {
  const idx = [];
  for (let i = 0; i < tl.n; i++) if (keep(i)) idx.push(i);
  const gaps = [];
  for (let k = 1; k < idx.length && gaps.length < 5000; k++) {
    const g = tl.time[idx[k]] - tl.time[idx[k - 1]];
    if (g > 0) gaps.push(g);
  }
  gaps.sort((a, b) => a - b);
  const typical = interval > 0 ? interval : gaps.length ? Math.max(gaps[gaps.length >> 1], 1) : 1;
  const start = [], end = [], depth = [], node = [];
  const open = [], openNode = [];
  let prevEnd = -Infinity;
  const path = [];
  const close = (from, at) => {
    for (let d = open.length - 1; d >= from; d--) end[open[d]] = at;
    open.length = from; openNode.length = from;
  };
  for (let k = 0; k < idx.length; k++) {
    const i = idx[k];
    const a = tl.time[i];
    let b;
    if (weightsAreDurations) b = a + tl.weight[i];
    else {
      const dt = k + 1 < idx.length ? tl.time[idx[k + 1]] - a : typical;
      b = a + Math.min(dt > 0 ? dt : typical, 2 * typical);
    }
    if (b <= a) continue;
    if (a > prevEnd) close(0, prevEnd);
    path.length = 0;
    for (let v = tl.node[i]; v > 0; v = tree.parent[v]) path.push(v);
    path.reverse();
    let d = 0;
    while (d < open.length && d < path.length && openNode[d] === path[d]) d++;
    close(d, a);
    for (; d < path.length; d++) {
      const c = start.length;
      start.push(a); end.push(b); depth.push(d + 1); node.push(path[d]);
      open.push(c); openNode.push(path[d]);
    }
    prevEnd = b;
  }
  close(0, prevEnd);
  return { n: start.length, start: Float64Array.from(start), end: Float64Array.from(end),
    depth: Int32Array.from(depth), node: Int32Array.from(node),
    t0: start.length ? start[0] : 0, t1: prevEnd === -Infinity ? 1 : prevEnd };
}

/** Draws a chart on a canvas between times [v0, v1); returns the boxes drawn (for hit tests). */
export function drawChart(canvas, chart, tree, names, kinds, v0, v1, dark) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, canvas.clientWidth), h = Math.max(1, canvas.clientHeight);
  canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = getComputedStyle(document.documentElement).getPropertyValue('--bg');
  ctx.fillRect(0, 0, w, h);
  ctx.font = '12px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  const scale = w / Math.max(v1 - v0, 1e-9);
  const drawn = [];
  for (let c = 0; c < chart.n; c++) {
    const x = (chart.start[c] - v0) * scale, x2 = (chart.end[c] - v0) * scale;
    if (x2 - x < 0.33 || x2 <= 0 || x >= w) continue;
    const y = (chart.depth[c] - 1) * CHART_ROW;
    if (y > h) continue;
    const f = tree.frame[chart.node[c]];
    const cx = Math.max(0, x), cw = Math.min(x2, w) - cx;
    const fill = frameColor(names[f], kinds[f], dark);
    ctx.fillStyle = fill;
    ctx.fillRect(cx, y, Math.max(cw - 0.5, 0.5), CHART_ROW - 1);
    if (cw > 24) {
      const max = Math.floor((cw - 6) / 6.5);
      ctx.fillStyle = textOn(fill);
      if (max >= 3) ctx.fillText(middleTruncate(names[f], max), cx + 3, y + CHART_ROW / 2);
    }
    if (drawn.length < 20000) drawn.push(c);
  }
  return { drawn, scale, v0, row: CHART_ROW };
}

/**
 * The activity strip: per thread a row of sample weight per time bucket, the selected range
 * shaded. Returns the time span shown.
 */
export function drawActivity(canvas, tl, threadsShown, range, status) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, canvas.clientWidth), h = Math.max(1, canvas.clientHeight);
  canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const css = getComputedStyle(document.documentElement);
  ctx.fillStyle = css.getPropertyValue('--bg');
  ctx.fillRect(0, 0, w, h);
  let t0 = Infinity, t1 = -Infinity;
  for (let i = 0; i < tl.n; i++) { if (tl.time[i] < t0) t0 = tl.time[i]; if (tl.time[i] > t1) t1 = tl.time[i]; }
  if (!(t1 > t0)) t1 = t0 + 1;
  const buckets = Math.max(1, Math.floor(w / 2));
  // One row per thread while rows stay readable, else one row for all the threads shown.
  const perThread = threadsShown.length <= 8;
  const rows = perThread ? Math.max(1, threadsShown.length) : 1, rh = h / rows;
  const hist = Array.from({ length: rows }, () => new Float64Array(buckets));
  const rowOf = new Map(threadsShown.map((t, k) => [t, perThread ? k : 0]));
  for (let i = 0; i < tl.n; i++) {
    const r = rowOf.get(tl.thread[i]);
    if (r === undefined || (status && (tl.status[i] & status) !== status)) continue;
    const b = Math.min(buckets - 1, Math.floor((tl.time[i] - t0) / (t1 - t0) * buckets));
    hist[r][b] += tl.weight[i];
  }
  ctx.fillStyle = css.getPropertyValue('--accent');
  hist.forEach((hs, r) => {
    let max = 0;
    for (const v of hs) if (v > max) max = v;
    for (let b = 0; b < buckets; b++) {
      if (!hs[b]) continue;
      const bh = Math.max(1, (rh - 2) * hs[b] / max);
      ctx.fillRect(b * w / buckets, r * rh + rh - 1 - bh, Math.max(1, w / buckets - 0.3), bh);
    }
  });
  if (range) {
    ctx.fillStyle = 'rgba(128,128,128,0.35)';
    const a = (range[0] - t0) / (t1 - t0) * w, b = (range[1] - t0) / (t1 - t0) * w;
    ctx.fillRect(0, 0, Math.max(0, a), h);
    ctx.fillRect(b, 0, Math.max(0, w - b), h);
  }
  return { t0, t1, w };
}
