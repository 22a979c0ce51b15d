import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeState, decodeState, DEFAULTS, transformLabel } from '../../main/resources/org/stackfold/render/viewer/state.mjs';

test('state round-trips through the hash', () => {
  const s = { ...structuredClone(DEFAULTS), view: 'sandwich', icicle: true, byName: true, search: 'a|b;c',
    transforms: [{ kind: 'focus', path: [0, 2] }, { kind: 'merge', f: 3 }, { kind: 'rec', f: 1 }],
    threads: [0, 2], status: 3, range: [1.5, 20], sel: 4, zoom: [0, 1] };
  assert.deepEqual(decodeState('#' + encodeState(s), 10), s);
});

test('defaults give an empty hash', () => {
  assert.equal(encodeState(DEFAULTS), '');
});

test('malformed or out-of-range parts fall back to defaults', () => {
  const s = decodeState('#v=nope&t=merge:99,drop:x,focus:,bogus:1,drop:2&r=5~1&f=-1&st=abc', 10);
  assert.equal(s.view, 'flame');
  assert.deepEqual(s.transforms, [{ kind: 'drop', f: 2 }]);
  assert.equal(s.range, null);
  assert.equal(s.sel, -1);
  assert.equal(s.status, 0);
});

test('breadcrumb labels name the function', () => {
  assert.equal(transformLabel({ kind: 'drop', f: 1 }, ['x', 'y']), 'Drop y');
  assert.equal(transformLabel({ kind: 'focus', path: [0, 1] }, ['x', 'y']), 'Focus y');
});

test('malformed parts are named as problems, never misread', () => {
  const problems = [];
  const s = decodeState('#t=focus:1.x.2,merge:3&z=1..2&v=nope&f=2abc', 10, problems);
  assert.deepEqual(s.transforms, [{ kind: 'merge', f: 3 }]);
  assert.equal(s.zoom, null);
  assert.equal(s.sel, -1);
  assert.equal(problems.length, 4);
  assert.match(problems.join(' '), /focus:1\.x\.2/);
  const ok = [];
  decodeState('#v=sandwich&t=focus:1.2&z=1.2', 10, ok);
  assert.deepEqual(ok, []);
});
