package org.stackfold.transform;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.stackfold.format.folded.FoldedReader;
import org.stackfold.format.folded.FoldedWriter;
import org.stackfold.io.Input;
import org.stackfold.model.CallTree;
import org.stackfold.model.Profile;
import org.stackfold.render.viewer.ViewerData;

/**
 * One set of rules for the viewer and the CLI: the viewer's transform JavaScript (tree.mjs, with the
 * URL state parsed by state.mjs) run under node, and the Java transforms a viewer URL replays to
 * ({@code --transforms}: FocusPath, ShowFrom, Hide, Ignore, CollapseRecursion on the page's frame
 * numbers), on the same corpus profiles and chains, give the same folded stacks.
 */
class TransformAgreementTest {
    static final Path NODE = Path.of("/usr/bin/node");
    static final Path VIEWER = Path.of("src/main/resources/org/stackfold/render/viewer");
    static final Path SCRIPT = Path.of("src/test/resources/org/stackfold/transform/viewer-transforms.mjs");

    /** Corpus profiles (FlameGraph's and inferno's test data, see src/test/resources/flamegraph/README.md). */
    static final List<String> PROFILES = List.of(
            "flamegraph/perl/inputs/fg__test__results__perf-cycles-instructions-01-collapsed-all.txt",
            "flamegraph/perl/inputs/fg__test__results__perf-java-stacks-01-collapsed-all.txt",
            "flamegraph/perl/inputs/fg__test__results__perf-vertx-stacks-01-collapsed-all.txt",
            "flamegraph/inferno/inputs/inferno__flamegraph__austin__flames.txt",
            "collapse/recursive/inferno__collapse-recursive__basic.txt");

    static Stream<Arguments> cases() throws Exception {
        List<Arguments> all = new ArrayList<>();
        for (String name : PROFILES) {
            Profile p = read(name);
            Picks k = picks(p);
            for (String hash : List.of("focus:" + k.path, "focusfn:" + k.middle, "merge:" + k.middle, "drop:" + k.leaf,
                    "rec:" + k.recursive, "merge:" + k.recursive, "focusfn:" + k.second + ",merge:" + k.leaf,
                    "rec:" + k.recursive + ",drop:" + k.middle, "merge:" + k.second + ",focus:" + k.path,
                    "drop:" + k.leaf + ",focusfn:" + k.recursive + ",rec:" + k.recursive)) {
                all.add(Arguments.of(name, hash));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} t={1}")
    @MethodSource("cases")
    void viewerAndJavaGiveTheSameStacks(String name, String hash) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(NODE), "node is not installed (.ci/run installs it)");
        Profile p = read(name);
        int[] order = ViewerData.frameOrder(p);
        int[] number = new int[p.frames().size()];
        Arrays.fill(number, -1);
        for (int i = 0; i < order.length; i++) {
            number[order[i]] = i;
        }
        StringBuilder json = new StringBuilder("{\"names\":[");
        for (int i = 0; i < order.length; i++) {
            json.append(i == 0 ? "" : ",").append(quote(p.frames().name(order[i])));
        }
        json.append("],\"stacks\":[");
        CallTree t = p.tree();
        boolean first = true;
        for (int n = 1; n < t.size(); n++) {
            if (t.self(n) == 0) {
                continue;
            }
            int[] stack = t.stack(n);
            json.append(first ? "" : ",").append("[[");
            for (int d = 0; d < stack.length; d++) {
                json.append(d == 0 ? "" : ",").append(number[stack[d]]);
            }
            json.append("],").append(t.self(n)).append(']');
            first = false;
        }
        json.append("],\"hash\":").append(quote("t=" + hash)).append('}');
        Process node = new ProcessBuilder(NODE.toString(), SCRIPT.toString(), VIEWER.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (var in = node.getOutputStream()) {
            in.write(json.toString().getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(node.waitFor()).isZero();
        var result = new com.fasterxml.jackson.core.JsonFactory().createParser(out);
        List<String> viewer = new ArrayList<>();
        int transforms = -1;
        while (result.nextToken() != null) {
            if (result.currentToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME && result.currentName().equals("transforms")) {
                result.nextToken();
                transforms = result.getIntValue();
            } else if (result.currentToken() == com.fasterxml.jackson.core.JsonToken.VALUE_STRING) {
                viewer.add(result.getText());
            }
        }
        assertThat(transforms).as("the viewer parsed every transform of " + hash).isEqualTo(hash.split(",").length);
        Profile replayed = new org.stackfold.cli.ViewerTransforms(hash).apply(read(name));
        ByteArrayOutputStream folded = new ByteArrayOutputStream();
        new FoldedWriter(false).write(replayed, folded);
        List<String> java = new ArrayList<>(folded.toString(StandardCharsets.UTF_8).lines().toList());
        java.sort(null);
        viewer.sort(null);
        assertThat(java).as("%s t=%s", name, hash).isEqualTo(viewer);
    }

    static Profile read(String name) throws Exception {
        Path path = Path.of("src/test/resources").resolve(name);
        return new FoldedReader(FoldedReader.Mode.PLAIN, true, 1, w -> { }).read(Input.open(path.toString())).profile();
    }

    /** Frame numbers of the page to transform: along the heaviest stack, and a recursive one where there is one. */
    record Picks(String path, int second, int middle, int leaf, int recursive) {
    }

    static Picks picks(Profile p) {
        int[] order = ViewerData.frameOrder(p);
        int[] number = new int[p.frames().size()];
        for (int i = 0; i < order.length; i++) {
            number[order[i]] = i;
        }
        CallTree t = p.tree();
        int heaviest = 1;
        int recursive = -1;
        for (int n = 1; n < t.size(); n++) {
            if (t.self(n) > t.self(heaviest)) {
                heaviest = n;
            }
            if (recursive < 0 && t.self(n) > 0) {
                int[] s = t.stack(n);
                for (int i = 0; i < s.length && recursive < 0; i++) {
                    for (int j = i + 1; j < s.length; j++) {
                        if (s[j] == s[i]) {
                            recursive = number[s[i]];
                            break;
                        }
                    }
                }
            }
        }
        int[] s = t.stack(heaviest);
        StringBuilder path = new StringBuilder();
        for (int d = 0; d < Math.min(2, s.length); d++) {
            path.append(d == 0 ? "" : ".").append(number[s[d]]);
        }
        int middle = number[s[s.length / 2]];
        return new Picks(path.toString(), number[s[Math.min(1, s.length - 1)]], middle, number[s[s.length - 1]],
                recursive >= 0 ? recursive : middle);
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
