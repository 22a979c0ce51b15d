#!/usr/bin/env node
// Frame times of the viewer's navigation in headless Chromium: zoom (Ctrl+wheel), pan (drag) and hover
// (mouse moves) on the flame graph of a page `stackfold view` wrote. Each event is timed from its
// dispatch until the canvases are rasterised (a one-pixel read-back of the base and overlay canvases
// forces every pending draw), so a figure is the whole work of one frame on the main thread.
//
//   python3 ../shared/bench/gen_viewer_folded.py large /tmp/folded-200k.txt 200000
//   ./stackfold view /tmp/folded-200k.txt -o /tmp/folded-200k.html
//   node scripts/viewer-bench.mjs /tmp/folded-200k.html [--runs 3] [--width 1280 --height 800] [--nice -15]
//
// Besides each event's wall time it reports the browser's CPU time per event (utime + stime of
// chromium's processes from /proc, over the whole scenario): on a machine shared with other builds the
// wall time is mostly waiting for a core. --nice N renices the benchmark's own chromium processes (root
// may go below 0) so that the wall times measure the page rather than the queue.
//
// --generic URL-or-page: the same gestures on whatever element is under the pointer, each event timed
// from its dispatch until two animation frames have run (so a viewer that draws in requestAnimationFrame,
// as speedscope's WebGL renderer does, is measured with its drawing; the figure then includes waiting for
// the next frame, up to 16.7 ms). For a side-by-side with speedscope 1.25 served on loopback:
//   (cd DIR && npm install speedscope@1.25.0 && cp /tmp/folded-200k.txt . &&
//    python3 -m http.server --bind 127.0.0.1 8765)
//   node scripts/viewer-bench.mjs --generic 'http://127.0.0.1:8765/node_modules/speedscope/dist/release/index.html#profileURL=http%3A%2F%2F127.0.0.1%3A8765%2Ffolded-200k.txt&view=left-heavy'
//   node scripts/viewer-bench.mjs --generic /tmp/folded-200k.html
//
// Needs Debian's chromium and chromium-driver (as the browser tests). Prints one line per run and
// scenario (median, p90, max in ms) and a JSON summary. Timing varies with the machine's load: this is
// a benchmark, never a test assertion.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf('--' + name); return i >= 0 ? args[i + 1] : def; };
const generic = opt('generic', null);
const page = generic || args.find((a, i) => !a.startsWith('--') && (i === 0 || !args[i - 1].startsWith('--')));
if (!page || (!generic && !existsSync(page))) {
  console.error('usage: node scripts/viewer-bench.mjs PAGE.html [--runs N] [--width W] [--height H]');
  process.exit(2);
}
const runs = Number(opt('runs', 3)), width = Number(opt('width', 1280)), height = Number(opt('height', 800));
const nice = opt('nice', null);

/** Pids of a process's descendants (from /proc). */
function descendants(root) {
  const kids = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]);
      if (!kids.has(ppid)) kids.set(ppid, []);
      kids.get(ppid).push(Number(d));
    } catch { /* gone */ }
  }
  const out = [], todo = [root];
  while (todo.length) for (const k of kids.get(todo.pop()) || []) { out.push(k); todo.push(k); }
  return out;
}

/** CPU milliseconds (user + system) used so far by the browser's processes. */
function cpuMs(pids) {
  const tick = 10; // USER_HZ is 100 on Linux
  let sum = 0;
  for (const p of pids) {
    try {
      const f = readFileSync(`/proc/${p}/stat`, 'utf8').slice(readFileSync(`/proc/${p}/stat`, 'utf8').lastIndexOf(')') + 2).split(' ');
      sum += (Number(f[11]) + Number(f[12])) * tick;
    } catch { /* gone */ }
  }
  return sum;
}

// Runs in the page (WebDriver's async script: the last argument is the callback).
const WAIT_READY = `const done = arguments[arguments.length - 1];
let seen = 0;
(function poll() {
  const r = document.documentElement.dataset.ready;
  if (r === '1' || r === 'error') return done(r);
  // A page that is not Stackfold's (speedscope): ready once its flame chart's canvases exist and stay for 3 s.
  if (r === undefined && document.querySelectorAll('canvas').length >= 3 && !/Loading|Importing/i.test(document.body.innerText)) seen++; else seen = 0;
  if (seen > 60) return done('canvases');
  setTimeout(poll, 50);
})();`;

const GENERIC = `const done = arguments[arguments.length - 1], which = arguments[0];
const W = innerWidth, H = innerHeight;
const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
const stats = (a) => { const s = [...a].sort((x, y) => x - y); return { n: s.length, median: s[s.length >> 1], p90: s[Math.floor(s.length * 0.9)], max: s[s.length - 1] }; };
const pt = (fx, fy) => ({ clientX: W * fx, clientY: H * fy });
const el = (p) => document.elementFromPoint(p.clientX, p.clientY);
const timed = async (fire) => { const t = performance.now(); fire(); await frame(); return performance.now() - t; };
(async () => {
  await frame();
  const out = { nodes: -1, canvas: W + 'x' + H }, a = [];
  if (which === 'zoom') {
    for (let k = 0; k < 40; k++) {
      const p = pt(0.2 + 0.6 * ((k * 7) % 10) / 10, 0.6);
      a.push(await timed(() => el(p).dispatchEvent(new WheelEvent('wheel', { bubbles: true, cancelable: true, ctrlKey: true, deltaY: k < 20 ? -20 : 20, ...p }))));
    }
  } else if (which === 'pan') {
    const s = pt(0.5, 0.6), t = el(s);
    t.dispatchEvent(new MouseEvent('mousedown', { bubbles: true, button: 0, buttons: 1, ...s }));
    for (let k = 1; k <= 40; k++) {
      const dx = (k <= 20 ? k : 40 - k) * 12;
      a.push(await timed(() => t.dispatchEvent(new MouseEvent('mousemove', { bubbles: true, buttons: 1, clientX: s.clientX + dx, clientY: s.clientY }))));
    }
    t.dispatchEvent(new MouseEvent('mouseup', { bubbles: true, ...s }));
    window.dispatchEvent(new MouseEvent('mouseup', { bubbles: true, ...s }));
  } else {
    for (let k = 0; k < 60; k++) {
      const p = pt(((k * 37) % 300) / 300, 0.35 + 0.55 * ((k * 13) % 100) / 100);
      a.push(await timed(() => el(p).dispatchEvent(new MouseEvent('mousemove', { bubbles: true, buttons: 0, ...p }))));
    }
  }
  done({ ...out, ...stats(a) });
})().catch((e) => done({ error: String(e) }));`;

const SCENARIOS = `const done = arguments[arguments.length - 1], which = arguments[0];
const sf = window.stackfold, v = sf.flame, c = v.canvas, o = v.overlay;
const rect = c.getBoundingClientRect();
const flush = () => { c.getContext('2d').getImageData(0, 0, 1, 1); o.getContext('2d').getImageData(0, 0, 1, 1); };
const time = (fire) => { const t = performance.now(); fire(); flush(); return performance.now() - t; };
const stats = (a) => { const s = [...a].sort((x, y) => x - y); return { n: s.length, median: s[s.length >> 1], p90: s[Math.floor(s.length * 0.9)], max: s[s.length - 1] }; };
const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
const at = (fx, fy) => ({ clientX: rect.left + rect.width * fx, clientY: rect.top + rect.height * fy });
(async () => {
  v.zoomTo(0); flush(); await frame();
  const out = { nodes: v.tree.n - 1, canvas: c.width + 'x' + c.height };
  if (which === 'zoom') {
  // Zoom: 40 steps in (x1.22 each, around points across the width), then 40 out.
  const zoom = [];
  for (let k = 0; k < 80; k++) {
    const p = at(0.2 + 0.6 * ((k * 7) % 10) / 10, 0.7);
    zoom.push(time(() => c.dispatchEvent(new WheelEvent('wheel', { bubbles: true, cancelable: true, ctrlKey: true, deltaY: k < 40 ? -20 : 20, ...p }))));
    if (k % 8 === 0) await frame();
  }
  return done({ ...out, ...stats(zoom) });
  }
  if (which === 'pan') {
  // Pan: drags of 60 moves of 12 px, at the whole view and zoomed 10x.
  const pan = [];
  for (const z of [1, 10]) {
    v.zoomTo(0); if (z > 1) v.zoomBy(z); flush(); await frame();
    const s = at(0.5, 0.6);
    c.dispatchEvent(new MouseEvent('mousedown', { bubbles: true, button: 0, buttons: 1, ...s }));
    for (let k = 1; k <= 60; k++) {
      const dx = (k <= 30 ? k : 60 - k) * 12 * (z > 1 ? -1 : 1);
      pan.push(time(() => c.dispatchEvent(new MouseEvent('mousemove', { bubbles: true, buttons: 1, clientX: s.clientX + dx, clientY: s.clientY }))));
      if (k % 10 === 0) await frame();
    }
    window.dispatchEvent(new MouseEvent('mouseup', { bubbles: true, ...s }));
    v.drag = null;
  }
  return done({ ...out, ...stats(pan) });
  }
  // Hover: 300 moves over the whole view, across rows and columns.
  v.zoomTo(0); flush(); await frame();
  const hover = [];
  for (let k = 0; k < 300; k++) {
    const p = at(((k * 37) % 300) / 300, 0.35 + 0.6 * ((k * 13) % 100) / 100);
    hover.push(time(() => c.dispatchEvent(new MouseEvent('mousemove', { bubbles: true, buttons: 0, ...p }))));
    if (k % 20 === 0) await frame();
  }
  c.dispatchEvent(new MouseEvent('mouseleave'));
  done({ ...out, ...stats(hover) });
})().catch((e) => done({ error: String(e) }));`;

const freePort = () => new Promise((ok) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => ok(p)); }); });
const port = await freePort();
const driver = spawn('/usr/bin/chromedriver', ['--port=' + port], { stdio: 'ignore' });
const base = `http://127.0.0.1:${port}`;
const profileDir = mkdtempSync(join(tmpdir(), 'viewer-bench-'));

async function call(method, path, body) {
  const r = await fetch(base + path, { method, headers: { 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
  const j = await r.json();
  if (j.value && j.value.error) throw new Error(j.value.error + ': ' + j.value.message);
  return j.value;
}

let session;
try {
  for (let i = 0; ; i++) {
    try { await call('GET', '/status'); break; } catch (e) { if (i > 100) throw e; await new Promise((r) => setTimeout(r, 100)); }
  }
  const s = await call('POST', '/session', { capabilities: { alwaysMatch: { browserName: 'chrome', 'goog:chromeOptions': {
    binary: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', '--user-data-dir=' + profileDir],
  } } } });
  session = s.sessionId;
  await call('POST', `/session/${session}/timeouts`, { script: 600000, pageLoad: 600000 });
  await call('POST', `/session/${session}/window/rect`, { width, height });
  const results = [];
  for (let run = 1; run <= runs; run++) {
    const t0 = Date.now();
    const url = /^[a-z]+:/.test(page) ? page : pathToFileURL(resolve(page)).href;
    await call('POST', `/session/${session}/url`, { url });
    await call('POST', `/session/${session}/execute/async`, { script: WAIT_READY, args: [] });
    const load = Date.now() - t0;
    const pids = descendants(driver.pid);
    if (nice !== null && run === 1) execFileSync('renice', ['-n', String(nice), '-p', ...pids.map(String)], { stdio: 'ignore' });
    const r = {};
    for (const k of ['zoom', 'pan', 'hover']) {
      const c0 = cpuMs(pids);
      const v = await call('POST', `/session/${session}/execute/async`, { script: generic ? GENERIC : SCENARIOS, args: [k] });
      if (v.error) throw new Error(v.error);
      v.cpuPerEvent = (cpuMs(pids) - c0) / v.n;
      r[k] = v;
      r.nodes = v.nodes; r.canvas = v.canvas;
      console.log(`run ${run} ${k.padEnd(5)} n=${v.n} median ${v.median.toFixed(1)} ms  p90 ${v.p90.toFixed(1)} ms  max ${v.max.toFixed(1)} ms  `
        + `(browser CPU ${v.cpuPerEvent.toFixed(1)} ms an event)`);
    }
    results.push({ run, load, loadavg: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '), ...r });
    console.log(`run ${run} page ready after ${load} ms; ${r.nodes} call-tree nodes, canvas ${r.canvas}; load average ${results.at(-1).loadavg}`);
  }
  console.log(JSON.stringify({ page, width, height, nice, chromium: await call('POST', `/session/${session}/execute/sync`, { script: 'return navigator.userAgent', args: [] }), results }));
} finally {
  if (session) await call('DELETE', `/session/${session}`).catch(() => {});
  driver.kill();
  rmSync(profileDir, { recursive: true, force: true });
}

