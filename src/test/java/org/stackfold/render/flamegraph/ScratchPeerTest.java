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

class ScratchPeerTest {
    static final String D = "/tmp/peers/inferno/tests/data/flamegraph/";
    static final String VX = D + "unsorted-input/perf-vertx-stacks-01-collapsed-all-unsorted.txt";
    static final String DIFF = D + "differential/perf-cycles-instructions-01-collapsed-all-diff.txt";
    static final String CYC = "/work/shared/corpus/flamegraph/inputs/fg__test__results__perf-cycles-instructions-01-collapsed-all.txt";
    @TempDir Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {
        "factor/factor-2.5.svg|" + VX + "|--factor|2.5|--hash",
        "narrow-blocks/narrow-blocks.svg|" + D + "narrow-blocks/narrow-blocks.txt|--hash",
        "options/font_type_with_quote.svg|" + DIFF + "|--fonttype|Andale Mono\"",
        "options/font_type_sans-serif.svg|" + DIFF + "|--fonttype|sans-serif",
        "options/stroke_color.svg|" + DIFF + "|--stroke-color|#7d7d7d",
        "fractional-samples/with-space-reversed.svg|" + D + "fractional-samples/with-space.txt|--hash|--reverse",
        "colors/js.svg|/tmp/peers/FlameGraph/test/results/perf-js-stacks-01-collapsed-all.txt|--colors|js|--bgcolors|green|--hash",
        "differential/diff-negated.svg|" + DIFF + "|--negate",
        "nameattr/nameattr_duplicate_attributes.svg|" + CYC + "|--hash|--nameattr|" + D + "nameattr/nameattr_duplicate_attributes.txt",
        "nameattr/nameattr.svg|" + CYC + "|--hash|--nameattr|" + D + "nameattr/nameattr_empty_attribute.txt",
        "options/count_name_with_symbols.svg|" + DIFF + "|--countname|test-samples <& ' \"",
        "options/name_type_with_backslash.svg|" + DIFF + "|--nametype|Test: \\",
        "perf-vertx-stacks/perf-vertx-stacks-01-collapsed-all.svg|" + D + "multiple-inputs/perf-vertx-stacks-01-collapsed-all-unsorted-1.txt|" + D + "multiple-inputs/perf-vertx-stacks-01-collapsed-all-unsorted-2.txt|--hash",
    })
    void peer(String spec) throws Exception {
        String[] p = spec.split("\\|");
        Path out = tmp.resolve("o.svg");
        List<String> args = new ArrayList<>(List.of("flamegraph", "--compat", "inferno", "-o", out.toString()));
        for (int i = 1; i < p.length; i++) args.add(p[i]);
        StringWriter err = new StringWriter();
        int rc = Main.run(args.toArray(String[]::new), new PrintWriter(new StringWriter()), new PrintWriter(err));
        if (rc != 0) throw new AssertionError(err.toString());
        var want = SvgFrames.parse(Files.readAllBytes(Path.of(D + p[0])));
        var got = SvgFrames.parse(Files.readAllBytes(out));
        FlameGraphGoldenTest.compare(new FlameGraphGoldenTest.Case(p[0], "inferno", "", "", true, List.of()), want, got);
    }
}
