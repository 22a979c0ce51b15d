// Runs the viewer's own transform code (render/viewer/tree.mjs, state.mjs) on a profile given as
// stacks of frame numbers, and prints the result as folded stacks: TransformAgreementTest compares
// them with what the Java transforms make of the same profile.
// Usage: node viewer-transforms.mjs VIEWER_DIR < input.json
// input: {"names": [...], "stacks": [[[f, f, ...], weight], ...], "hash": "t=focus:1.2,merge:3"}
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const dir = process.argv[2];
const tree = await import(pathToFileURL(join(dir, 'tree.mjs')).href);
const state = await import(pathToFileURL(join(dir, 'state.mjs')).href);
const input = JSON.parse(readFileSync(0, 'utf8'));
const names = input.names;
const b = new tree.TreeBuilder(names.length, false);
for (const [path, w] of input.stacks) {
  let c = 0;
  for (const f of path) c = b.child(c, f);
  b.addWeights(c, w, 0, 0);
}
const rank = tree.nameRanks(names);
let t = tree.toPreorder(b, null);
const s = state.decodeState(input.hash, names.length);
for (const tr of s.transforms) t = tree.applyTransform(t, tr, names.length, rank);
const lines = [];
for (let i = 1; i < t.n; i++) {
  if (t.self[i] === 0) continue;
  lines.push(tree.pathOf(t, i).map((f) => names[f]).join(';') + ' ' + t.self[i]);
}
lines.sort();
process.stdout.write(JSON.stringify({ transforms: s.transforms.length, lines }));
