package org.stackfold.render.viewer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.stackfold.model.Profile;

/** The page is one self-contained file: inlined modules, no requests, nothing from a profile as markup. */
class ViewerPageTest {
    static String page(Profile p, String title) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ViewerPage.write(ViewerData.of(p), new ViewerPage.Options(title, List.of("in.folded")), out);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void modulesAreInlinedDependenciesFirst() {
        String js = ViewerPage.script();
        assertThat(js).doesNotContainPattern("(?m)^import\\s").doesNotContainPattern("(?m)^export\\s");
        assertThat(js.indexOf("// ---- tree.mjs")).isLessThan(js.indexOf("// ---- data.mjs"));
        assertThat(js.indexOf("// ---- data.mjs")).isLessThan(js.indexOf("// ---- main.mjs"));
        assertThat(js).endsWith("\n").contains("// ---- main.mjs");
    }

    @Test
    void nothingIsFetchedAndOnlyNoncedScriptsRun() throws Exception {
        String html = page(ViewerDataTest.folded("a;b 1\n"), "t");
        assertThat(html).contains("default-src 'none'");
        assertThat(html).doesNotContainPattern("(src|href)=\"?(https?:)?//");
        String nonce = html.replaceAll("(?s).*script-src 'nonce-([0-9a-f]+)'.*", "$1");
        assertThat(nonce).hasSize(32);
        assertThat(html.split("<script").length - 1).isEqualTo(3);
    }

    @Test
    void aHostileTitleAndNamesStayText() throws Exception {
        String evil = "</script><img src=x onerror=alert(1)>{{SCRIPT}}";
        Profile p = ViewerDataTest.folded("main;</script><script>alert(1)</script> 3\n");
        String html = page(p, evil);
        assertThat(html).doesNotContain("<img src=x").doesNotContain("<script>alert");
        assertThat(html).contains("<title>&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;{{SCRIPT}}</title>");
        assertThat(html).contains("\\u003c/script\\u003e\\u003cimg");
        // The title's placeholder text is not expanded: the script appears once.
        assertThat(html.split("// ---- main.mjs", -1)).hasSize(2);
    }

    @Test
    void jsonEscapesEverythingThatCouldEndAScript() {
        assertThat(ViewerPage.json("a\"\\<>&\u2028\n")).isEqualTo("\"a\\\"\\\\\\u003c\\u003e\\u0026\\u2028\\u000a\"");
    }
}
