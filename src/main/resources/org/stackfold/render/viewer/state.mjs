// The page's state, kept in the address's hash so a view can be shared and the back button works.

export const DEFAULTS = { view: 'flame', icicle: false, byName: false, union: false, search: '', transforms: [],
  threads: null, status: 0, range: null, sel: -1, zoom: null, pv: '0', cmp: [0, 1] };

const LABELS = { focus: 'Focus', focusfn: 'Focus on', merge: 'Merge', drop: 'Drop', rec: 'Collapse recursion of' };

export function encodeState(s) {
  const p = new URLSearchParams();
  if (s.view !== DEFAULTS.view) p.set('v', s.view);
  if (s.icicle) p.set('i', '1');
  if (s.byName) p.set('o', 'name');
  if (s.union) p.set('u', '1');
  if (s.search) p.set('s', s.search);
  if (s.transforms.length) {
    p.set('t', s.transforms.map((t) => t.kind + ':' + (t.kind === 'focus' ? t.path.join('.') : t.f)).join(','));
  }
  if (s.threads) p.set('th', s.threads.join('.'));
  if (s.status) p.set('st', String(s.status));
  if (s.range) p.set('r', s.range[0] + '~' + s.range[1]);
  if (s.sel >= 0) p.set('f', String(s.sel));
  if (s.zoom && s.zoom.length) p.set('z', s.zoom.join('.'));
  if (s.pv !== DEFAULTS.pv) p.set('p', s.pv);
  if (s.cmp[0] !== 0 || s.cmp[1] !== 1) p.set('c', s.cmp.join('.'));
  return p.toString();
}

/** Non-negative integers separated by dots, or null if any part is not one. */
function ints(text) {
  if (!text) return [];
  const parts = text.split('.').map((x) => (/^\d+$/.test(x) ? Number(x) : NaN));
  return parts.every((x) => Number.isSafeInteger(x)) ? parts : null;
}

/**
 * The state in a hash (with or without '#'); anything malformed falls back to the default, and each
 * part left out is described in problems (an array, if given) so the page can say what it ignored.
 */
export function decodeState(hash, frameCount, problems = []) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const s = structuredClone(DEFAULTS);
  const bad = (key, why) => problems.push(`${key}=${(p.get(key) || '').slice(0, 40)} (${why})`);
  const v = p.get('v');
  if (['flame', 'sandwich', 'tree', 'time', 'difftable', 'source', 'compare'].includes(v)) s.view = v;
  else if (p.has('v')) bad('v', 'no such view');
  s.icicle = p.get('i') === '1';
  s.byName = p.get('o') === 'name';
  s.union = p.get('u') === '1';
  s.search = p.get('s') || '';
  const okFrame = (f) => Number.isInteger(f) && f >= 0 && f < frameCount;
  const skipped = [];
  for (const item of (p.get('t') || '').split(',')) {
    if (!item) continue;
    const [kind, arg, extra] = item.split(':');
    if (kind === 'focus') {
      const path = ints(arg);
      if (path && path.length && path.every(okFrame) && extra === undefined) s.transforms.push({ kind, path });
      else skipped.push(item);
    } else if (LABELS[kind] && /^\d+$/.test(arg || '') && okFrame(Number(arg)) && extra === undefined) {
      s.transforms.push({ kind, f: Number(arg) });
    } else {
      skipped.push(item);
    }
  }
  if (skipped.length) problems.push(`transform${skipped.length > 1 ? 's' : ''} ${skipped.map((x) => x.slice(0, 40)).join(', ')} (not a transform of this profile)`);
  if (p.has('th')) {
    const th = ints(p.get('th'));
    if (th) s.threads = th; else bad('th', 'not a list of thread numbers');
  }
  const st = Number(p.get('st'));
  if (Number.isInteger(st) && st > 0) s.status = st;
  else if (p.has('st') && p.get('st') !== '0') bad('st', 'not status bits');
  const r = (p.get('r') || '').split('~').map(Number);
  if (r.length === 2 && r.every(Number.isFinite) && r[0] < r[1]) s.range = r;
  else if (p.has('r')) bad('r', 'not a time range a~b');
  const f = Number(p.get('f'));
  if (p.has('f') && okFrame(f) && /^\d+$/.test(p.get('f'))) s.sel = f;
  else if (p.has('f')) bad('f', 'not a function of this profile');
  // Comparison pages: the profile shown (k, or a-b: the diff of a to b) and the side-by-side pair a.b;
  // their range is checked by the page (pageParam), which knows how many profiles it holds.
  if (p.has('p')) {
    if (/^\d+(-\d+)?$/.test(p.get('p'))) s.pv = p.get('p'); else bad('p', 'not a profile k or a difference a-b');
  }
  if (p.has('c')) {
    const c = ints(p.get('c'));
    if (c && c.length === 2) s.cmp = c; else bad('c', 'not a pair of profiles a.b');
  }
  if (p.has('z')) {
    const z = ints(p.get('z'));
    if (z && z.every(okFrame)) s.zoom = z; else bad('z', 'not a frame path');
  }
  return s;
}

/** A breadcrumb's text for a transform. */
export function transformLabel(t, names) {
  if (t.kind === 'focus') return LABELS.focus + ' ' + names[t.path[t.path.length - 1]];
  return LABELS[t.kind] + ' ' + names[t.f];
}
