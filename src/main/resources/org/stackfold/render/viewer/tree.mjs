// Call trees as typed arrays in preorder: node 0 is the virtual root, a node's subtree is the range
// [i, end[i]), children follow their parent heaviest first (or by name). Every transform rebuilds a
// tree through a TreeBuilder and toPreorder; nothing here creates an object per node.

/** Adds depth, end, and totals (of self, and of before/after where present) to a preorder tree. */
export function finishTree(t) {
  const n = t.n, parent = t.parent;
  const depth = new Int32Array(n), end = new Int32Array(n);
  for (let i = 1; i < n; i++) depth[i] = depth[parent[i]] + 1;
  const total = sumUp(n, parent, t.self);
  for (let i = 0; i < n; i++) end[i] = i + 1;
  for (let i = n - 1; i > 0; i--) if (end[i] > end[parent[i]]) end[parent[i]] = end[i];
  t.depth = depth; t.end = end; t.total = total;
  t.before = t.before || null;
  t.after = t.after || (t.before ? t.self : null);
  t.totalBefore = t.before ? sumUp(n, parent, t.before) : null;
  t.totalAfter = t.after ? (t.after === t.self ? total : sumUp(n, parent, t.after)) : null;
  return t;
}

function sumUp(n, parent, self) {
  const total = new Float64Array(n);
  total.set(self);
  for (let i = n - 1; i > 0; i--) total[parent[i]] += total[i];
  return total;
}

/**
 * A tree under construction: nodes in creation order (parents first). Children are found through an
 * open-addressing table of node ids hashed by (parent, frame) that compares against the node columns
 * themselves, so a lookup allocates nothing (a Map keyed by numbers past 2^31 was ten times slower).
 */
export class TreeBuilder {
  constructor(frameCount, diff) {
    this.cap = 1024;
    this.n = 1;
    this.parent = new Int32Array(this.cap); this.parent[0] = -1;
    this.frame = new Int32Array(this.cap); this.frame[0] = -1;
    this.self = new Float64Array(this.cap);
    this.before = diff ? new Float64Array(this.cap) : null;
    this.after = diff ? new Float64Array(this.cap) : null;
    this.table = new Int32Array(this.cap * 2);
    this.mask = this.table.length - 1;
  }
  static hash(p, f) {
    return Math.imul(p ^ Math.imul(f, 0x9e3779b1), 0x85ebca6b) ^ (p >>> 13);
  }
  child(p, f) {
    const table = this.table, mask = this.mask, parent = this.parent, frame = this.frame;
    let slot = TreeBuilder.hash(p, f) & mask;
    for (;;) {
      const e = table[slot];
      if (e === 0) break;
      if (parent[e] === p && frame[e] === f) return e;
      slot = (slot + 1) & mask;
    }
    const c = this.n++;
    if (c === this.cap) {
      this.grow();
      return this.place(c, p, f);
    }
    this.parent[c] = p; this.frame[c] = f;
    table[slot] = c;
    return c;
  }
  place(c, p, f) {
    this.parent[c] = p; this.frame[c] = f;
    let slot = TreeBuilder.hash(p, f) & this.mask;
    while (this.table[slot] !== 0) slot = (slot + 1) & this.mask;
    this.table[slot] = c;
    return c;
  }
  grow() {
    this.cap *= 2;
    const g = (a, T) => { const b = new T(this.cap); b.set(a); return b; };
    this.parent = g(this.parent, Int32Array); this.frame = g(this.frame, Int32Array);
    this.self = g(this.self, Float64Array);
    if (this.before) { this.before = g(this.before, Float64Array); this.after = g(this.after, Float64Array); }
    this.table = new Int32Array(this.cap * 2);
    this.mask = this.table.length - 1;
    for (let c = 1; c < this.n - 1; c++) {
      let slot = TreeBuilder.hash(this.parent[c], this.frame[c]) & this.mask;
      while (this.table[slot] !== 0) slot = (slot + 1) & this.mask;
      this.table[slot] = c;
    }
  }
  /** Adds node i's counts of tree t to builder node c. */
  add(c, t, i) {
    this.self[c] += t.self[i];
    if (this.before) { this.before[c] += t.before[i]; this.after[c] += t.after[i]; }
  }
  addWeights(c, w, b, a) {
    this.self[c] += w;
    if (this.before) { this.before[c] += b; this.after[c] += a; }
  }
}

/** The same tree with siblings in another order (by name with nameRank, else heaviest first); no lookups needed. */
export function reorder(t, nameRank) {
  return toPreorder(t, nameRank);
}

/** The builder's tree in preorder, siblings heaviest first or (with nameRank) by name. */
export function toPreorder(b, nameRank) {
  const n = b.n, parent = b.parent, frame = b.frame;
  const total = sumUp(n, parent, b.self.subarray(0, n));
  const count = new Int32Array(n + 1);
  for (let i = 1; i < n; i++) count[parent[i] + 1]++;
  for (let i = 0; i < n; i++) count[i + 1] += count[i];
  const kids = new Int32Array(Math.max(n - 1, 1)), fill = count.slice(0, n);
  for (let i = 1; i < n; i++) kids[fill[parent[i]]++] = i;
  const cmp = nameRank ? (x, y) => nameRank[frame[x]] - nameRank[frame[y]]
    : (x, y) => (total[y] - total[x]) || (x - y);
  for (let p = 0; p < n; p++) {
    const s = count[p], e = count[p + 1];
    if (e - s > 1) kids.subarray(s, e).sort(cmp);
  }
  const order = new Int32Array(n), newId = new Int32Array(n);
  const stack = new Int32Array(n);
  let sp = 0, k = 0;
  stack[sp++] = 0;
  while (sp > 0) {
    const v = stack[--sp];
    newId[v] = k; order[k++] = v;
    for (let j = count[v + 1] - 1; j >= count[v]; j--) stack[sp++] = kids[j];
  }
  const t = { n: k, parent: new Int32Array(k), frame: new Int32Array(k), self: new Float64Array(k),
    before: b.before ? new Float64Array(k) : null, after: b.after ? new Float64Array(k) : null };
  for (let i = 0; i < k; i++) {
    const v = order[i];
    t.parent[i] = i === 0 ? -1 : newId[parent[v]];
    t.frame[i] = frame[v];
    t.self[i] = b.self[v];
    if (t.before) { t.before[i] = b.before[v]; t.after[i] = b.after[v]; }
  }
  return finishTree(t);
}

/**
 * Rebuilds tree t node by node (preorder): rule(i, targetOfParent, builder) returns the builder node
 * that receives node i's counts, -1 to drop i (and, unless the rule says otherwise, its subtree), or
 * -2 for "not placed yet" (its counts are dropped but its children are still offered).
 */
export function rebuild(t, frameCount, nameRank, rule) {
  const b = new TreeBuilder(frameCount, !!t.before);
  const target = new Int32Array(t.n);
  target[0] = 0;
  b.add(0, t, 0);
  for (let i = 1; i < t.n; i++) {
    const c = rule(i, target[t.parent[i]], b);
    target[i] = c;
    if (c >= 0) b.add(c, t, i);
  }
  return toPreorder(b, nameRank);
}

/** The node reached from the root by a path of frames, or -1. */
export function findPath(t, path) {
  let node = 0;
  for (const f of path) {
    let c = node + 1, found = -1;
    while (c < t.end[node]) {
      if (t.frame[c] === f) { found = c; break; }
      c = t.end[c];
    }
    if (found < 0) return -1;
    node = found;
  }
  return node;
}

/** Frames of the path from the root down to node i. */
export function pathOf(t, i) {
  const p = [];
  for (let v = i; v > 0; v = t.parent[v]) p.push(t.frame[v]);
  return p.reverse();
}

/** Applies one transform ({kind, f} or {kind: 'focus', path}); unknown or stale ones change nothing. */
export function applyTransform(t, tr, frameCount, nameRank) {
  const frame = t.frame, parent = t.parent;
  switch (tr.kind) {
    case 'focus': {
      const x = findPath(t, tr.path);
      if (x < 0) return t;
      const e = t.end[x];
      return rebuild(t, frameCount, nameRank, (i, tp, b) => {
        if (i < x || i >= e) return -1;
        return b.child(i === x ? 0 : tp, frame[i]);
      });
    }
    case 'focusfn': {
      // Stacks through f, cut so that their outermost f is the root.
      return rebuild(t, frameCount, nameRank, (i, tp, b) =>
        tp > 0 ? b.child(tp, frame[i]) : tp === -1 ? -1 : frame[i] === tr.f ? b.child(0, tr.f) : -2);
    }
    case 'merge':
      return rebuild(t, frameCount, nameRank, (i, tp, b) => tp < 0 ? -1 : frame[i] === tr.f ? tp : b.child(tp, frame[i]));
    case 'drop':
      return rebuild(t, frameCount, nameRank, (i, tp, b) => tp < 0 || frame[i] === tr.f ? -1 : b.child(tp, frame[i]));
    case 'rec': {
      // Every call of f below an outer f is merged into the outer one (what lies between is kept once).
      const outer = new Int32Array(t.n).fill(-1);
      return rebuild(t, frameCount, nameRank, (i, tp, b) => {
        if (tp < 0) return -1;
        const o = outer[parent[i]];
        if (frame[i] === tr.f && o >= 0) { outer[i] = o; return o; }
        const c = b.child(tp, frame[i]);
        outer[i] = frame[i] === tr.f ? c : o;
        return c;
      });
    }
    default:
      return t;
  }
}

/** The tree with its self counts replaced (a filtered timeline), nodes without counts left out. */
export function reweigh(t, self, before, frameCount, nameRank) {
  const w = { n: t.n, parent: t.parent, frame: t.frame, self, before, after: before ? self : null };
  finishTree(w);
  return rebuild(w, frameCount, nameRank, (i, tp, b) => tp < 0 || w.total[i] === 0 && (!before || w.totalBefore[i] === 0)
    ? -1 : b.child(tp, t.frame[i]));
}

/**
 * Self counts per node from the samples of a timeline that pass keep(i); differential timelines
 * give before counts too.
 */
export function timelineWeights(t, tl, keep) {
  const self = new Float64Array(t.n), before = tl.before ? new Float64Array(t.n) : null;
  for (let i = 0; i < tl.n; i++) {
    if (!keep(i)) continue;
    self[tl.node[i]] += tl.weight[i];
    if (before) before[tl.node[i]] += tl.before[i];
  }
  return { self, before };
}

/** A differential tree drawn by the union of both shapes: each node as wide as the larger of before (scaled to after's total) and after. */
export function unionShape(t, frameCount, nameRank) {
  const sa = t.totalAfter[0], sb = t.totalBefore[0];
  const scale = sb > 0 ? sa / sb : 1;
  const self = new Float64Array(t.n);
  for (let i = 0; i < t.n; i++) self[i] = Math.max(t.after[i], t.before[i] * scale);
  const w = { n: t.n, parent: t.parent, frame: t.frame, self, before: t.before, after: t.after };
  finishTree(w);
  return rebuild(w, frameCount, nameRank, (i, tp, b) => tp < 0 || w.total[i] === 0 ? -1 : b.child(tp, t.frame[i]));
}

/** Per function: self and total (a recursive function counts once per stack), and the same for before/after. */
export function functionTable(t, frameCount) {
  const self = new Float64Array(frameCount), total = new Float64Array(frameCount);
  const diff = !!t.before;
  const selfB = diff ? new Float64Array(frameCount) : null, totalB = diff ? new Float64Array(frameCount) : null;
  const selfA = diff ? new Float64Array(frameCount) : null, totalA = diff ? new Float64Array(frameCount) : null;
  const onStack = new Int32Array(frameCount);
  const stack = new Int32Array(t.n);
  let sp = 0;
  for (let i = 1; i < t.n; i++) {
    while (sp > 0 && t.end[stack[sp - 1]] <= i) onStack[t.frame[stack[--sp]]]--;
    const f = t.frame[i];
    self[f] += t.self[i];
    if (diff) { selfB[f] += t.before[i]; selfA[f] += t.after[i]; }
    if (onStack[f] === 0) {
      total[f] += t.total[i];
      if (diff) { totalB[f] += t.totalBefore[i]; totalA[f] += t.totalAfter[i]; }
    }
    onStack[f]++;
    stack[sp++] = i;
  }
  return { self, total, selfB, totalB, selfA, totalA };
}

/** Calls of f not inside another call of f: the nodes that carry f's total once. */
function outermost(t, f, visit) {
  for (let i = 1; i < t.n;) {
    if (t.frame[i] === f) { visit(i); i = t.end[i]; } else i++;
  }
}

/** The callers of f as a tree rooted at f whose children are its callers (an inverted graph). */
export function callersOf(t, f, frameCount, nameRank) {
  const b = new TreeBuilder(frameCount, !!t.before);
  outermost(t, f, (i) => {
    let c = b.child(0, f);
    for (let v = t.parent[i]; v > 0; v = t.parent[v]) c = b.child(c, t.frame[v]);
    b.addWeights(c, t.total[i], t.before ? t.totalBefore[i] : 0, t.before ? t.totalAfter[i] : 0);
  });
  return toPreorder(b, nameRank);
}

/** What f calls: every outermost call of f with its subtree, merged under one root f. */
export function calleesOf(t, f, frameCount, nameRank) {
  const b = new TreeBuilder(frameCount, !!t.before);
  const target = new Int32Array(t.n);
  outermost(t, f, (i) => {
    target[i] = b.child(0, f);
    b.add(target[i], t, i);
    for (let j = i + 1; j < t.end[i]; j++) {
      target[j] = b.child(target[t.parent[j]], t.frame[j]);
      b.add(target[j], t, j);
    }
  });
  return toPreorder(b, nameRank);
}

/** Which frames a regular expression matches (by name), or null for an empty or invalid pattern; flags as RegExp's ('i'). */
export function matchFrames(names, pattern, flags = '') {
  if (!pattern) return null;
  let re;
  try { re = new RegExp(pattern, flags); } catch { return null; }
  const m = new Uint8Array(names.length);
  for (let f = 0; f < names.length; f++) if (re.test(names[f])) m[f] = 1;
  return m;
}

/** The share of the root's total under matching frames, overlaps counted once (outermost matches). */
export function matchedTotal(t, match) {
  let sum = 0;
  for (let i = 1; i < t.n;) {
    if (match[t.frame[i]]) { sum += t.total[i]; i = t.end[i]; } else i++;
  }
  return sum;
}

/** Horizontal position of every node in weight units: children from their parent's left edge. */
export function layoutX(t) {
  const x = new Float64Array(t.n), cursor = new Float64Array(t.n);
  for (let i = 1; i < t.n; i++) {
    const p = t.parent[i];
    x[i] = cursor[p];
    cursor[p] += t.total[i];
    cursor[i] = x[i];
  }
  return x;
}

/** Ranks of frames by name (code-unit order), for name-ordered layouts. */
export function nameRanks(names) {
  const idx = Array.from(names.keys());
  idx.sort((a, b) => (names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : a - b));
  const rank = new Int32Array(names.length);
  idx.forEach((f, r) => { rank[f] = r; });
  return rank;
}
