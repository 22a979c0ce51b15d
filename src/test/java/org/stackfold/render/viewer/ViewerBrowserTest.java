package org.stackfold.render.viewer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.tachyon.TachyonFormat;
import org.stackfold.format.tachyon.TachyonOptions;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;
import org.stackfold.render.flamegraph.WebDriverClient;

/**
 * The viewer in a real headless Chromium (Debian's chromium + chromedriver over WebDriver): every
 * view draws, clicking zooms, the sandwich follows the selection, search reports its share, the
 * differential view paints growth red, and a hostile frame name stays text.
 */
class ViewerBrowserTest {
    private static WebDriverClient browser;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() throws Exception {
        if (System.getenv("STACKFOLD_REQUIRE_BROWSER") != null && !WebDriverClient.available()) {
            throw new IllegalStateException("STACKFOLD_REQUIRE_BROWSER is set but chromium/chromedriver are missing");
        }
        assumeTrue(WebDriverClient.available(),
                "chromium and chromedriver are not installed (apt-get install chromium chromium-driver): browser tests skipped");
        browser = new WebDriverClient();
        browser.windowSize(1280, 800);
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) {
            browser.close();
        }
    }

    private static final String FOLDED = """
            main;a;b 10
            main;a;c 30
            main;d;c 20
            main;d 40
            other;c 100
            """;

    static Path page(String name, Profile p) throws Exception {
        Path f = dir.resolve(name + ".html");
        try (OutputStream out = Files.newOutputStream(f)) {
            ViewerPage.write(ViewerData.of(p), new ViewerPage.Options(name, List.of(name)), out);
        }
        return f;
    }

    /** Opens a page and waits until it says its first view is drawn. */
    static void open(Path page) throws Exception {
        browser.open(page.toUri().toString());
        for (int i = 0; i < 600; i++) {
            Object ready = js("return document.documentElement.dataset.ready || ''");
            if ("1".equals(ready)) {
                return;
            }
            assertThat(ready).as("page failed: " + js("return document.getElementById('detail').textContent")).isNotEqualTo("error");
            Thread.sleep(50);
        }
        throw new AssertionError("the page never became ready");
    }

    static Object js(String script) throws Exception {
        return browser.script(script);
    }

    /** Pixels of a canvas that differ from its top-left corner (the background). */
    static long paintedPixels(String canvas) throws Exception {
        return ((Number) js("const c = document.querySelector(" + WebDriverClientJson.quote(canvas) + ");"
                + "const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;"
                + "for (let i = 0; i < d.length; i += 4) if (d[i] !== d[0] || d[i+1] !== d[1] || d[i+2] !== d[2]) n++;"
                + "return n;")).longValue();
    }

    /** The colour drawn at the centre of a frame of a view, as [r, g, b]. */
    @SuppressWarnings("unchecked")
    static List<Number> colourOf(String view, String canvas, String name) throws Exception {
        return (List<Number>) js("const b = window.stackfold.boxOf(" + WebDriverClientJson.quote(view) + ", "
                + WebDriverClientJson.quote(name) + "); const c = document.querySelector(" + WebDriverClientJson.quote(canvas) + ");"
                + "const r = devicePixelRatio; const d = c.getContext('2d').getImageData(Math.round((b.x + Math.min(b.w, 200) / 2) * r),"
                + " Math.round((b.y + 5) * r), 1, 1).data; return [d[0], d[1], d[2]];");
    }

    static void clickFrame(String view, String canvas, String name) throws Exception {
        js("const b = window.stackfold.boxOf(" + WebDriverClientJson.quote(view) + ", " + WebDriverClientJson.quote(name) + ");"
                + "const c = document.querySelector(" + WebDriverClientJson.quote(canvas) + "); const r = c.getBoundingClientRect();"
                + "c.dispatchEvent(new MouseEvent('click', {bubbles: true, clientX: r.left + b.x + 2, clientY: r.top + b.y + 5}));");
    }

    @SuppressWarnings("unchecked")
    static List<String> labels(String view) throws Exception {
        return (List<String>) js("return window.stackfold." + view + ".labels");
    }

    @Test
    void flameGraphDrawsZoomsAndFlips() throws Exception {
        open(page("plain", ViewerDataTest.folded(FOLDED)));
        assertThat(paintedPixels("#view-flame canvas")).isGreaterThan(10_000);
        assertThat(labels("flame")).contains("main", "other", "a", "d", "c");
        double before = ((Number) js("return window.stackfold.boxOf('flame', 'a').w")).doubleValue();
        clickFrame("flame", "#view-flame canvas", "a");
        assertThat(js("return window.stackfold.profile.names[window.stackfold.flame.tree.frame[window.stackfold.flame.zoom]]"))
                .isEqualTo("a");
        double after = ((Number) js("return window.stackfold.boxOf('flame', 'a').w")).doubleValue();
        assertThat(after).isGreaterThan(before * 3);
        assertThat((String) js("return location.hash")).contains("z=");
        // Icicle: the root row moves from the bottom to the top.
        double flameY = ((Number) js("return window.stackfold.boxOf('flame', 'main').y")).doubleValue();
        browser.click("#orient");
        double icicleY = ((Number) js("return window.stackfold.boxOf('flame', 'main').y")).doubleValue();
        assertThat(icicleY).isLessThan(flameY);
        browser.click("#orient");
    }

    @Test
    void sandwichRowSelectsCallersAndCallees() throws Exception {
        open(page("sandwich", ViewerDataTest.folded(FOLDED)));
        browser.click("#tabs button[data-view=sandwich]");
        int c = ((Number) js("return window.stackfold.profile.names.indexOf('c')")).intValue();
        browser.click("#fn-table .row[data-frame=\"" + c + "\"]");
        assertThat(js("return document.getElementById('sw-name').textContent")).isEqualTo("c");
        assertThat(labels("callers")).contains("c", "a", "d", "main", "other");
        assertThat(labels("callees")).containsExactly("c");
        assertThat(paintedPixels("#callers canvas")).isGreaterThan(1000);
        int a = ((Number) js("return window.stackfold.profile.names.indexOf('a')")).intValue();
        browser.click("#fn-table .row[data-frame=\"" + a + "\"]");
        assertThat(labels("callees")).contains("a", "b", "c");
        assertThat(labels("callers")).contains("a", "main").doesNotContain("other");
        // The table: Total is 150 for c (100 + 30 + 20), with its share.
        assertThat((String) js("return document.querySelector('#fn-table .row[data-frame=\"" + c + "\"]').textContent"))
                .contains("150 (75.00%)");
    }

    @Test
    void searchHighlightsAndReportsTheMatchedShare() throws Exception {
        open(page("search", ViewerDataTest.folded(FOLDED)));
        js("const s = document.getElementById('search'); s.value = '^[bc]$'; s.dispatchEvent(new Event('input'));");
        assertThat(js("return document.getElementById('matched').textContent")).isEqualTo("Matched: 80.00%");
        List<Number> rgb = colourOf("flame", "#view-flame canvas", "c");
        assertThat(rgb.get(0).intValue()).isGreaterThan(200);
        assertThat(rgb.get(1).intValue()).isLessThan(40);
        assertThat(rgb.get(2).intValue()).isGreaterThan(200);
        assertThat((String) js("return location.hash")).contains("s=");
    }

    @Test
    void callTreeListsTheHotPath() throws Exception {
        open(page("tree", ViewerDataTest.folded(FOLDED)));
        browser.click("#tabs button[data-view=tree]");
        String text = (String) js("return document.getElementById('call-tree').textContent");
        assertThat(text).contains("other", "main", "c");
        // Expanded along the hot path: both roots and the heaviest chain under main (main, d).
        assertThat(((Number) js("return document.querySelectorAll('#call-tree .row').length")).intValue()).isEqualTo(5);
    }

    @Test
    void transformsAreUndoableBreadcrumbs() throws Exception {
        open(page("transforms", ViewerDataTest.folded(FOLDED)));
        int d = ((Number) js("return window.stackfold.profile.names.indexOf('d')")).intValue();
        js("window.stackfold.state.transforms = [{kind: 'drop', f: " + d + "}]; window.stackfold.update();");
        assertThat(((Number) js("return window.stackfold.currentTree().total[0]")).intValue()).isEqualTo(140);
        assertThat((String) js("return document.getElementById('crumbs').textContent")).contains("Drop d");
        assertThat(labels("flame")).doesNotContain("d");
        browser.click("#crumbs button");
        assertThat(((Number) js("return window.stackfold.currentTree().total[0]")).intValue()).isEqualTo(200);
    }

    @Test
    void differentialViewPaintsGrowthRed() throws Exception {
        open(page("diff", ViewerDataTest.folded("""
                main;grew 10 60
                main;shrank 60 10
                main;same 30 30
                """)));
        List<Number> grew = colourOf("flame", "#view-flame canvas", "grew");
        assertThat(grew.get(0).intValue()).isGreaterThan(grew.get(2).intValue() + 60);
        List<Number> shrank = colourOf("flame", "#view-flame canvas", "shrank");
        assertThat(shrank.get(2).intValue()).isGreaterThan(shrank.get(0).intValue() + 60);
        browser.click("#tabs button[data-view=difftable]");
        String first = (String) js("return document.querySelector('#diff-table .row[data-row=\"0\"]').textContent");
        assertThat(first).startsWith("+50").endsWith("grew");
    }

    @Test
    void aHostileNameIsText() throws Exception {
        String evil = "<img src=x onerror=window.pwned=1>";
        open(page("hostile", ViewerDataTest.folded("main;" + evil + " 5\nmain;</script><script>window.pwned=2</script> 5\n")));
        browser.click("#tabs button[data-view=sandwich]");
        assertThat(((Number) js("return document.querySelectorAll('img').length")).intValue()).isZero();
        assertThat(js("return window.pwned === undefined")).isEqualTo(true);
        assertThat(browser.alertText()).isNull();
        assertThat((String) js("return document.getElementById('fn-table').textContent")).contains(evil);
        assertThat(labels("callers")).isNotEmpty();
    }

    @Test
    void tachyonTimeOrderAndRangeSelectionFilterTheViews() throws Exception {
        Profile p;
        try (Input in = Input.open(Path.of("src/test/resources/tachyon/real/a_cpu_opcodes_native.bin").toString())) {
            p = new TachyonFormat().read(in, FormatOptions.none().set(TachyonOptions.TIMELINE, true));
        }
        open(page("tachyon", p));
        assertThat(js("return document.getElementById('activity-wrap').hidden")).isEqualTo(false);
        assertThat(paintedPixels("#activity")).isGreaterThan(100);
        browser.click("#tabs button[data-view=time]");
        assertThat(paintedPixels("#view-time canvas")).isGreaterThan(200);
        double all = ((Number) js("return window.stackfold.currentTree().total[0]")).doubleValue();
        js("const a = document.getElementById('activity'), r = a.getBoundingClientRect();"
                + "a.dispatchEvent(new MouseEvent('mousedown', {bubbles: true, clientX: r.left + 2, clientY: r.top + 5}));"
                + "window.dispatchEvent(new MouseEvent('mouseup', {bubbles: true, clientX: r.left + r.width / 2, clientY: r.top + 5}));");
        @SuppressWarnings("unchecked")
        List<Number> range = (List<Number>) js("return window.stackfold.state.range");
        assertThat(range).hasSize(2);
        double part = ((Number) js("return window.stackfold.currentTree().total[0]")).doubleValue();
        assertThat(part).isGreaterThan(0).isLessThan(all);
        assertThat((String) js("return location.hash")).contains("r=");
        // Status flags: requiring a flag only some samples have keeps exactly those samples.
        @SuppressWarnings("unchecked")
        List<Number> flag = (List<Number>) js("const tl = window.stackfold.profile.timeline;"
                + "for (const bit of [1, 2, 8, 16, 32]) { let n = 0; for (let i = 0; i < tl.n; i++) if (tl.status[i] & bit) n += tl.weight[i];"
                + " if (n > 0 && n < " + all + ") return [bit, n]; } return null;");
        assertThat(flag).isNotNull();
        js("window.stackfold.state.range = null; window.stackfold.state.status = " + flag.get(0) + "; window.stackfold.update();");
        assertThat(((Number) js("return window.stackfold.currentTree().total[0]")).doubleValue())
                .isEqualTo(flag.get(1).doubleValue());
    }

    // ---- issue 30: defects found side by side with speedscope (each of these failed before its fix)

    static Profile read(org.stackfold.format.ProfileFormat format, String path, FormatOptions options) throws Exception {
        try (Input in = Input.open(path)) {
            return format.read(in, options);
        }
    }

    static Path page(String name, Profile p, ViewerPage.Options options) throws Exception {
        Path f = dir.resolve(name + ".html");
        try (OutputStream out = Files.newOutputStream(f)) {
            ViewerPage.write(ViewerData.of(p), options, out);
        }
        return f;
    }

    /** Share of the first row of a canvas (the time order's outermost frames) that is painted. */
    static double firstRowCover(String canvas) throws Exception {
        return ((Number) js("const c = document.querySelector(" + WebDriverClientJson.quote(canvas) + ");"
                + "const y = Math.round(5 * devicePixelRatio); const d = c.getContext('2d').getImageData(0, y, c.width, 1).data;"
                + "let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] !== d[0] || d[i+1] !== d[1] || d[i+2] !== d[2]) n++;"
                + "const first = d[0] + d[1] + d[2]; return n / c.width;")).doubleValue();
    }

    @Test
    void tachyonTimeOrderUsesTheDeclaredInterval() throws Exception {
        // CPython's sampler writes bursts: the median gap is far below the 1,000 us of the header.
        Profile p = read(new TachyonFormat(), "src/test/resources/tachyon/real/a_zstd.bin",
                FormatOptions.none().set(TachyonOptions.TIMELINE, true));
        assertThat(p.timeline().sampleInterval()).isEqualTo(1000);
        open(page("tachyon-interval", p));
        browser.click("#tabs button[data-view=time]");
        // The main thread (heaviest, shown first) is busy all along: its outermost frame covers most of the row.
        assertThat(firstRowCover("#view-time canvas")).isGreaterThan(0.5);
    }

    @Test
    void aJfrMethodIsOneFunctionWithItsKindsAsABreakdown() throws Exception {
        Profile p = read(new org.stackfold.format.jfr.JfrFormat(), "src/test/resources/formats/jfr-heavy.jfr", FormatOptions.none());
        open(page("jfr-kinds", p));
        // One name, one function: no method appears twice among the page's frames.
        assertThat(js("const n = window.stackfold.profile.names; return new Set(n).size === n.length")).isEqualTo(true);
        // Methods seen interpreted, compiled and inlined carry the split, shown in the tooltip and detail panel.
        Object f = js("const p = window.stackfold.profile; for (const [f] of p.kindParts) return f; return -1;");
        assertThat(((Number) f).intValue()).isGreaterThanOrEqualTo(0);
        String name = (String) js("return window.stackfold.profile.names[" + f + "]");
        js("const t = window.stackfold.flame.tree; for (let i = 1; i < t.n; i++) if (t.frame[i] === " + f + ")"
                + " { window.stackfold.flame.select(i); break; }");
        String detail = (String) js("return document.getElementById('frame-detail').textContent");
        assertThat(detail).contains(name).containsPattern("(JIT|inlined|interpreted) \\d+\\.\\d\\d%.*·");
    }

    @Test
    void perfClockWeightsAreShownAsTime() throws Exception {
        Profile p = read(new org.stackfold.format.perfdata.PerfDataFormat(), "src/test/resources/perfdata/burn.perf.data",
                FormatOptions.none());
        open(page("perf-units", p));
        // 134 samples of 2,004,008 ns: 268.5 ms, not "268.5M cpu-clock".
        assertThat((String) js("return document.getElementById('detail').textContent")).startsWith("268.54 ms of cpu-clock");
        assertThat(labels("flame")).isNotEmpty();
        assertThat((List<?>) js("return window.stackfold.flame.axisLabels")).allMatch(l -> l.toString().matches("0 ns|[\\d.]+ (ms|µs)"));
        // A diff of two perf profiles: its columns are time too.
        Profile d = org.stackfold.analysis.Diff.of(p, p, false, false);
        open(page("perf-diff-units", d, new ViewerPage.Options("diff", List.of("a", "b"), p.valueTypes().getLast())));
        assertThat((String) js("return document.getElementById('detail').textContent")).startsWith("268.54 ms");
    }

    @Test
    void perfDataHasATimeOrderWithNamedThreads() throws Exception {
        Profile p = read(new org.stackfold.format.perfdata.PerfDataFormat(), "src/test/resources/perfdata/burn.perf.data",
                FormatOptions.none().set("timeline", true));
        assertThat(p.timeline().size()).isEqualTo(134);
        open(page("perf-time", p));
        assertThat(js("return document.querySelector('#tabs button[data-view=time]').hidden")).isEqualTo(false);
        assertThat(js("return document.getElementById('activity-wrap').hidden")).isEqualTo(false);
        browser.click("#tabs button[data-view=time]");
        assertThat(paintedPixels("#view-time canvas")).isGreaterThan(200);
        assertThat((String) js("return document.querySelector('#time-tools select option').textContent")).startsWith("thread burn (");
    }

    @Test
    void backAndForwardWalkTheViewsAndZooms() throws Exception {
        open(page("history", ViewerDataTest.folded(FOLDED)));
        clickFrame("flame", "#view-flame canvas", "a");
        String zoomed = (String) js("return location.hash");
        assertThat(zoomed).contains("z=");
        browser.click("#tabs button[data-view=sandwich]");
        assertThat(js("return window.stackfold.state.view")).isEqualTo("sandwich");
        js("history.back()");
        waitFor("return window.stackfold && window.stackfold.state.view === 'flame'");
        assertThat(js("return location.hash")).isEqualTo(zoomed);
        assertThat(js("return window.stackfold.profile.names[window.stackfold.flame.tree.frame[window.stackfold.flame.zoom]]"))
                .isEqualTo("a");
        js("history.back()");
        waitFor("return window.stackfold && window.stackfold.flame.zoom === 0");
        assertThat(js("return location.pathname")).asString().endsWith("history.html");
        js("history.forward()");
        waitFor("return window.stackfold && window.stackfold.flame.zoom > 0");
        // Editing the hash by hand is followed.
        js("location.hash = 'v=tree'");
        waitFor("return window.stackfold.state.view === 'tree'");
        assertThat(js("return document.getElementById('view-tree').classList.contains('active')")).isEqualTo(true);
    }

    @Test
    void aMalformedHashIsRejectedWithAVisibleNote() throws Exception {
        Path page = page("bad-hash", ViewerDataTest.folded(FOLDED));
        browser.open(page.toUri() + "#t=focus:1.x.2&v=flame");
        waitFor("return document.documentElement.dataset.ready === '1'");
        assertThat(((Number) js("return window.stackfold.state.transforms.length")).intValue()).isZero();
        assertThat(js("return document.getElementById('note').hidden")).isEqualTo(false);
        assertThat((String) js("return document.getElementById('note').textContent")).contains("focus:1.x.2");
        // The same through an edited hash after load.
        js("document.getElementById('note').hidden = true; location.hash = 'z=0..1'");
        waitFor("return !document.getElementById('note').hidden");
        assertThat((String) js("return document.getElementById('note').textContent")).contains("z=0..1");
    }

    static void waitFor(String condition) throws Exception {
        for (int i = 0; i < 200; i++) {
            try {
                if (Boolean.TRUE.equals(js(condition))) {
                    return;
                }
            } catch (java.io.IOException e) {
                // the page is between two documents
            }
            Thread.sleep(25);
        }
        throw new AssertionError("never true: " + condition);
    }

    @Test
    void theCallTreeKeepsNamesInViewOnDeepStacks() throws Exception {
        StringBuilder deep = new StringBuilder("main");
        for (int d = 1; d < 120; d++) {
            deep.append(";level").append(d);
        }
        open(page("deep", ViewerDataTest.folded(deep + " 10\nmain;other 1\n")));
        browser.click("#tabs button[data-view=tree]");
        js("document.getElementById('call-tree').scrollTop = 1e6; document.getElementById('call-tree').dispatchEvent(new Event('scroll'))");
        @SuppressWarnings("unchecked")
        List<Number> hidden = (List<Number>) js("const out = []; for (const n of document.querySelectorAll('#call-tree .row .name')) {"
                + " const r = document.createRange(); r.selectNodeContents(n.lastChild); const t = r.getBoundingClientRect(), c = n.getBoundingClientRect();"
                + " if (t.left > c.right - 40) out.push(t.left - c.right); } return out;");
        assertThat(hidden).isEmpty();
        assertThat((String) js("return document.querySelector('#call-tree .row .name').title")).contains("depth");
    }

    @Test
    void theSandwichSelectsItsFirstRowAndNamesHaveTooltips() throws Exception {
        open(page("sandwich-default", ViewerDataTest.folded(FOLDED)));
        browser.click("#tabs button[data-view=sandwich]");
        assertThat(js("return document.querySelector('#fn-table .row[data-row=\"0\"]').classList.contains('selected')")).isEqualTo(true);
        assertThat(js("const r = document.querySelector('#fn-table .row[data-row=\"0\"]');"
                + " return r.querySelector('.name').title === window.stackfold.profile.names[Number(r.dataset.frame)]")).isEqualTo(true);
    }

    @Test
    void theTitleShowsTheFileName() throws Exception {
        String path = "/home/someone/projects/a-rather-long-project-name/build/profiles/2026-12-05/run-17/cpu-profile.folded";
        open(page("title", ViewerDataTest.folded(FOLDED), new ViewerPage.Options(path, List.of(path))));
        assertThat(js("return document.getElementById('title').textContent")).isEqualTo("cpu-profile.folded");
        assertThat(js("return document.getElementById('title').title")).isEqualTo(path);
        assertThat(js("const t = document.getElementById('title'); return t.scrollWidth <= t.clientWidth")).isEqualTo(true);
    }

    @Test
    void searchIgnoresCaseAndEscKeepsTheQuery() throws Exception {
        open(page("search-case", ViewerDataTest.folded(FOLDED)));
        js("const s = document.getElementById('search'); s.focus(); s.value = 'OTHER'; s.dispatchEvent(new Event('input'));");
        assertThat(js("return document.getElementById('matched').textContent")).isEqualTo("Matched: 50.00%");
        js("document.getElementById('search').dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}))");
        assertThat(js("return document.getElementById('search').value")).isEqualTo("OTHER");
        assertThat(js("return window.stackfold.state.search")).isEqualTo("OTHER");
    }

    /** The lowest contrast between a labelled frame's fill and its label's strongest pixel, over the drawn frames. */
    static double worstLabelContrast() throws Exception {
        return ((Number) js("""
                const v = window.stackfold.flame, c = v.canvas, r = devicePixelRatio, ctx = c.getContext('2d');
                const lum = (p) => { const f = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
                  return 0.2126 * f(p[0]) + 0.7152 * f(p[1]) + 0.0722 * f(p[2]); };
                const con = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
                let worst = 99, seen = 0;
                for (const i of v.drawn) {
                  const b = v.box(i);
                  if (b.w < 60 || b.x < 0 || b.y < 18) continue;
                  const d = ctx.getImageData(Math.round((b.x + 1) * r), Math.round(b.y * r), Math.round(Math.min(b.w - 2, 80) * r), Math.round(16 * r)).data;
                  const bg = [d[0], d[1], d[2]];
                  let best = 1;
                  for (let k = 0; k < d.length; k += 4) best = Math.max(best, con(bg, [d[k], d[k + 1], d[k + 2]]));
                  worst = Math.min(worst, best); seen++;
                }
                return seen ? worst : -1;""")).doubleValue();
    }

    @Test
    void labelsReachContrast45InBothThemes() throws Exception {
        // Names whose hash lands on the yellow end of the palette, and JFR's kinds (interpreted is yellow).
        Profile p = read(new org.stackfold.format.jfr.JfrFormat(), "src/test/resources/formats/jfr-heavy.jfr", FormatOptions.none());
        open(page("contrast", p));
        try {
            js("localStorage.setItem('stackfold-theme', 'dark'); location.reload()");
            waitFor("return document.documentElement.dataset.ready === '1' && document.documentElement.dataset.theme === 'dark'");
            assertThat(worstLabelContrast()).isGreaterThanOrEqualTo(4.5);
            js("localStorage.setItem('stackfold-theme', 'light'); location.reload()");
            waitFor("return document.documentElement.dataset.ready === '1' && document.documentElement.dataset.theme === 'light'");
            assertThat(worstLabelContrast()).isGreaterThanOrEqualTo(4.5);
        } finally {
            js("localStorage.removeItem('stackfold-theme')"); // the other tests draw in the system theme
        }
    }

    // ---- issue 30, item 7: navigation

    static void wheel(String canvas, double x, double y, double dx, double dy, boolean ctrl) throws Exception {
        js("const c = document.querySelector(" + WebDriverClientJson.quote(canvas) + "); const r = c.getBoundingClientRect();"
                + "c.dispatchEvent(new WheelEvent('wheel', {bubbles: true, cancelable: true, clientX: r.left + " + x + ", clientY: r.top + " + y
                + ", deltaX: " + dx + ", deltaY: " + dy + ", ctrlKey: " + ctrl + "}));");
    }

    static double viewportSpan() throws Exception {
        return ((Number) js("return window.stackfold.flame.vx1 - window.stackfold.flame.vx0")).doubleValue();
    }

    @Test
    void wheelZoomsAroundThePointerAndDragPans() throws Exception {
        open(page("zoom", ViewerDataTest.folded(FOLDED)));
        double whole = viewportSpan();
        double x = ((Number) js("const b = window.stackfold.boxOf('flame', 'other'); return b.x + b.w / 2")).doubleValue();
        wheel("#view-flame canvas", x, 400, 0, -200, true);
        assertThat(viewportSpan()).isLessThan(whole / 3);
        // The point under the pointer stays under it: 'other' is still there.
        assertThat(js("const b = window.stackfold.boxOf('flame', 'other'); return b.x <= " + x + " && b.x + b.w >= " + x)).isEqualTo(true);
        assertThat((List<?>) js("return window.stackfold.flame.axisLabels")).isNotEmpty();
        double before = ((Number) js("return window.stackfold.flame.vx0")).doubleValue();
        js("const c = document.querySelector('#view-flame canvas'), r = c.getBoundingClientRect();"
                + "c.dispatchEvent(new MouseEvent('mousedown', {bubbles: true, button: 0, buttons: 1, clientX: r.left + 600, clientY: r.top + 300}));"
                + "c.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, buttons: 1, clientX: r.left + 700, clientY: r.top + 300}));"
                + "window.dispatchEvent(new MouseEvent('mouseup', {bubbles: true, clientX: r.left + 700, clientY: r.top + 300}));"
                + "c.dispatchEvent(new MouseEvent('click', {bubbles: true, clientX: r.left + 700, clientY: r.top + 300}));");
        assertThat(((Number) js("return window.stackfold.flame.vx0")).doubleValue()).isLessThan(before);
        assertThat(viewportSpan()).isLessThan(whole / 3); // a drag is not a click: no zoom to a frame
        // Keys: '-' zooms out, '0' resets.
        key("-");
        key("0");
        assertThat(viewportSpan()).isEqualTo(whole);
    }

    @Test
    void theMinimapShowsAndMovesTheViewport() throws Exception {
        open(page("minimap", ViewerDataTest.folded(FOLDED)));
        assertThat(paintedPixels("#view-flame canvas.minimap")).isGreaterThan(1000);
        js("window.stackfold.flame.zoomBy(4)");
        @SuppressWarnings("unchecked")
        List<Number> shown = (List<Number>) js("return window.stackfold.flame.miniView");
        double width = ((Number) js("return document.querySelector('#view-flame canvas.minimap').clientWidth")).doubleValue();
        assertThat(shown.get(1).doubleValue() - shown.get(0).doubleValue()).isCloseTo(width / 4, org.assertj.core.data.Offset.offset(1.0));
        // A click at a quarter of the minimap centres the viewport there.
        js("const m = document.querySelector('#view-flame canvas.minimap'), r = m.getBoundingClientRect();"
                + "m.dispatchEvent(new MouseEvent('mousedown', {bubbles: true, buttons: 1, clientX: r.left + r.width / 4, clientY: r.top + 5}));"
                + "window.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}));");
        double centre = ((Number) js("const v = window.stackfold.flame; return (v.vx0 + v.vx1) / 2 / v.tree.total[0]")).doubleValue();
        assertThat(centre).isCloseTo(0.25, org.assertj.core.data.Offset.offset(0.01));
    }

    static void key(String key) throws Exception {
        key(key, false);
    }

    static void key(String key, boolean shift) throws Exception {
        js("document.body.dispatchEvent(new KeyboardEvent('keydown', {key: " + WebDriverClientJson.quote(key)
                + ", shiftKey: " + shift + ", bubbles: true, cancelable: true}))");
    }

    static String selectedName() throws Exception {
        return (String) js("const v = window.stackfold.flame; return v.selected > 0 ? window.stackfold.profile.names[v.tree.frame[v.selected]] : null");
    }

    @Test
    void arrowsMoveBetweenFramesAndTheDetailPanelFollows() throws Exception {
        open(page("keys", ViewerDataTest.folded(FOLDED)));
        key("ArrowUp"); // nothing selected: the first root frame
        assertThat(selectedName()).isEqualTo("main");
        key("ArrowUp"); // flame graph: up is towards the leaves, the heaviest child first
        assertThat(selectedName()).isEqualTo("d");
        key("ArrowRight");
        assertThat(selectedName()).isEqualTo("a");
        key("ArrowLeft");
        assertThat(selectedName()).isEqualTo("d");
        key("ArrowDown");
        assertThat(selectedName()).isEqualTo("main");
        key("ArrowRight");
        assertThat(selectedName()).isEqualTo("other");
        key("ArrowUp");
        assertThat(selectedName()).isEqualTo("c");
        // The panel: this frame (100) and all instances of c (150), and the stack root first.
        String detail = (String) js("return document.getElementById('frame-detail').textContent");
        assertThat(detail).contains("this frame100 (50.00%)").contains("all instances150 (75.00%)");
        @SuppressWarnings("unchecked")
        List<String> stack = (List<String>) js("return [...document.querySelectorAll('#frame-detail .dstack li')].map(l => l.textContent)");
        assertThat(stack).containsExactly("other", "c");
        assertThat((String) js("return document.getElementById('announce').textContent")).startsWith("c: total 100");
        key("Enter");
        assertThat(js("return window.stackfold.profile.names[window.stackfold.flame.tree.frame[window.stackfold.flame.zoom]]")).isEqualTo("c");
        // The transforms, from the keyboard: the menu opens at the selection with its first entry focused.
        key("m");
        assertThat(js("return document.getElementById('menu').hidden")).isEqualTo(false);
        assertThat(js("return document.activeElement.textContent")).isEqualTo("Focus on this subtree");
        js("document.activeElement.click()");
        assertThat((String) js("return document.getElementById('crumbs').textContent")).contains("Focus c");
    }

    @Test
    void searchStepsThroughMatchesWithACount() throws Exception {
        open(page("matches", ViewerDataTest.folded(FOLDED)));
        js("const s = document.getElementById('search'); s.value = '^c$'; s.dispatchEvent(new Event('input'));");
        assertThat(js("return document.getElementById('match-count').textContent")).isEqualTo("3");
        js("document.getElementById('search').dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}))");
        assertThat(js("return document.getElementById('match-count').textContent")).isEqualTo("1/3");
        assertThat(selectedName()).isEqualTo("c");
        key("n");
        key("n");
        assertThat(js("return document.getElementById('match-count').textContent")).isEqualTo("3/3");
        key("N", true);
        assertThat(js("return document.getElementById('match-count').textContent")).isEqualTo("2/3");
    }

    @Test
    void hoverDrawsOnTheOverlayAndLeavesTheFramesAlone() throws Exception {
        open(page("hover", ViewerDataTest.folded(FOLDED)));
        String sum = "const c = document.querySelector(SEL); const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
                + "let h = 0; for (let i = 0; i < d.length; i += 4) h = (h * 31 + d[i] + 7 * d[i + 1] + 13 * d[i + 2] + 17 * d[i + 3]) | 0; return h;";
        Object base = js(sum.replace("SEL", "'#view-flame canvas.chart'"));
        Object overlay = js(sum.replace("SEL", "'#view-flame canvas.overlay'"));
        js("const b = window.stackfold.boxOf('flame', 'other'); const c = document.querySelector('#view-flame canvas.chart');"
                + "const r = c.getBoundingClientRect(); c.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: r.left + b.x + 5, clientY: r.top + b.y + 5}));");
        assertThat(js("return document.getElementById('tooltip').hidden")).isEqualTo(false);
        assertThat(js(sum.replace("SEL", "'#view-flame canvas.chart'"))).isEqualTo(base);
        assertThat(js(sum.replace("SEL", "'#view-flame canvas.overlay'"))).isNotEqualTo(overlay);
    }

    @Test
    void exportGivesTheTransformedZoomedViewAsFoldedText() throws Exception {
        open(page("export", ViewerDataTest.folded(FOLDED)));
        int d = ((Number) js("return window.stackfold.profile.names.indexOf('d')")).intValue();
        js("window.stackfold.state.transforms = [{kind: 'drop', f: " + d + "}]; window.stackfold.update();");
        assertThat(js("return window.stackfold.foldedOfView()")).isEqualTo("other;c 100\nmain;a;c 30\nmain;a;b 10\n"); // heaviest first, as drawn
        clickFrame("flame", "#view-flame canvas", "a");
        assertThat(js("return window.stackfold.foldedOfView()")).isEqualTo("main;a;c 30\nmain;a;b 10\n");
        browser.click("#export");
        assertThat((String) js("return document.getElementById('menu').textContent")).contains("Folded text", "PNG");
    }

    @Test
    void exportGivesTheGraphAsDrawnAsSvgWithNamesAsText() throws Exception {
        String evil = "<script>&\"'";
        open(page("export-svg", ViewerDataTest.folded("main;" + evil + " 60\nmain;x 40\n")));
        String svg = (String) js("return window.stackfold.svgOfView()");
        assertThat(svg).startsWith("<svg ").contains(">main</text>").contains("&lt;script&gt;&amp;&quot;&apos;").doesNotContain("<script>");
        // Well-formed XML with one titled box per frame drawn (main, the two children).
        assertThat(((Number) js("const d = new DOMParser().parseFromString(window.stackfold.svgOfView(), 'image/svg+xml');"
                + " return d.querySelector('parsererror') === null ? d.querySelectorAll('g > title').length : -1")).intValue()).isEqualTo(3);
    }

    @Test
    void tablesAreGridsWithKeyboardSelection() throws Exception {
        open(page("grid", ViewerDataTest.folded(FOLDED)));
        browser.click("#tabs button[data-view=sandwich]");
        assertThat(js("return document.getElementById('fn-table').getAttribute('role')")).isEqualTo("grid");
        assertThat(js("return document.querySelector('#fn-table .row').getAttribute('role')")).isEqualTo("row");
        assertThat(js("return document.querySelector('#fn-table .head span').getAttribute('aria-sort')")).isEqualTo("none");
        Object first = js("return window.stackfold.state.sel");
        js("const t = document.getElementById('fn-table'); t.focus();"
                + "t.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowDown', bubbles: true, cancelable: true}));");
        Object second = js("return window.stackfold.state.sel");
        assertThat(second).isNotEqualTo(first);
        assertThat(js("return document.querySelector('#fn-table .row[data-row=\"1\"]').getAttribute('aria-selected')")).isEqualTo("true");
        assertThat(js("return document.getElementById('sw-name').textContent"))
                .isEqualTo(js("return window.stackfold.profile.names[window.stackfold.state.sel]"));
    }

    @Test
    void longNamesAreCutInTheMiddle() throws Exception {
        String name = "org.example.some.deeply.nested.package.name.ServiceImplementation.handleIncomingRequest";
        open(page("truncate", ViewerDataTest.folded("main;" + name + " 10\nmain;x 90\n")));
        @SuppressWarnings("unchecked")
        List<String> l = (List<String>) js("return window.stackfold.flame.labels");
        String cut = l.stream().filter(s -> s.contains("…")).findFirst().orElseThrow();
        assertThat(cut).startsWith("org.").endsWith("Request").hasSizeLessThan(name.length());
    }

    /** Runs {@code stackfold view ARGS -o NAME.html} (the CLI, as a user does) and returns the page. */
    static Path cliPage(String name, String... args) throws Exception {
        Path f = dir.resolve(name + ".html");
        java.io.StringWriter err = new java.io.StringWriter();
        String[] all = java.util.stream.Stream.concat(java.util.stream.Stream.of("view"),
                java.util.stream.Stream.concat(java.util.Arrays.stream(args), java.util.stream.Stream.of("-o", f.toString())))
                .toArray(String[]::new);
        int rc = org.stackfold.cli.Main.run(all, new java.io.PrintWriter(new java.io.StringWriter()), new java.io.PrintWriter(err));
        assertThat(rc).as(err.toString()).isZero();
        return f;
    }

    /** Kind names of the page's frames whose name is {@code name}. */
    static Object kindOf(String name) throws Exception {
        return js("const p = window.stackfold.profile; const f = p.names.indexOf(" + WebDriverClientJson.quote(name) + ");"
                + " return f < 0 ? null : window.stackfold.kindName(f);");
    }

    @Test
    void perfScriptTextHasATimeOrderThreadsAndKernelFrames() throws Exception {
        // Real perf script output of two dd processes, mostly in the kernel.
        open(cliPage("perf-script-time", "src/test/resources/perfdata/dd.perf.txt"));
        assertThat(js("return window.stackfold.profile.timeline && window.stackfold.profile.timeline.n")).isEqualTo(259.0);
        assertThat(js("return document.querySelector('#tabs button[data-view=time]').hidden")).isEqualTo(false);
        assertThat(js("return document.getElementById('activity-wrap').hidden")).isEqualTo(false);
        @SuppressWarnings("unchecked")
        List<String> threads = (List<String>) js("return window.stackfold.profile.timeline.threads");
        assertThat(threads).anyMatch(t -> t.matches("dd \\(\\d+\\)")).hasSizeGreaterThanOrEqualTo(2);
        // Sample times are perf's (seconds.microseconds as ns), in order.
        assertThat(js("const t = window.stackfold.profile.timeline.time; for (let i = 1; i < t.length; i++) if (t[i] < t[i - 1]) return false;"
                + " return t[0] > 1e12")).isEqualTo(true);
        // Kernel frames: the kernel kind (its colour and legend), the _[k] tag out of the name.
        assertThat(kindOf("do_syscall_64")).isEqualTo("kernel");
        assertThat(kindOf("__libc_start_call_main")).isNotEqualTo("kernel");
        assertThat(js("return window.stackfold.profile.names.some((n) => n.endsWith('_[k]'))")).isEqualTo(false);
        assertThat((String) js("return document.getElementById('legend').textContent")).containsIgnoringCase("kernel");
        List<Number> kernel = colourOf("flame", "#view-flame canvas", "entry_SYSCALL_64_after_hwframe");
        List<Number> user = colourOf("flame", "#view-flame canvas", "read");
        assertThat(kernel).isNotEqualTo(user);
        browser.click("#tabs button[data-view=time]");
        assertThat(paintedPixels("#view-time canvas")).isGreaterThan(200);
        assertThat((String) js("return document.querySelector('#time-tools select option').textContent")).startsWith("thread dd (");
    }

    @Test
    void perfDataKernelFramesHaveTheKernelKind() throws Exception {
        // On another machine the kernel frames are [unknown] in [kernel.kallsyms]: kernel frames still.
        open(cliPage("perf-data-kernel", "src/test/resources/perfdata/dd.perf.data"));
        assertThat(js("const p = window.stackfold.profile; return p.names.filter((n, f) => window.stackfold.kindName(f) === 'kernel').length"))
                .satisfies(n -> assertThat(((Number) n).intValue()).isGreaterThan(0));
        assertThat(js("return window.stackfold.profile.names.some((n) => n.endsWith('_[k]'))")).isEqualTo(false);
        assertThat(js("return window.stackfold.profile.timeline.n")).isEqualTo(259.0);
    }

    /** The source view's rows as [line, self text, total text, code]. */
    @SuppressWarnings("unchecked")
    static List<List<String>> sourceRows() throws Exception {
        return (List<List<String>>) js("return [...document.querySelectorAll('#src-body tbody tr:not(.gap)')].map((r) =>"
                + " [r.dataset.line, r.cells[1].textContent, r.cells[2].textContent, r.cells[3].textContent]);");
    }

    static void showSourceOf(String name) throws Exception {
        js("const s = window.stackfold; s.state.sel = s.profile.names.indexOf(" + WebDriverClientJson.quote(name) + "); s.setView('source');");
    }

    @Test
    void theSourceViewShowsAFunctionsLinesWithWeightsAndItsText() throws Exception {
        // A real Go CPU profile with lines (pprof), its source found through --source-path.
        open(cliPage("source", "src/test/resources/viewer/source/hot.pprof", "--source-path", "src/test/resources/viewer/source"));
        assertThat(js("return document.querySelector('#tabs button[data-view=source]').hidden")).isEqualTo(false);
        // From the flame graph: select main.work, its detail panel offers its source lines.
        js("const t = window.stackfold.flame.tree, n = window.stackfold.profile.names;"
                + " for (let i = 1; i < t.n; i++) if (n[t.frame[i]] === 'main.work') { window.stackfold.flame.select(i); break; }");
        browser.click("#frame-detail button.dsource");
        waitFor("return window.stackfold.state.view === 'source'");
        List<List<String>> rows = sourceRows();
        // Lines 10-21 (3 lines of context around 13-18), each with its text; line 17 the heaviest.
        assertThat(rows.getFirst().getFirst()).isEqualTo("10");
        List<String> hot = rows.stream().filter(r -> r.get(0).equals("17")).findFirst().orElseThrow();
        assertThat(hot.get(3)).contains("b ^= (b << 7)");
        assertThat(hot.get(1)).matches("[\\d.]+ (ms|s) \\(5\\d\\.\\d\\d%\\)");
        assertThat(rows.stream().filter(r -> r.get(0).equals("16")).findFirst().orElseThrow().get(1)).contains("%");
        assertThat(rows.stream().filter(r -> r.get(0).equals("15")).findFirst().orElseThrow().get(1)).isEmpty();
        // Source text is text: the <script> in line 12 is shown, never run or parsed.
        assertThat(rows.stream().filter(r -> r.get(0).equals("12")).findFirst().orElseThrow().get(3))
                .contains("<script>document.title = \"pwned\"</script> & <b>bold</b>");
        assertThat(js("return document.querySelectorAll('#src-body script, #src-body b').length")).isEqualTo(0.0);
        assertThat(js("return document.title")).isNotEqualTo("pwned");
        // The view is in the address (reload keeps it).
        assertThat((String) js("return location.hash")).contains("v=source");
        assertThat(js("return document.getElementById('note').hidden")).isEqualTo(true);
    }

    @Test
    void theSourceViewShowsLineNumbersAloneWithoutTheFile() throws Exception {
        open(cliPage("source-nofile", "src/test/resources/viewer/source/hot.pprof", "--no-sources"));
        showSourceOf("main.work");
        List<List<String>> rows = sourceRows();
        assertThat(rows).extracting(r -> r.get(0)).contains("13", "14", "16", "17", "18").doesNotContain("10", "15");
        assertThat(rows).allMatch(r -> r.get(3).isEmpty());
        assertThat((String) js("return document.querySelector('#src-body th:last-child').textContent")).contains("line numbers only");
    }

    static void pick(String key) throws Exception {
        js("const s = document.getElementById('profile-pick'); s.value = " + WebDriverClientJson.quote(key) + ";"
                + " s.dispatchEvent(new Event('change'));");
    }

    @Test
    void severalInputsGiveOnePageThatSwitchesDiffsEitherWayAndComparesSideBySide() throws Exception {
        String evil = "<img src=x onerror=\"document.title='pwned'\">";
        Path a = dir.resolve("before.folded");
        Path b = dir.resolve("after.folded");
        Files.writeString(a, "main;a;b 10\nmain;a;c 30\nmain;d 40\n");
        Files.writeString(b, "main;a;b 50\nmain;a;c 30\nmain;e 20\nmain;" + evil + " 5\n");
        open(cliPage("compare", a.toString(), b.toString()));
        assertThat((String) js("return document.getElementById('title').textContent")).isEqualTo("before.folded | after.folded");
        @SuppressWarnings("unchecked")
        List<String> options = (List<String>) js("return [...document.querySelectorAll('#profile-pick option')].map((o) => o.textContent)");
        assertThat(options).containsExactly("before.folded", "after.folded", "diff before.folded → after.folded",
                "diff after.folded → before.folded");
        // Profile 0 first, then switch to 1: the other profile's frames, the choice in the address.
        assertThat(labels("flame")).contains("d").doesNotContain("e");
        pick("1");
        waitFor("return window.stackfold.flame.labels.includes('e')");
        assertThat((String) js("return location.hash")).contains("p=1");
        // Diffed either way: b grew from before to after (red), shrank the other way (blue).
        pick("0-1");
        waitFor("return window.stackfold.state.pv === '0-1'");
        assertThat(js("return document.querySelector('#tabs button[data-view=difftable]').hidden")).isEqualTo(false);
        List<Number> grew = colourOf("flame", "#view-flame canvas", "b");
        assertThat(grew.get(0).intValue()).isGreaterThan(grew.get(2).intValue() + 60);
        pick("1-0");
        waitFor("return window.stackfold.state.pv === '1-0'");
        List<Number> shrank = colourOf("flame", "#view-flame canvas", "b");
        assertThat(shrank.get(2).intValue()).isGreaterThan(shrank.get(0).intValue() + 60);
        // Back returns to the previous choice.
        js("history.back()");
        waitFor("return window.stackfold.state.pv === '0-1'");
        // Side by side, selection linked by the path of names; a frame missing on the other side is said so.
        pick("0");
        waitFor("return window.stackfold.state.pv === '0'");
        js("window.stackfold.setView('compare')");
        assertThat(paintedPixels("#cmp-left canvas")).isGreaterThan(200);
        assertThat(paintedPixels("#cmp-right canvas")).isGreaterThan(200);
        clickFrame("left", "#cmp-left canvas", "a");
        assertThat(js("const v = window.stackfold.sides[1]; return v.selected > 0 && v.host.names[v.tree.frame[v.selected]] === 'a'"
                + " && v.tree.total[v.zoom] === 80")).isEqualTo(true);
        clickFrame("right", "#cmp-right canvas", "b");
        assertThat(js("const v = window.stackfold.sides[0]; return v.host.names[v.tree.frame[v.selected]] + ':' + v.tree.total[v.selected]"))
                .isEqualTo("b:10");
        js("window.stackfold.sides[0].zoomTo(0)");
        clickFrame("left", "#cmp-left canvas", "d");
        assertThat((String) js("return document.getElementById('cmp-note').textContent")).isEqualTo("d is not in after.folded");
        // A hostile name stays text in every pane.
        assertThat(js("return document.querySelectorAll('img').length")).isEqualTo(0.0);
        assertThat(js("return document.title")).isNotEqualTo("pwned");
        assertThat(js("return window.stackfold.sides[1].host.names.includes(" + WebDriverClientJson.quote(evil) + ")")).isEqualTo(true);
    }

    @Test
    void aJfrRecordingsEventsAreChosenInThePage() throws Exception {
        // A JDK recording with execution samples, native method samples and allocation samples.
        open(cliPage("jfr-events", "src/test/resources/formats/jfr-heavy.jfr"));
        @SuppressWarnings("unchecked")
        List<String> options = (List<String>) js("return [...document.querySelectorAll('#profile-pick option')].map((o) => o.textContent)");
        assertThat(options).containsExactly("jfr-heavy.jfr · cpu", "jfr-heavy.jfr · native", "jfr-heavy.jfr · alloc",
                "diff jfr-heavy.jfr · cpu → jfr-heavy.jfr · native", "diff jfr-heavy.jfr · native → jfr-heavy.jfr · cpu");
        assertThat((String) js("return document.getElementById('detail').textContent")).startsWith("346 samples");
        pick("2");
        waitFor("return window.stackfold.state.pv === '2'");
        // Allocation: its own unit (bytes) and tree.
        assertThat((String) js("return document.getElementById('detail').textContent")).matches("[\\d.]+ [KMG]?i?B alloc_space in view.*");
        assertThat(labels("flame")).isNotEmpty();
        assertThat((String) js("return location.hash")).contains("p=2");
    }

    /** JSON string quoting for scripts sent to the page. */
    static final class WebDriverClientJson {
        static String quote(String s) {
            StringBuilder b = new StringBuilder("\"");
            for (char c : s.toCharArray()) {
                if (c == '"' || c == '\\') {
                    b.append('\\');
                }
                b.append(c);
            }
            return b.append('"').toString();
        }
    }
}
