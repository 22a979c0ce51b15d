// The page's state, kept in the address's hash so a view can be shared and the back button works.

export const DEFAULTS = { view: 'flame', icicle: false, byName: false, union: false, search: '', transforms: [],
  threads: null, status: 0, range: null, sel: -1, zoom: null };

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
  return p.toString();
}

function ints(text) {
  return text ? text.split('.').map(Number).filter((x) => Number.isInteger(x) && x >= 0) : [];
}

/** The state in a hash (with or without '#'); anything malformed falls back to the default. */
export function decodeState(hash, frameCount) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const s = structuredClone(DEFAULTS);
  const v = p.get('v');
  if (['flame', 'sandwich', 'tree', 'time', 'difftable'].includes(v)) s.view = v;
  s.icicle = p.get('i') === '1';
  s.byName = p.get('o') === 'name';
  s.union = p.get('u') === '1';
  s.search = p.get('s') || '';
  const okFrame = (f) => Number.isInteger(f) && f >= 0 && f < frameCount;
  for (const item of (p.get('t') || '').split(',')) {
    const [kind, arg] = item.split(':');
    if (kind === 'focus') {
      const path = ints(arg);
      if (path.length && path.every(okFrame)) s.transforms.push({ kind, path });
    } else if (LABELS[kind] && okFrame(Number(arg))) {
      s.transforms.push({ kind, f: Number(arg) });
    }
  }
  if (p.has('th')) s.threads = ints(p.get('th'));
  const st = Number(p.get('st'));
  if (Number.isInteger(st) && st > 0) s.status = st;
  const r = (p.get('r') || '').split('~').map(Number);
  if (r.length === 2 && r.every(Number.isFinite) && r[0] < r[1]) s.range = r;
  const f = Number(p.get('f'));
  if (p.has('f') && okFrame(f)) s.sel = f;
  if (p.has('z')) {
    const z = ints(p.get('z'));
    if (z.every(okFrame)) s.zoom = z;
  }
  return s;
}

/** A breadcrumb's text for a transform. */
export function transformLabel(t, names) {
  if (t.kind === 'focus') return LABELS.focus + ' ' + names[t.path[t.path.length - 1]];
  return LABELS[t.kind] + ' ' + names[t.f];
}
