// Unit tests of the graphs' pure helpers: middle truncation, axis ticks, label contrast (node --test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { middleTruncate, ticks } from '../../main/resources/org/stackfold/render/viewer/flame.mjs';
import { KIND_STYLE, frameColor, diffColor, textOn, parseColor, contrast } from '../../main/resources/org/stackfold/render/viewer/colors.mjs';

test('names are cut in the middle: the package start and the method end stay', () => {
  assert.equal(middleTruncate('short', 10), 'short');
  const cut = middleTruncate('org.example.deep.pkg.Service.handleRequest', 24);
  assert.equal(cut.length, 24);
  assert.ok(cut.startsWith('org.exa'), cut);
  assert.ok(cut.endsWith('handleRequest'), cut);
  assert.ok(cut.includes('…'));
  assert.equal(middleTruncate('abcdef', 1), '');
});

test('axis ticks are round steps inside the range', () => {
  assert.deepEqual(ticks(0, 100, 600), [0, 20, 40, 60, 80, 100]);
  const t = ticks(1234, 1290, 900);
  assert.ok(t.length >= 5 && t.length <= 11, String(t));
  assert.ok(t.every((v) => v >= 1234 && v <= 1290));
  assert.deepEqual(ticks(5, 5, 100), []);
});

test('every palette colour gets a label colour of contrast >= 4.5 in both themes', () => {
  let worst = 99, n = 0;
  for (const kind of Object.keys(KIND_STYLE)) {
    for (let k = 0; k < 4000; k++) {
      for (const dark of [false, true]) {
        const fill = frameColor('f' + k, kind, dark);
        worst = Math.min(worst, contrast(parseColor(fill), parseColor(textOn(fill))));
        n++;
      }
    }
  }
  for (let a = 0; a <= 1; a += 0.05) for (const dark of [false, true]) {
    const fill = diffColor(a, 0.5, dark);
    worst = Math.min(worst, contrast(parseColor(fill), parseColor(textOn(fill))));
  }
  for (const search of ['#e600e6', '#ff5cff']) worst = Math.min(worst, contrast(parseColor(search), parseColor(textOn(search))));
  assert.ok(worst >= 4.5, `worst contrast ${worst} over ${n} fills`);
});

test('palettes have few distinct colours (one canvas style change each)', () => {
  const seen = new Set();
  for (let k = 0; k < 20000; k++) seen.add(frameColor('name' + k, 'jit', false));
  assert.ok(seen.size <= 48, String(seen.size));
});
