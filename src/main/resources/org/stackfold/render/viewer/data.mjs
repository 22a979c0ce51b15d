// Decodes what ViewerData.java writes: raw-deflated unsigned LEB128 numbers, section by section.
import { finishTree } from './tree.mjs';

/** Reads unsigned LEB128 numbers (exact up to 2^53) and length-prefixed UTF-8 strings. */
export class VarintReader {
  constructor(bytes) { this.b = bytes; this.p = 0; this.utf8 = new TextDecoder(); }
  next() {
    const b = this.b;
    let x = b[this.p++];
    if (x < 0x80) return x;
    let v = x & 0x7f, mul = 128;
    for (;;) {
      x = b[this.p++];
      v += (x & 0x7f) * mul;
      if (x < 0x80) return v;
      mul *= 128;
    }
  }
  string() {
    const n = this.next();
    const s = this.utf8.decode(this.b.subarray(this.p, this.p + n));
    this.p += n;
    return s;
  }
}

export function base64Bytes(text) {
  const clean = text.trim();
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(clean);
  const bin = atob(clean);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export async function inflateRaw(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The profile: frames, files, the base call tree (preorder) and the timeline or null. */
export function decodeProfile(bytes, columns) {
  const r = new VarintReader(bytes);
  const nf = r.next();
  const names = new Array(nf), kind = new Uint8Array(nf), file = new Int32Array(nf), line = new Int32Array(nf);
  for (let f = 0; f < nf; f++) {
    names[f] = r.string();
    kind[f] = r.next();
    file[f] = r.next() - 1;
    line[f] = r.next() - 1;
  }
  const nfiles = r.next();
  const files = new Array(nfiles);
  for (let i = 0; i < nfiles; i++) files[i] = r.string();
  // Functions that ran as several kinds (JIT, inlined, interpreted): frame -> [[kind, weight], ...].
  const kindParts = new Map();
  for (let k = r.next(); k > 0; k--) {
    const f = r.next(), parts = [];
    for (let m = r.next(); m > 0; m--) parts.push([r.next(), r.next()]);
    kindParts.set(f, parts);
  }
  const n = r.next();
  const parent = new Int32Array(n), frame = new Int32Array(n), self = new Float64Array(n);
  const before = columns === 2 ? new Float64Array(n) : null;
  parent[0] = -1; frame[0] = -1;
  if (before) before[0] = r.next();
  self[0] = r.next();
  // Parents from climb counts: keep the path of the previous node.
  let path = new Int32Array(256), depth = 0;
  for (let i = 1; i < n; i++) {
    depth = depth + 1 - r.next();
    if (depth >= path.length) { const p = new Int32Array(path.length * 2); p.set(path); path = p; }
    path[depth] = i;
    parent[i] = path[depth - 1];
    frame[i] = r.next();
    if (before) before[i] = r.next();
    self[i] = r.next();
  }
  const tree = finishTree({ n, parent, frame, self, before });
  const samples = r.next();
  let timeline = null;
  if (samples > 0) {
    const nt = r.next();
    const threads = new Array(nt);
    for (let i = 0; i < nt; i++) threads[i] = r.string();
    const diff = r.next() === 1;
    const node = new Int32Array(samples), thread = new Int32Array(samples), time = new Float64Array(samples);
    const status = new Int32Array(samples), weight = new Float64Array(samples);
    const sbefore = diff ? new Float64Array(samples) : null;
    let t = 0;
    for (let i = 0; i < samples; i++) {
      node[i] = r.next();
      thread[i] = r.next();
      const z = r.next();
      t += (z % 2 === 1) ? -(z + 1) / 2 : z / 2;
      time[i] = t;
      status[i] = r.next();
      weight[i] = r.next();
      if (sbefore) sbefore[i] = r.next();
    }
    timeline = { n: samples, node, thread, time, status, weight, before: sbefore, threads };
  }
  // The source view: per function its lines [line, self, total] (ascending), and the files' texts.
  const lines = new Map(), sources = new Map();
  if (r.p < bytes.length) {
    for (let k = r.next(); k > 0; k--) {
      const f = r.next(), rows = [];
      for (let m = r.next(); m > 0; m--) rows.push([r.next() - 1, r.next(), r.next()]);
      lines.set(f, rows);
    }
    for (let k = r.next(); k > 0; k--) { const fi = r.next(); sources.set(fi, r.string()); }
  }
  return { names, kind, file, line, files, kindParts, tree, timeline, lines, sources };
}
