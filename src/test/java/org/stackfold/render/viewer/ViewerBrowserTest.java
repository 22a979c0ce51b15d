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
