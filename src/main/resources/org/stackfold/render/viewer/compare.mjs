// Comparison pages (stackfold view A B [C...]): a differential profile of two decoded profiles, made in
// the page, and the mapping of a frame path from one profile to another (linked selection).
import { TreeBuilder, toPreorder } from './tree.mjs';

/**
 * The profile "before -> after" as the page's differential model: one frame per function (name and
 * file) of either profile, the union of both trees, each node with its before and after self weight;
 * drawn with the shape of after (self = after), so a vanished frame shows with the union toggle.
 */
export function diffProfiles(before, after) {
  const names = [], kind = [], file = [], line = [], files = [], fileIds = new Map(), ids = new Map();
  const mapOf = (p) => {
    const map = new Int32Array(p.names.length);
    for (let f = 0; f < p.names.length; f++) {
      const fileName = p.file[f] >= 0 ? p.files[p.file[f]] : null;
      const key = fileName === null ? p.names[f] : p.names[f] + '\u0000' + fileName;
      let id = ids.get(key);
      if (id === undefined) {
        id = names.length;
        ids.set(key, id);
        names.push(p.names[f]);
        kind.push(p.kind[f]);
        line.push(p.line[f]);
        let fi = -1;
        if (fileName !== null) {
          fi = fileIds.get(fileName);
          if (fi === undefined) { fi = files.length; files.push(fileName); fileIds.set(fileName, fi); }
        }
        file.push(fi);
      }
      map[f] = id;
    }
    return map;
  };
  const ma = mapOf(before), mb = mapOf(after);
  const b = new TreeBuilder(names.length, true);
  const walk = (p, map, column) => {
    const t = p.tree, target = new Int32Array(t.n);
    const w = (i) => (t.before ? t.after[i] : t.self[i]); // a differential input counts with its after
    if (column === 0) b.before[0] += w(0); else { b.after[0] += w(0); b.self[0] += w(0); }
    for (let i = 1; i < t.n; i++) {
      const c = b.child(target[t.parent[i]], map[t.frame[i]]);
      target[i] = c;
      if (column === 0) b.before[c] += w(i);
      else { b.after[c] += w(i); b.self[c] += w(i); }
    }
  };
  walk(before, ma, 0);
  walk(after, mb, 1);
  const tree = toPreorder(b, null);
  return {
    names, kind: Uint8Array.from(kind), file: Int32Array.from(file), line: Int32Array.from(line), files,
    kindParts: new Map(), tree, timeline: null, lines: new Map(), sources: new Map(), columns: 2,
  };
}

/**
 * The node of tree t (frames named by names) reached by a path of names from the root, or, where that
 * path is not in t, the heaviest node of the last name (the same function elsewhere), or -1.
 */
export function nodeByNames(t, names, path) {
  let node = 0;
  for (const name of path) {
    let c = node + 1, found = -1;
    while (c < t.end[node]) {
      if (names[t.frame[c]] === name) { found = c; break; }
      c = t.end[c];
    }
    if (found < 0) { node = -1; break; }
    node = found;
  }
  if (node > 0) return node;
  const last = path[path.length - 1];
  let best = -1;
  for (let i = 1; i < t.n; i++) if (names[t.frame[i]] === last && (best < 0 || t.total[i] > t.total[best])) best = i;
  return best;
}

/** Names along the path from the root down to node i. */
export function namePath(t, names, i) {
  const p = [];
  for (let v = i; v > 0; v = t.parent[v]) p.push(names[t.frame[v]]);
  return p.reverse();
}
