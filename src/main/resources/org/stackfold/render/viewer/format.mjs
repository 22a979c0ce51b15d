// Numbers and units as people read them.

export function formatCount(v) {
  if (Math.abs(v) >= 1e6) return (v / 1e6).toFixed(Math.abs(v) >= 1e7 ? 1 : 2) + 'M';
  if (Math.abs(v) >= 1e4) return (v / 1e3).toFixed(1) + 'k';
  return String(Math.round(v * 100) / 100);
}

const TIME = { nanoseconds: 1e-9, microseconds: 1e-6, milliseconds: 1e-3, seconds: 1 };

/** A value in a unit: time units become s/ms/µs/ns, bytes B/KiB/MiB, anything else a count. */
export function formatValue(v, unit) {
  if (TIME[unit]) {
    const s = v * TIME[unit];
    const a = Math.abs(s);
    if (a >= 1) return s.toFixed(2) + ' s';
    if (a >= 1e-3) return (s * 1e3).toFixed(2) + ' ms';
    if (a >= 1e-6) return (s * 1e6).toFixed(1) + ' µs';
    return (s * 1e9).toFixed(0) + ' ns';
  }
  if (unit === 'bytes') {
    const a = Math.abs(v);
    if (a >= 1 << 30) return (v / (1 << 30)).toFixed(2) + ' GiB';
    if (a >= 1 << 20) return (v / (1 << 20)).toFixed(2) + ' MiB';
    if (a >= 1 << 10) return (v / (1 << 10)).toFixed(1) + ' KiB';
    return v + ' B';
  }
  return formatCount(v);
}

export function percent(part, whole) {
  if (!whole) return '–';
  const p = 100 * part / whole;
  if (p !== 0 && Math.abs(p) < 0.01) return (p < 0 ? '>-' : '<') + '0.01%';
  return p.toFixed(2) + '%';
}

export function signed(text, v) {
  return (v > 0 ? '+' : '') + text;
}
