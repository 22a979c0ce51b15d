import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VarintReader, decodeProfile, base64Bytes } from '../../main/resources/org/stackfold/render/viewer/data.mjs';
import { buildChart } from '../../main/resources/org/stackfold/render/viewer/timeorder.mjs';
import { formatValue, percent } from '../../main/resources/org/stackfold/render/viewer/format.mjs';
import { hashName, frameColor, diffColor } from '../../main/resources/org/stackfold/render/viewer/colors.mjs';

function varints(...xs) {
  const out = [];
  for (let v of xs) {
    if (typeof v === 'string') {
      const b = new TextEncoder().encode(v);
      out.push(...varints(b.length), ...b);
      continue;
    }
    while (v >= 128) { out.push((v % 128) | 128); v = Math.floor(v / 128); }
    out.push(v);
  }
  return out;
}

test('varints up to 2^53 decode exactly', () => {
  const r = new VarintReader(Uint8Array.from(varints(0, 127, 128, 300, 2 ** 40 + 5, 2 ** 53 - 1)));
  assert.deepEqual([r.next(), r.next(), r.next(), r.next(), r.next(), r.next()], [0, 127, 128, 300, 2 ** 40 + 5, 2 ** 53 - 1]);
});

test('a profile decodes: frames, preorder parents from climb counts, timeline deltas', () => {
  const bytes = Uint8Array.from(varints(
    3, 'main', 0, 0, 0, 'a', 2, 1, 11, 'b</script>', 0, 0, 0, // frames: name, kind, file+1, line+1
    1, 'x.py', // files
    1, 1, 2, 3, 4, 5, 1, // kind breakdowns: frame 1 ran as kind 3 (weight 4) and kind 5 (weight 1)
    4, 0, // nodes (root included), root self
    0, 0, 0, // main (child of root), self 0
    0, 1, 5, // a under main, self 5
    1, 2, 7, // b: climbs one level, under main, self 7
    2, 1, '42', 0, // two samples, one thread "42", not differential
    2, 0, 20, 2, 1, // node 2, thread 0, time +10 (zigzag 20), status 2, weight 1
    3, 0, 1, 0, 3)); // node 3, time -1 (zigzag 1), weight 3
  const p = decodeProfile(bytes, 1);
  assert.deepEqual(p.names, ['main', 'a', 'b</script>']);
  assert.equal(p.files[p.file[1]], 'x.py');
  assert.equal(p.line[1], 10);
  assert.deepEqual([...p.tree.parent], [-1, 0, 1, 1]);
  assert.equal(p.tree.total[0], 12);
  assert.deepEqual([...p.timeline.time], [10, 9]);
  assert.deepEqual([...p.timeline.weight], [1, 3]);
  assert.equal(p.timeline.threads[0], '42');
  assert.deepEqual(p.kindParts.get(1), [[3, 4], [5, 1]]);
});

test('base64 decoding', () => {
  assert.deepEqual([...base64Bytes(' AAEC/w== ')], [0, 1, 2, 255]);
});

test('time order merges neighbouring samples with common frames and leaves gaps', () => {
  // tree: 0 root, 1 main, 2 a (under main), 3 b (under main)
  const tree = { parent: Int32Array.of(-1, 0, 1, 1), frame: Int32Array.of(-1, 0, 1, 2) };
  const tl = { n: 4, node: Int32Array.of(2, 2, 3, 2), time: Float64Array.of(0, 1, 2, 10), weight: Float64Array.of(1, 1, 1, 1) };
  const c = buildChart(tree, tl, () => true, false);
  const boxes = [];
  for (let k = 0; k < c.n; k++) boxes.push([c.node[k], c.start[k], c.end[k]]);
  // the sample at 2 lasts twice the usual interval (1), not until 10
  assert.deepEqual(boxes, [[1, 0, 4], [2, 0, 2], [3, 2, 4], [1, 10, 11], [2, 10, 11]]);
});

test('values are formatted by unit', () => {
  assert.equal(formatValue(1500, 'nanoseconds'), '1.5 µs');
  assert.equal(formatValue(2048, 'bytes'), '2.0 KiB');
  assert.equal(formatValue(12345, 'count'), '12.3k');
  assert.equal(percent(1, 3), '33.33%');
  assert.equal(percent(1, 1e6), '<0.01%');
});

test('colours: stable per name, red for growth, blue for shrinkage', () => {
  assert.equal(hashName('abc'), hashName('abc'));
  assert.equal(frameColor('java/lang/Thread.run', 'jit', false), frameColor('java/lang/Thread.run', 'jit', false));
  assert.match(diffColor(0.5, 0.1, false), /^hsl\(0,/);
  assert.match(diffColor(0.1, 0.5, false), /^hsl\(220,/);
});

test('time order uses the declared interval, not the median gap of a burst', () => {
  // one thread sampling in bursts: gaps of 1 between samples of a burst, 100 between bursts; declared 50
  const tree = { parent: Int32Array.of(-1, 0), frame: Int32Array.of(-1, 0) };
  const tl = { n: 6, node: Int32Array.of(1, 1, 1, 1, 1, 1), time: Float64Array.of(0, 1, 2, 100, 101, 102),
    weight: Float64Array.of(1, 1, 1, 1, 1, 1) };
  const median = buildChart(tree, tl, () => true, false);
  const declared = buildChart(tree, tl, () => true, false, 50);
  const covered = (c) => { let s = 0; for (let k = 0; k < c.n; k++) s += c.end[k] - c.start[k]; return s; };
  assert.ok(covered(median) < 10, 'median gap 1: each sample capped at 2');
  assert.equal(covered(declared), 152); // 0..100 (capped at 2 x 50: the next sample) and 100..152
});
