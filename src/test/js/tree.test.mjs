// Unit tests of the viewer's tree logic (node --test; run by ViewerJsTest in the Maven build).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TreeBuilder, toPreorder, reorder, applyTransform, functionTable, callersOf, calleesOf, matchFrames, matchedTotal,
  layoutX, nameRanks, findPath, pathOf, unionShape, timelineWeights, reweigh } from '../../main/resources/org/stackfold/render/viewer/tree.mjs';

// Frames: 0 main, 1 a, 2 b, 3 c, 4 rec
const NAMES = ['main', 'a', 'b', 'c', 'rec'];

/** A tree from folded-like stacks [[frames...], count] (or [frames, before, after] for a differential one). */
function build(stacks, diff = false) {
  const b = new TreeBuilder(NAMES.length, diff);
  for (const [path, x, y] of stacks) {
    let c = 0;
    for (const f of path) c = b.child(c, f);
    if (diff) b.addWeights(c, y, x, y); else b.addWeights(c, x, 0, 0);
  }
  return toPreorder(b, null);
}

/** Folded lines of a tree, sorted, for comparisons. */
function folded(t) {
  const out = [];
  for (let i = 1; i < t.n; i++) if (t.self[i]) out.push(pathOf(t, i).map((f) => NAMES[f]).join(';') + ' ' + t.self[i]);
  return out.sort();
}

const T = () => build([[[0, 1, 2], 10], [[0, 1, 3], 30], [[0, 3], 20], [[0], 5], [[3, 1], 7]]);

test('preorder: subtrees are contiguous, heaviest child first, totals add up', () => {
  const t = T();
  assert.equal(t.total[0], 72);
  for (let i = 1; i < t.n; i++) {
    assert.ok(t.parent[i] < i);
    assert.ok(t.end[i] <= t.end[t.parent[i]]);
  }
  const main = findPath(t, [0]);
  assert.equal(t.frame[main + 1], 1, 'a (40) before c (20)');
  assert.equal(t.total[main], 65);
  assert.equal(t.self[main], 5);
});

test('name order sorts siblings by name', () => {
  const b = new TreeBuilder(NAMES.length, false);
  for (const f of [3, 1, 2]) b.addWeights(b.child(b.child(0, 0), f), f, 0, 0);
  const t = toPreorder(b, nameRanks(NAMES));
  assert.deepEqual([t.frame[2], t.frame[3], t.frame[4]], [1, 2, 3]);
});

test('layout: children start at their parent and follow each other', () => {
  const t = T(), x = layoutX(t);
  const a = findPath(t, [0, 1]), c = findPath(t, [0, 3]);
  assert.equal(x[a], 0);
  assert.equal(x[c], 40);
  assert.equal(x[findPath(t, [0, 1, 2])], 30);
  assert.equal(x[findPath(t, [3])], 65);
});

test('focus on a subtree keeps only its stacks, rooted at it', () => {
  const t = applyTransform(T(), { kind: 'focus', path: [0, 1] }, NAMES.length, null);
  assert.deepEqual(folded(t), ['a;b 10', 'a;c 30']);
});

test('focus on a function roots every stack through it at its outermost call', () => {
  const t = applyTransform(T(), { kind: 'focusfn', f: 3 }, NAMES.length, null);
  assert.deepEqual(folded(t), ['c 50', 'c;a 7']);
});

test('merge charges a function to its callers', () => {
  const t = applyTransform(T(), { kind: 'merge', f: 1 }, NAMES.length, null);
  assert.deepEqual(folded(t), ['c 7', 'main 5', 'main;b 10', 'main;c 50']);
});

test('drop removes every stack with the function', () => {
  const t = applyTransform(T(), { kind: 'drop', f: 1 }, NAMES.length, null);
  assert.deepEqual(folded(t), ['main 5', 'main;c 20']);
  assert.equal(t.total[0], 25);
});

test('collapse recursion merges inner calls into the outermost', () => {
  const t = applyTransform(build([[[0, 4, 1, 4, 2], 3], [[0, 4, 4, 4], 2]]), { kind: 'rec', f: 4 }, NAMES.length, null);
  assert.deepEqual(folded(t), ['main;rec 2', 'main;rec;b 3']);
});

test('function table counts a recursive function once per stack', () => {
  const t = build([[[0, 4, 4, 2], 3], [[0, 4], 1]]);
  const ft = functionTable(t, NAMES.length);
  assert.equal(ft.total[4], 4);
  assert.equal(ft.self[4], 1);
  assert.equal(ft.total[0], 4);
  assert.equal(ft.self[2], 3);
});

test('callers and callees of a function', () => {
  const t = T();
  const callers = callersOf(t, 3, NAMES.length, null);
  assert.equal(callers.total[findPath(callers, [3])], 57);
  assert.equal(callers.total[findPath(callers, [3, 1, 0])], 30);
  assert.equal(callers.total[findPath(callers, [3, 0])], 20);
  const callees = calleesOf(t, 3, NAMES.length, null);
  assert.deepEqual(folded(callees), ['c 50', 'c;a 7']);
});

test('search: regex over names, matched share counts overlaps once', () => {
  const t = build([[[0, 1, 1], 10], [[0, 2], 30]]);
  const m = matchFrames(NAMES, '^a$');
  assert.deepEqual([...m], [0, 1, 0, 0, 0]);
  assert.equal(matchedTotal(t, m), 10);
  assert.equal(matchFrames(NAMES, '('), null, 'an invalid pattern matches nothing');
  assert.equal(matchedTotal(t, matchFrames(NAMES, 'main|a')), 40);
});

test('union shape keeps frames that vanished', () => {
  const t = build([[[0, 1], 10, 0], [[0, 2], 10, 40]], true);
  assert.equal(t.total[findPath(t, [0, 1])], 0);
  const u = unionShape(t, NAMES.length, null);
  assert.equal(u.total[findPath(u, [0, 1])], 20, 'before (10 of 20) scaled to the after total (40)');
  assert.equal(u.total[findPath(u, [0, 2])], 40);
});

test('timeline filters reweigh the tree and drop empty nodes', () => {
  const t = T();
  const tl = { n: 3, node: Int32Array.of(findPath(t, [0, 1, 2]), findPath(t, [0, 3]), findPath(t, [3, 1])),
    weight: Float64Array.of(1, 2, 3), before: null };
  const w = timelineWeights(t, tl, (i) => i !== 1);
  const r = reweigh(t, w.self, w.before, NAMES.length, null);
  assert.deepEqual(folded(r), ['c;a 3', 'main;a;b 1']);
});

test('reorder by name keeps the tree and its counts', () => {
  const t = T();
  const r = reorder(t, nameRanks(NAMES));
  assert.deepEqual(folded(r), folded(t));
  const main = findPath(r, [0]);
  assert.equal(r.frame[main + 1], 1, 'a before c by name');
});

test('the builder finds children after growing past its first capacity', () => {
  const b = new TreeBuilder(5000, false);
  const ids = [];
  for (let f = 0; f < 3000; f++) ids.push(b.child(f % 7 === 0 ? 0 : 1, f));
  for (let f = 0; f < 3000; f++) assert.equal(b.child(f % 7 === 0 ? 0 : 1, f), ids[f]);
  assert.equal(b.n, 3001);
});
