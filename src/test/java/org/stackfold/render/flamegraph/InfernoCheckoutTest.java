package org.stackfold.render.flamegraph;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stackfold.cli.Main;
import org.junit.jupiter.api.io.TempDir;

/**
 * More of inferno's own flame graph test cases, run against a local checkout of inferno (and of
 * FlameGraph for two inputs) when one is named: {@code -Dstackfold.inferno=DIR -Dstackfold.flamegraph=DIR}.
 * Skipped otherwise; nothing of those repositories is stored here.
 */
class InfernoCheckoutTest {
    // In the cases below "@I/" is inferno's tests/data/flamegraph/ and "@F/" FlameGraph's test/results/.
    static final String D = "@I/";
    static final String FG_RESULTS = "@F/";
    static final String VX = D + "unsorted-input/perf-vertx-stacks-01-collapsed-all-unsorted.txt";
    static final String DIFF = D + "differential/perf-cycles-instructions-01-collapsed-all-diff.txt";
    static final String CYC = FG_RESULTS + "perf-cycles-instructions-01-collapsed-all.txt";
    @TempDir Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {
        "factor/factor-2.5.svg|" + VX + "|--factor|2.5|--hash",
        "narrow-blocks/narrow-blocks.svg|" + D + "narrow-blocks/narrow-blocks.txt|--hash",
        "options/font_type_with_quote.svg|" + DIFF + "|--fonttype|Andale Mono\"",
        "options/font_type_sans-serif.svg|" + DIFF + "|--fonttype|sans-serif",
        "options/stroke_color.svg|" + DIFF + "|--stroke-color|#7d7d7d",
        "fractional-samples/with-space-reversed.svg|" + D + "fractional-samples/with-space.txt|--hash|--reverse",
        "colors/js.svg|" + FG_RESULTS + "perf-js-stacks-01-collapsed-all.txt|--colors|js|--bgcolors|green|--hash",
        "differential/diff-negated.svg|" + DIFF + "|--negate",
        "nameattr/nameattr_duplicate_attributes.svg|" + CYC + "|--hash|--nameattr|" + D + "nameattr/nameattr_duplicate_attributes.txt",
        "nameattr/nameattr.svg|" + CYC + "|--hash|--nameattr|" + D + "nameattr/nameattr_empty_attribute.txt",
        "options/count_name_with_symbols.svg|" + DIFF + "|--countname|test-samples <& ' \"",
        "options/name_type_with_backslash.svg|" + DIFF + "|--nametype|Test: \\",
        "perf-vertx-stacks/perf-vertx-stacks-01-collapsed-all.svg|" + D + "multiple-inputs/perf-vertx-stacks-01-collapsed-all-unsorted-1.txt|" + D + "multiple-inputs/perf-vertx-stacks-01-collapsed-all-unsorted-2.txt|--hash",
    })
    void peer(String spec) throws Exception {
        String inf = System.getProperty("stackfold.inferno"), fg = System.getProperty("stackfold.flamegraph");
        org.junit.jupiter.api.Assumptions.assumeTrue(inf != null && fg != null,
                "set -Dstackfold.inferno=DIR and -Dstackfold.flamegraph=DIR (checkouts) to run inferno's extra cases");
        String[] p = spec.replace("@I/", inf + "/tests/data/flamegraph/").replace("@F/", fg + "/test/results/").split("\\|");
        Path out = tmp.resolve("o.svg");
        List<String> args = new ArrayList<>(List.of("flamegraph", "--compat", "inferno", "-o", out.toString()));
        for (int i = 1; i < p.length; i++) args.add(p[i]);
        StringWriter err = new StringWriter();
        int rc = Main.run(args.toArray(String[]::new), new PrintWriter(new StringWriter()), new PrintWriter(err));
        if (rc != 0) throw new AssertionError(err.toString());
        var want = SvgFrames.parse(Files.readAllBytes(Path.of(inf + "/tests/data/flamegraph/" + p[0])));
        var got = SvgFrames.parse(Files.readAllBytes(out));
        FlameGraphGoldenTest.compare(new FlameGraphGoldenTest.Case(p[0], "inferno", "", "", true, List.of()), want, got);
    }
}
