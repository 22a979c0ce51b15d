// Colours: a function keeps its colour in every pane and every profile (a hash of its name), kinds
// of code get their own hue family, and differential frames go red (grew) or blue (shrank).

/** FNV-1a of a string, as an unsigned 32-bit number. */
export function hashName(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Hue, saturation and lightness ranges per frame kind (FrameKind order), and legend labels. */
export const KIND_STYLE = {
  unknown: { hue: [0, 55], sat: 75, label: 'code' },
  native: { hue: [0, 12], sat: 70, label: 'native' },
  kernel: { hue: [28, 40], sat: 85, label: 'kernel' },
  jit: { hue: [95, 135], sat: 50, label: 'JIT' },
  inlined: { hue: [170, 190], sat: 55, label: 'inlined' },
  interpreted: { hue: [50, 60], sat: 80, label: 'interpreted' },
  python: { hue: [205, 225], sat: 60, label: 'Python' },
  synthetic: { hue: [0, 0], sat: 0, label: 'synthetic' },
};

/**
 * The fill of a frame: hue family by kind, position within it and lightness by the name's hash, in 12
 * hue and 4 lightness steps (a canvas draws all frames of one colour after one colour change: fewer
 * distinct colours make a frame of the flame graph several times cheaper).
 */
export function frameColor(name, kind, dark) {
  const st = KIND_STYLE[kind] || KIND_STYLE.unknown;
  const h = hashName(name);
  const hue = st.hue[0] + Math.floor((h % 1000) / 1000 * 12) / 11 * (st.hue[1] - st.hue[0]);
  const light = (dark ? 38 : 62) + Math.floor(((h >>> 10) % 100) / 100 * 4) / 3 * 12;
  return `hsl(${hue.toFixed(1)},${st.sat}%,${light.toFixed(1)}%)`;
}

/**
 * Differential colour: after and before are shares of their profiles' totals (normalised), so a
 * global change in sample count does not paint everything. Red = grew, blue = shrank.
 */
export function diffColor(after, before, dark) {
  const delta = after - before;
  const base = Math.max(after, before);
  // 16 steps of strength: few distinct colours (see frameColor).
  const strength = base > 0 ? Math.round(Math.min(1, Math.abs(delta) / base) * 16) / 16 : 0;
  const light = dark ? 30 : 92;
  const l = light + ((dark ? 48 : 55) - light) * strength;
  if (strength < 0.005) return dark ? 'hsl(0,0%,35%)' : 'hsl(0,0%,88%)';
  return delta > 0 ? `hsl(0,${(45 + 45 * strength).toFixed(0)}%,${l.toFixed(1)}%)`
    : `hsl(220,${(45 + 45 * strength).toFixed(0)}%,${l.toFixed(1)}%)`;
}


/** [r, g, b] (0-255) of an `hsl(h,s%,l%)` string or a `#rrggbb` colour. */
export function parseColor(c) {
  if (c[0] === '#') {
    const v = parseInt(c.length === 4 ? c[1] + c[1] + c[2] + c[2] + c[3] + c[3] : c.slice(1, 7), 16);
    return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
  }
  const m = /hsl\(\s*([\d.]+)\s*,\s*([\d.]+)%\s*,\s*([\d.]+)%/.exec(c);
  if (!m) return [128, 128, 128];
  const h = Number(m[1]) / 360, s = Number(m[2]) / 100, l = Number(m[3]) / 100;
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s, p = 2 * l - q;
  const ch = (t) => {
    t = (t % 1 + 1) % 1;
    const v = t < 1 / 6 ? p + (q - p) * 6 * t : t < 1 / 2 ? q : t < 2 / 3 ? p + (q - p) * (2 / 3 - t) * 6 : p;
    return Math.round(v * 255);
  };
  return [ch(h + 1 / 3), ch(h), ch(h - 1 / 3)];
}

/** WCAG relative luminance of [r, g, b]. */
export function luminance([r, g, b]) {
  const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
}

/** WCAG contrast ratio of two colours given as [r, g, b]. */
export function contrast(a, b) {
  const x = luminance(a), y = luminance(b);
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

/**
 * The label colour for a fill: black or white, whichever contrasts more. The worse of the two is at
 * worst 4.58:1 (at a luminance of 0.18), so every fill reaches 4.5:1 in both themes, where one fixed
 * text colour per theme fell to 1.3:1 on yellow (near-black #111 would fall to 4.36:1 there).
 */
export function textOn(fill) {
  const rgb = parseColor(fill);
  return contrast(rgb, [0, 0, 0]) >= contrast(rgb, [255, 255, 255]) ? '#000000' : '#ffffff';
}
