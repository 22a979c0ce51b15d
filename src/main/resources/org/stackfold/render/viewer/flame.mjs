// A flame graph (root at the bottom) or icicle (root at the top) on a canvas, with a continuous
// viewport: wheel, pinch, drag and keys zoom and pan it. Drawing walks the preorder arrays once and
// jumps over every subtree narrower than a third of a pixel or outside the window, so a frame costs
// what is visible, not what the profile holds. The frames are drawn on a base canvas only when the
// viewport, the tree or the colours change; hover and selection outlines go on an overlay canvas
// above it, so moving the mouse never redraws the tree.
import { layoutX, findPath, pathOf } from './tree.mjs';
import { frameColor, diffColor, textOn } from './colors.mjs';

const ROW = 18;
const AXIS = 18;
const MIN_PX = 0.33;
/** Below this width a frame is not drawn on its own: with siblings heaviest first, it and every sibling after it become one "rest" box. */
const SOLO_PX = 1;

/** A name cut in the middle to at most max characters, so both its start (package) and its end (method) stay. */
export function middleTruncate(name, max) {
  if (name.length <= max) return name;
  if (max < 2) return '';
  const keep = max - 1, head = Math.ceil(keep * 0.4);
  return name.slice(0, head) + '…' + name.slice(name.length - (keep - head));
}

/** Round tick steps (1, 2, 5 × 10^k) for an axis from a to b about px wide. */
export function ticks(a, b, px) {
  const span = b - a;
  if (!(span > 0)) return [];
  const raw = span / Math.max(1, px / 90);
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) || 10 * p;
  const out = [];
  for (let v = Math.ceil(a / step) * step; v <= b && out.length < 100; v += step) out.push(v);
  return out;
}

/** Boxes of one height grouped by (colour, alpha): drawn with one style change per group. */
class RectBatch {
  constructor() {
    this.keys = new Map();
    this.styles = [];
    this.alphas = [];
    this.cap = 4096;
    this.x = new Float32Array(this.cap); this.y = new Float32Array(this.cap); this.w = new Float32Array(this.cap);
    this.g = new Uint16Array(this.cap);
    this.n = 0;
  }
  reset() { this.n = 0; }
  add(style, alpha, x, y, w) {
    const key = alpha === 1 ? style : style + '|' + alpha;
    let g = this.keys.get(key);
    if (g === undefined) {
      g = this.styles.length;
      if (g >= 65535) { this.keys.clear(); this.styles.length = 0; this.alphas.length = 0; this.n = 0; return; }
      this.keys.set(key, g); this.styles.push(style); this.alphas.push(alpha);
    }
    if (this.n === this.cap) {
      this.cap *= 2;
      const grow = (a, T) => { const b = new T(this.cap); b.set(a); return b; };
      this.x = grow(this.x, Float32Array); this.y = grow(this.y, Float32Array); this.w = grow(this.w, Float32Array);
      this.g = grow(this.g, Uint16Array);
    }
    const k = this.n++;
    this.x[k] = x; this.y[k] = y; this.w[k] = w; this.g[k] = g;
  }
  draw(ctx, height) {
    const groups = this.styles.length, n = this.n;
    const start = new Int32Array(groups + 1);
    for (let k = 0; k < n; k++) start[this.g[k] + 1]++;
    for (let g = 0; g < groups; g++) start[g + 1] += start[g];
    const order = new Int32Array(n), fill = start.slice(0, groups);
    for (let k = 0; k < n; k++) order[fill[this.g[k]]++] = k;
    for (let g = 0; g < groups; g++) {
      if (start[g] === start[g + 1]) continue;
      ctx.globalAlpha = this.alphas[g];
      ctx.fillStyle = this.styles[g];
      for (let j = start[g]; j < start[g + 1]; j++) {
        const k = order[j];
        ctx.fillRect(this.x[k], this.y[k], this.w[k], height);
      }
    }
    ctx.globalAlpha = 1;
  }
}

export class FlameView {
  /**
   * host: { names, kinds (strings per frame), dark(), match(), format(v) for the axis,
   * onHover(view, i, ev), onClick(view, i), onMenu(view, i, ev), onSelect(view, i), onViewport(view) }
   */
  constructor(canvas, host) {
    this.canvas = canvas;
    this.host = host;
    const wrap = document.createElement('div');
    wrap.className = 'chart-wrap';
    canvas.replaceWith(wrap);
    this.overlay = document.createElement('canvas');
    this.overlay.className = 'overlay';
    this.overlay.setAttribute('aria-hidden', 'true');
    wrap.append(canvas, this.overlay);
    canvas.tabIndex = 0;
    canvas.setAttribute('role', 'img');
    this.tree = null;
    this.inverted = true;
    this.zoom = 0;
    this.vx0 = 0;
    this.vx1 = 1;
    this.scrollY = 0;
    this.hover = -1;
    this.selected = -1;
    this.drawn = [];
    this.labels = [];
    this.colorCache = new Map();
    this.textCache = new Map();
    this.drag = null;
    canvas.addEventListener('mousemove', (e) => this.onMove(e));
    canvas.addEventListener('mouseleave', () => {
      this.mouse = null;
      if (this.hover !== -1) { this.hover = -1; this.drawOverlay(); }
      this.host.onHover(this, -1, null);
    });
    canvas.addEventListener('mousedown', (e) => {
      if (e.button !== 0) return;
      this.drag = { x: e.clientX, y: e.clientY, vx0: this.vx0, vx1: this.vx1, sy: this.scrollY, moved: false };
    });
    addEventListener('mouseup', () => { if (this.drag && this.drag.moved) this.host.onViewport(this); });
    canvas.addEventListener('click', (e) => {
      const d = this.drag;
      this.drag = null;
      if (d && d.moved) return;
      const i = this.hitEvent(e);
      this.host.onClick(this, i, e);
    });
    canvas.addEventListener('contextmenu', (e) => {
      const i = this.hitEvent(e);
      if (i > 0) { e.preventDefault(); this.host.onMenu(this, i, e); }
    });
    canvas.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
    if (host.minimap) this.addMinimap(wrap);
  }

  /**
   * A minimap above the graph: the whole tree in rows of 2-8 px, drawn once per tree, theme, search and width
   * into a cached bitmap; each draw copies it and shades what lies outside the viewport. Click or drag
   * on it to move the viewport (its width stays); the wheel over it zooms as over the graph.
   */
  addMinimap(wrap) {
    const m = document.createElement('canvas');
    m.className = 'minimap';
    m.setAttribute('aria-label', 'Minimap: the whole graph; the unshaded part is in view');
    m.setAttribute('role', 'img');
    wrap.after(m); // shown above the graph (CSS order), after it in the DOM: the graph's canvas stays the first
    this.mini = m;
    this.miniKey = null;
    const move = (e) => {
      const r = m.getBoundingClientRect(), total = this.tree.total[0] || 1, span = this.vx1 - this.vx0;
      const at = (e.clientX - r.left) / Math.max(1, r.width) * total;
      this.setViewport(at - span / 2, span);
      this.host.onViewport(this);
    };
    let dragging = false;
    m.addEventListener('mousedown', (e) => { if (this.tree) { dragging = true; move(e); } });
    addEventListener('mousemove', (e) => { if (dragging && (e.buttons & 1)) move(e); });
    addEventListener('mouseup', () => { dragging = false; });
    m.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
  }

  drawMinimap(style) {
    const m = this.mini;
    if (!m || !m.isConnected || !this.tree) return;
    const { dpr } = this.fit(this.canvas);
    const w = Math.max(1, m.clientWidth), h = Math.max(1, m.clientHeight);
    if (m.width !== Math.round(w * dpr) || m.height !== Math.round(h * dpr)) { m.width = Math.round(w * dpr); m.height = Math.round(h * dpr); }
    const match = this.host.match();
    const key = [this.tree, this.inverted, this.darkNow, match, w, h, dpr];
    const same = this.miniKey && key.every((k, i) => k === this.miniKey[i]);
    if (!same) {
      this.miniKey = key;
      const c = this.miniCache || (this.miniCache = document.createElement('canvas'));
      c.width = m.width; c.height = m.height;
      const ctx = c.getContext('2d');
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = style.getPropertyValue('--bg').trim();
      ctx.fillRect(0, 0, w, h);
      const t = this.tree, X = this.x, scale = w / (t.total[0] || 1);
      let deepest = 1;
      for (let i = 1; i < t.n; i++) if (t.depth[i] > deepest) deepest = t.depth[i];
      const rh = Math.min(8, Math.max(2, Math.floor(h / deepest))), rows = Math.max(1, Math.floor(h / rh));
      const search = style.getPropertyValue('--search').trim();
      const batch = new RectBatch();
      for (let i = 1; i < t.n;) {
        const pw = t.total[i] * scale;
        if (pw < 0.5 || t.depth[i] > rows) { i = t.end[i]; continue; }
        const y = this.inverted ? (t.depth[i] - 1) * rh : h - t.depth[i] * rh;
        const matched = match && match[t.frame[i]];
        batch.add(matched ? search : this.color(i), match && !matched ? 0.35 : 1, X[i] * scale, y, Math.max(pw, 0.5));
        i++;
      }
      batch.draw(ctx, rh);
    }
    const ctx = m.getContext('2d');
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(this.miniCache, 0, 0);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const total = this.tree.total[0] || 1, a = this.vx0 / total * w, b = this.vx1 / total * w;
    ctx.fillStyle = 'rgba(128,128,128,0.45)';
    ctx.fillRect(0, 0, Math.max(0, a), h);
    ctx.fillRect(b, 0, Math.max(0, w - b), h);
    ctx.strokeStyle = style.getPropertyValue('--accent').trim();
    ctx.lineWidth = 1;
    ctx.strokeRect(Math.max(0, a) + 0.5, 0.5, Math.max(1, Math.min(b, w) - Math.max(0, a) - 1), h - 1);
    this.miniView = [a, b];
  }

  /** Shows a tree; the zoomed frame is kept (by its path) where it still exists. */
  setTree(tree, inverted) {
    if (tree === this.tree && inverted === this.inverted) { this.draw(); return; }
    const zoomPath = this.tree && this.zoom > 0 ? pathOf(this.tree, this.zoom) : null;
    const selPath = this.tree && this.selected > 0 ? pathOf(this.tree, this.selected) : null;
    this.tree = tree;
    this.inverted = inverted;
    this.x = layoutX(tree);
    this.zoom = zoomPath ? Math.max(0, findPath(tree, zoomPath)) : 0;
    this.selected = selPath ? findPath(tree, selPath) : -1;
    this.vx0 = this.x[this.zoom];
    this.vx1 = this.vx0 + (tree.total[this.zoom] || 1);
    this.hover = -1;
    this.draw();
  }

  /** Fits the viewport to node i (0: the whole tree). */
  zoomTo(i) {
    this.zoom = i;
    this.vx0 = this.x[i];
    this.vx1 = this.vx0 + (this.tree.total[i] || 1);
    this.scrollY = 0;
    this.draw();
  }

  zoomPath() {
    return this.zoom > 0 ? pathOf(this.tree, this.zoom) : null;
  }

  /** Zooms by a factor (> 1 in) around x (CSS pixels from the left; the centre by default). */
  zoomBy(factor, px) {
    const { w } = this.size();
    const at = px === undefined ? w / 2 : px;
    const total = this.tree.total[0] || 1;
    const span = this.vx1 - this.vx0;
    // Down to a few samples across the canvas, never below what floats resolve.
    const next = Math.min(total, Math.max(span / factor, Math.max(total * 1e-12, 1e-9)));
    const anchor = this.vx0 + span * at / w;
    this.setViewport(anchor - (anchor - this.vx0) * next / span, next);
  }

  /** Pans by pixels (dx right, dy towards deeper frames). */
  panBy(dx, dy) {
    const { w } = this.size();
    const span = this.vx1 - this.vx0;
    this.scrollY = Math.max(0, this.scrollY + dy);
    this.setViewport(this.vx0 + dx * span / w, span);
  }

  setViewport(a, span) {
    const total = this.tree.total[0] || 1;
    span = Math.min(span, total);
    a = Math.min(Math.max(0, a), total - span);
    this.vx0 = a;
    this.vx1 = a + span;
    this.zoom = -1; // a free viewport, no longer one frame's
    this.draw();
  }

  size() {
    return { w: Math.max(1, this.canvas.clientWidth), h: Math.max(1, this.canvas.clientHeight) };
  }

  fit(c) {
    const dpr = window.devicePixelRatio || 1;
    const { w, h } = this.size();
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
      c.width = Math.round(w * dpr);
      c.height = Math.round(h * dpr);
    }
    return { w, h, dpr };
  }

  /** A node's fill. The theme is read once per draw (matchMedia per node cost more than the drawing). */
  color(i) {
    const t = this.tree, host = this.host;
    const dark = this.darkNow === undefined ? host.dark() : this.darkNow;
    if (t.before && host.diffColors()) {
      const a = t.totalAfter[i] / (t.totalAfter[0] || 1), b = t.totalBefore[i] / (t.totalBefore[0] || 1);
      return diffColor(a, b, dark);
    }
    const f = t.frame[i];
    const key = dark ? -f - 1 : f;
    let c = this.colorCache.get(key);
    if (!c) {
      c = frameColor(host.names[f], host.kinds[f], dark);
      this.colorCache.set(key, c);
    }
    return c;
  }

  textColor(fill) {
    let c = this.textCache.get(fill);
    if (!c) {
      c = textOn(fill);
      if (this.textCache.size > 5000) this.textCache.clear();
      this.textCache.set(fill, c);
    }
    return c;
  }

  geometry() {
    const { w, h } = this.size();
    return { w, h, x0: this.vx0, scale: w / (this.vx1 - this.vx0 || 1) };
  }

  rowY(depth, h) {
    return this.inverted ? AXIS + (depth - 1) * ROW - this.scrollY : h - depth * ROW + this.scrollY;
  }

  /** Draws the frames (base canvas), then the outlines (overlay). */
  draw() {
    const t = this.tree;
    if (!t || !this.canvas.isConnected || this.canvas.clientWidth === 0) return;
    const { w, h, dpr } = this.fit(this.canvas);
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const style = getComputedStyle(document.documentElement);
    const bg = style.getPropertyValue('--bg').trim();
    ctx.fillStyle = bg;
    ctx.fillRect(0, 0, w, h);
    const searchColor = style.getPropertyValue('--search').trim();
    ctx.font = '12px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    if (!this.charW) this.charW = ctx.measureText('abcdefghijklmnopqrstuvwxyz.ABCDEFGH').width / 35;
    const charW = this.charW;
    const match = this.host.match();
    this.darkNow = this.host.dark();
    const { x0, scale } = this.geometry();
    const X = this.x, total = t.total, end = t.end, depth = t.depth, frame = t.frame, parent = t.parent, self = t.self;
    const names = this.host.names;
    // Siblings come heaviest first (unless ordered by name) and left to right: once one is too narrow or
    // past the right edge, so is every sibling after it, and the walk jumps to the parent's end.
    const sorted = !this.host.byName || !this.host.byName();
    const rest = style.getPropertyValue('--muted').trim();
    const drawn = [], labels = [];
    const text = [];
    // Boxes are collected per colour and drawn colour by colour after the walk (one style change per colour).
    const batch = this.batch || (this.batch = new RectBatch());
    batch.reset();
    for (let i = 1; i < t.n;) {
      const px = (X[i] - x0) * scale, pw = total[i] * scale;
      if (px >= w) { i = end[parent[i]]; continue; }
      if (pw < SOLO_PX) {
        if (!sorted) { i = end[i]; continue; }
        // This sibling and the ones after it, as one box (they lie between here and the parent's self).
        const p = parent[i];
        const rx = px, rw = (X[p] + total[p] - self[p] - X[i]) * scale;
        const y = this.rowY(depth[i], h);
        if (rw >= MIN_PX && rx < w && rx + rw > 0 && y + ROW > AXIS && y < h) {
          const cx = Math.max(rx, 0);
          batch.add(rest, 0.5, cx, y, Math.max(Math.min(rx + rw, w) - cx - 0.5, 0.5));
        }
        i = end[p];
        continue;
      }
      if (px + pw <= 0) { i = end[i]; continue; }
      const y = this.rowY(depth[i], h);
      if (this.inverted ? y >= h : y + ROW <= AXIS) { i = end[i]; continue; }
      if (this.inverted ? y + ROW <= AXIS : y >= h) { i++; continue; }
      const cx = Math.max(px, 0), cw = Math.min(px + pw, w) - cx;
      const matched = match && match[frame[i]];
      const alpha = match && !matched ? 0.35 : 1;
      const fill = matched ? searchColor : this.color(i);
      batch.add(fill, alpha, cx, y, Math.max(cw - 0.5, 0.5));
      if (cw > 24) {
        const max = Math.floor((cw - 6) / charW);
        if (max >= 3) {
          const label = middleTruncate(names[frame[i]], max);
          text.push(label, cx + 3, y + ROW / 2, alpha < 1 ? null : fill);
          if (labels.length < 2000) labels.push(label);
        }
      }
      if (drawn.length < 20000) drawn.push(i);
      i++;
    }
    batch.draw(ctx, ROW - 1);
    this.drawMinimap(style);
    this.darkNow = undefined;
    // Labels after the boxes: one pass, few colour changes.
    const faded = style.getPropertyValue('--muted').trim();
    let lastText = null;
    for (let k = 0; k < text.length; k += 4) {
      const c = text[k + 3] === null ? faded : this.textColor(text[k + 3]);
      if (c !== lastText) { ctx.fillStyle = c; lastText = c; }
      ctx.fillText(text[k], text[k + 1], text[k + 2]);
    }
    this.drawAxis(ctx, w, style, bg);
    this.drawn = drawn;
    this.labels = labels;
    this.drawOverlay();
  }

  /** The x axis along the top: weight (or time) from the left edge of the whole tree. */
  drawAxis(ctx, w, style, bg) {
    ctx.fillStyle = bg;
    ctx.fillRect(0, 0, w, AXIS);
    const muted = style.getPropertyValue('--muted').trim();
    ctx.fillStyle = muted;
    ctx.fillRect(0, AXIS - 1, w, 1);
    ctx.font = '11px system-ui, sans-serif';
    const scale = w / (this.vx1 - this.vx0 || 1);
    const fmt = this.host.format || String;
    const labels = [];
    for (const v of ticks(this.vx0, this.vx1, w)) {
      const x = (v - this.vx0) * scale;
      ctx.fillRect(Math.round(x), AXIS - 5, 1, 4);
      const s = fmt(v);
      if (x + 3 < w - 20) ctx.fillText(s, x + 3, AXIS / 2 - 1);
      labels.push(s);
    }
    this.axisLabels = labels;
    ctx.font = '12px system-ui, sans-serif';
  }

  /** Hover and selection outlines, on the overlay: cheap enough for every mouse move. */
  drawOverlay() {
    const o = this.overlay;
    if (!this.tree || !o.isConnected) return;
    const { w, h, dpr } = this.fit(o);
    const ctx = o.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const style = getComputedStyle(document.documentElement);
    const outline = (i, color, width) => {
      if (i <= 0 || i >= this.tree.n) return;
      const b = this.box(i);
      const x = Math.max(b.x, -2), x2 = Math.min(b.x + b.w, w + 2);
      if (x2 <= x || b.y + ROW < AXIS || b.y > h) return;
      ctx.strokeStyle = color;
      ctx.lineWidth = width;
      ctx.strokeRect(x + width / 2, b.y + width / 2, Math.max(x2 - x - width, 1), ROW - 1 - width);
    };
    outline(this.selected, style.getPropertyValue('--accent').trim(), 2);
    outline(this.hover, style.getPropertyValue('--fg').trim(), 1);
  }

  /** The node under a point of the canvas (CSS pixels), or -1. */
  hit(px, py) {
    const t = this.tree;
    if (!t || py < AXIS) return -1;
    const { h, x0, scale } = this.geometry();
    const X = this.x;
    for (let i = 1; i < t.n;) {
      const a = (X[i] - x0) * scale, b = a + t.total[i] * scale;
      if (px < a) { i = t.end[t.parent[i]]; continue; } // every later sibling lies further right
      if (px >= b || b - a < MIN_PX) { i = t.end[i]; continue; }
      const y = this.rowY(t.depth[i], h);
      if (py >= y && py < y + ROW) return i;
      i++;
    }
    return -1;
  }

  /** Where node i is drawn (CSS pixels, canvas-relative), or null. */
  box(i) {
    const { h, x0, scale } = this.geometry();
    const a = (this.x[i] - x0) * scale, w = this.tree.total[i] * scale;
    return { x: a, y: this.rowY(this.tree.depth[i], h), w, h: ROW };
  }

  hitEvent(e) {
    const r = this.canvas.getBoundingClientRect();
    return this.hit(e.clientX - r.left, e.clientY - r.top);
  }

  onMove(e) {
    const d = this.drag;
    if (d && (e.buttons & 1)) {
      const dx = e.clientX - d.x, dy = e.clientY - d.y;
      if (d.moved || Math.abs(dx) + Math.abs(dy) > 3) {
        d.moved = true;
        const { w } = this.size();
        const span = d.vx1 - d.vx0;
        this.scrollY = Math.max(0, d.sy + (this.inverted ? -dy : dy));
        this.setViewport(d.vx0 - dx * span / w, span);
        return;
      }
    }
    const r = this.canvas.getBoundingClientRect();
    this.mouse = e.clientX - r.left;
    const i = this.hit(e.clientX - r.left, e.clientY - r.top);
    if (i !== this.hover) {
      this.hover = i;
      this.drawOverlay();
    }
    this.host.onHover(this, i, e);
  }

  /** Ctrl/Cmd + wheel or a pinch zooms around the pointer; the wheel pans (horizontal and vertical). */
  onWheel(e) {
    e.preventDefault();
    const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    const dx = e.deltaX * unit, dy = e.deltaY * unit;
    if (e.ctrlKey || e.metaKey) {
      const r = this.canvas.getBoundingClientRect();
      this.zoomBy(Math.exp(-dy * 0.01), e.clientX - r.left);
    } else if (e.shiftKey) {
      this.panBy(dy || dx, 0);
    } else {
      this.panBy(dx, this.inverted ? dy : -dy);
    }
    this.host.onViewport(this);
  }

  /** Makes node i the selection, scrolled into view (zooming out if it is outside the viewport). */
  select(i) {
    this.selected = i;
    if (i > 0) {
      const a = this.x[i], b = a + this.tree.total[i];
      if (a < this.vx0 || b > this.vx1) {
        const span = Math.max(this.vx1 - this.vx0, b - a);
        this.setViewport(a + (b - a) / 2 - span / 2, span);
      }
      const { h } = this.size();
      const y = this.rowY(this.tree.depth[i], h);
      if (y < AXIS) this.scrollY += this.inverted ? y - AXIS : AXIS - y;
      else if (y + ROW > h) this.scrollY += this.inverted ? y + ROW - h : -(y + ROW - h);
      this.scrollY = Math.max(0, this.scrollY);
      this.draw();
    } else {
      this.drawOverlay();
    }
    this.host.onSelect(this, i);
  }

  /** The node a keyboard move reaches from the selection: 'parent', 'child', 'prev', 'next'. */
  neighbour(i, dir) {
    const t = this.tree;
    if (i <= 0) return t.n > 1 ? 1 : -1;
    if (dir === 'parent') return t.parent[i] > 0 ? t.parent[i] : i;
    if (dir === 'child') return t.end[i] > i + 1 ? i + 1 : i;
    const p = t.parent[i];
    if (dir === 'next') return t.end[i] < t.end[p] ? t.end[i] : i;
    // previous sibling: walk the parent's children
    let prev = i;
    for (let c = p + 1; c < i; c = t.end[c]) prev = c;
    return prev;
  }
}
