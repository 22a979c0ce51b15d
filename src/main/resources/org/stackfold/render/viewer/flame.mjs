// A flame graph (root at the bottom) or icicle (root at the top) on a canvas. Drawing walks the
// preorder arrays once and jumps over every subtree narrower than a third of a pixel or outside the
// window, so a frame costs what is visible, not what the profile holds.
import { layoutX, findPath, pathOf } from './tree.mjs';
import { frameColor, diffColor } from './colors.mjs';

const ROW = 18;
const MIN_PX = 0.33;

export class FlameView {
  /** host: { names, kinds (strings per frame), dark(), match(), onHover(view, i, ev), onClick(view, i), onMenu(view, i, ev) } */
  constructor(canvas, host) {
    this.canvas = canvas;
    this.host = host;
    this.tree = null;
    this.inverted = true;
    this.zoom = 0;
    this.scrollY = 0;
    this.hover = -1;
    this.drawn = [];
    this.colorCache = new Map();
    canvas.addEventListener('mousemove', (e) => this.onMove(e));
    canvas.addEventListener('mouseleave', () => { this.hover = -1; this.host.onHover(this, -1, null); this.draw(); });
    canvas.addEventListener('click', (e) => { const i = this.hitEvent(e); this.host.onClick(this, i, e); });
    canvas.addEventListener('contextmenu', (e) => {
      const i = this.hitEvent(e);
      if (i > 0) { e.preventDefault(); this.host.onMenu(this, i, e); }
    });
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      this.scrollY = Math.max(0, this.scrollY + (this.inverted ? e.deltaY : -e.deltaY));
      this.draw();
    }, { passive: false });
  }

  /** Shows a tree; the zoomed frame is kept (by its path) where it still exists. */
  setTree(tree, inverted) {
    const zoomPath = this.tree && this.zoom > 0 ? pathOf(this.tree, this.zoom) : null;
    this.tree = tree;
    this.inverted = inverted;
    this.x = layoutX(tree);
    this.zoom = zoomPath ? Math.max(0, findPath(tree, zoomPath)) : 0;
    this.hover = -1;
    this.draw();
  }

  zoomTo(i) {
    this.zoom = i;
    this.scrollY = 0;
    this.draw();
  }

  zoomPath() {
    return this.zoom > 0 ? pathOf(this.tree, this.zoom) : null;
  }

  fit() {
    const c = this.canvas, dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, c.clientWidth), h = Math.max(1, c.clientHeight);
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
      c.width = Math.round(w * dpr);
      c.height = Math.round(h * dpr);
    }
    return { w, h, dpr };
  }

  color(i) {
    const t = this.tree, host = this.host;
    if (t.before && host.diffColors()) {
      const a = t.totalAfter[i] / (t.totalAfter[0] || 1), b = t.totalBefore[i] / (t.totalBefore[0] || 1);
      return diffColor(a, b, host.dark());
    }
    const f = t.frame[i];
    const key = host.dark() ? -f - 1 : f;
    let c = this.colorCache.get(key);
    if (!c) {
      c = frameColor(host.names[f], host.kinds[f], host.dark());
      this.colorCache.set(key, c);
    }
    return c;
  }

  geometry() {
    const { w, h } = this.fit();
    const t = this.tree, z = this.zoom;
    return { w, h, x0: this.x[z], scale: w / (t.total[z] || 1) };
  }

  rowY(depth, h) {
    return this.inverted ? (depth - 1) * ROW - this.scrollY : h - depth * ROW + this.scrollY;
  }

  draw() {
    const t = this.tree;
    if (!t || !this.canvas.isConnected || this.canvas.clientWidth === 0) return;
    const { w, h, dpr } = this.fit();
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const style = getComputedStyle(document.documentElement);
    ctx.fillStyle = style.getPropertyValue('--bg');
    ctx.fillRect(0, 0, w, h);
    const textColor = style.getPropertyValue('--chart-text').trim() || '#111';
    const searchColor = style.getPropertyValue('--search').trim();
    ctx.font = '12px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    const charW = ctx.measureText('abcdefghijklmnopqrstuvwxyz.ABCDEFGH').width / 35;
    const match = this.host.match();
    const { x0, scale } = this.geometry();
    const X = this.x, total = t.total, end = t.end, depth = t.depth, frame = t.frame, names = this.host.names;
    const drawn = [], labels = [];
    for (let i = 1; i < t.n;) {
      const px = (X[i] - x0) * scale, pw = total[i] * scale;
      if (pw < MIN_PX || px >= w || px + pw <= 0) { i = end[i]; continue; }
      const y = this.rowY(depth[i], h);
      if (this.inverted ? y >= h : y + ROW <= 0) { i = end[i]; continue; }
      const cx = Math.max(px, 0), cw = Math.min(px + pw, w) - cx;
      const matched = match && match[frame[i]];
      ctx.globalAlpha = match && !matched ? 0.35 : 1;
      ctx.fillStyle = matched ? searchColor : this.color(i);
      ctx.fillRect(cx, y, Math.max(cw - 0.5, 0.5), ROW - 1);
      if (i === this.hover) {
        ctx.strokeStyle = style.getPropertyValue('--fg');
        ctx.strokeRect(cx + 0.5, y + 0.5, Math.max(cw - 1.5, 0.5), ROW - 2);
      }
      if (cw > 24) {
        const name = names[frame[i]];
        const max = Math.floor((cw - 6) / charW);
        const label = name.length <= max ? name : name.slice(0, Math.max(0, max - 1)) + '…';
        if (max >= 2) {
          ctx.fillStyle = textColor;
          ctx.fillText(label, cx + 3, y + ROW / 2);
          if (labels.length < 2000) labels.push(label);
        }
      }
      if (drawn.length < 20000) drawn.push(i);
      i++;
    }
    ctx.globalAlpha = 1;
    this.drawn = drawn;
    this.labels = labels;
  }

  /** The node under a point of the canvas (CSS pixels), or -1. */
  hit(px, py) {
    const t = this.tree;
    if (!t) return -1;
    const { h, x0, scale } = this.geometry();
    const X = this.x;
    for (let i = 1; i < t.n;) {
      const a = (X[i] - x0) * scale, b = a + t.total[i] * scale;
      if (px < a || px >= b || b - a < MIN_PX) { i = t.end[i]; continue; }
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
    const i = this.hitEvent(e);
    if (i !== this.hover) {
      this.hover = i;
      this.draw();
    }
    this.host.onHover(this, i, e);
  }
}
