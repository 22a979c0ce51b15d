package org.stackfold.format.callgrind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.stackfold.collapse.InputFormats;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.format.SpeedscopeOracle;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;

/** Callgrind files read as speedscope's importer reads them: its own samples, real Valgrind files, each rule. */
class CallgrindFormatTest {
    static Profile read(String text, FormatOptions options) throws IOException {
        try (Input in = Input.ofBytes("t.callgrind", text.getBytes(StandardCharsets.UTF_8))) {
            return new CallgrindFormat().read(in, options);
        }
    }

    static Map<String, Long> stacks(String text) throws IOException {
        return SpeedscopeOracle.stacks(read(text, FormatOptions.none()));
    }

    @ParameterizedTest
    @CsvSource({
            "callgrind.example.log, 1, ",
            "callgrind.name-compression.log, 1, ",
            "callgrind.subposition-compression.log, 1, ",
            "callgrind.cfn-reset.log, 1, ",
            "callgrind.multiple-event-types.log, 1, ",
            "callgrind.multiple-event-types.log, 2, Memory_(bytes)",
            "callgrind.out.prog, 1, ",
            "callgrind.out.prog-multi, 1, Ir"})
    void sameStacksAndWeightsAsSpeedscope(String file, int profile, String event) throws IOException {
        String oracle = file.equals("callgrind.out.prog-multi") ? file + ".Ir.speedscope.txt" : file + ".speedscope.txt";
        java.util.List<String> warnings = new java.util.ArrayList<>();
        Profile p = SpeedscopeOracle.read("callgrind/" + file,
                FormatOptions.none().set("event", event).withWarnings(warnings::add));
        Map<String, Long> expected = SpeedscopeOracle.expected("callgrind/" + oracle, profile);
        assertThat(expected).isNotEmpty();
        Map<String, Long> ours = SpeedscopeOracle.stacks(p);
        boolean flat = warnings.stream().anyMatch(w -> w.contains("read as a flat profile"));
        // speedscope's unfolding reports more than these files hold (recursion, cfn resets): the strict
        // rule (never more cost than the file's total) wins over the oracle, and they are read flat
        assertThat(flat).as("flat").isEqualTo(java.util.Set.of("callgrind.cfn-reset.log", "callgrind.out.prog",
                "callgrind.out.prog-multi").contains(file));
        if (!flat) {
            assertThat(ours).isEqualTo(expected);
            return;
        }
        long oracleTotal = expected.values().stream().mapToLong(Long::longValue).sum();
        long ourTotal = ours.values().stream().mapToLong(Long::longValue).sum();
        assertThat(oracleTotal).isGreaterThan(ourTotal);
        assertThat(ours.keySet()).noneMatch(s -> s.contains(";"));
    }

    @Test
    void contentAndNamesSayCallgrind() throws IOException {
        assertThat(SpeedscopeOracle.detected("callgrind/callgrind.out.prog")).isEqualTo("callgrind");
        assertThat(SpeedscopeOracle.detected("callgrind/callgrind.example.log")).isEqualTo("callgrind");
        try (Input in = Input.open(SpeedscopeOracle.resource("callgrind/callgrind.out.prog").toString())) {
            assertThat(InputFormats.choose(in, null).name()).isEqualTo("callgrind");
        }
        // no "# callgrind format" line: an events: line and an fn= line
        assertThat(new CallgrindFormat().sniff("events: Ir\nfn=main\n1 2\n".getBytes(), 21)).isTrue();
        assertThat(new CallgrindFormat().sniff("main;a 1\n".getBytes(), 9)).isFalse();
        assertThat(Formats.forOutput("/tmp/x/callgrind.out.1234", null, "folded").name()).isEqualTo("callgrind");
        assertThat(Formats.forOutput("x.callgrind", null, "folded").name()).isEqualTo("callgrind");
        assertThat(Formats.forOutput("callgrind.out.1.folded", null, "folded").name()).isEqualTo("folded");
    }

    @Test
    void instructionPositionsJumpsAndHexReadLikeLinePositions() throws IOException {
        // the same program under --dump-instr=yes --collect-jumps=yes: "positions: instr line", hex
        // addresses, subpositions, jump= lines and a trailing blank after "*" (speedscope rejects that line)
        Map<String, Long> plain = SpeedscopeOracle.stacks(SpeedscopeOracle.read("callgrind/callgrind.out.prog", FormatOptions.none()));
        Map<String, Long> instr = SpeedscopeOracle.stacks(SpeedscopeOracle.read("callgrind/callgrind.out.prog-instr", FormatOptions.none()));
        for (String fn : new String[] {"main", "middle", "leaf"}) {
            assertThat(inclusive(instr, fn)).as(fn).isEqualTo(inclusive(plain, fn)).isPositive();
        }
    }

    /** Total weight of the stacks through {@code fn}, counted once per stack. */
    static long inclusive(Map<String, Long> stacks, String fn) {
        long sum = 0;
        for (Map.Entry<String, Long> e : stacks.entrySet()) {
            if (java.util.List.of(e.getKey().split(";")).contains(fn)) {
                sum += e.getValue();
            }
        }
        return sum;
    }

    @Test
    void callsCarryInclusiveCostAndChildrenShareTheParentsWeight() throws IOException {
        // b is called from a (total 10) and c (total 30); b's 40 splits 3:1 between d and e wherever b is:
        // under c 22.5 and 7.5, which become 23 and 7 as the rounded running sums go (speedscope: the same)
        String text = """
                events: Ir
                fn=main
                1 1
                cfn=a
                calls=1 1
                1 10
                cfn=c
                calls=1 1
                1 30
                fn=a
                1 0
                cfn=b
                calls=1 1
                1 10
                fn=c
                1 0
                cfn=b
                calls=1 1
                1 30
                fn=b
                1 0
                cfn=d
                calls=1 1
                1 30
                cfn=e
                calls=1 1
                1 10
                fn=d
                1 30
                fn=e
                1 10
                """;
        assertThat(stacks(text)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "main", 1L, "main;a;b;d", 8L, "main;a;b;e", 2L, "main;c;b;d", 23L, "main;c;b;e", 7L));
    }

    @Test
    void recursionStaysWithTheCallerAndRootsAreTheFunctionsNobodyCalls() throws IOException {
        String text = """
                events: Ir
                fn=f
                1 5
                cfn=f
                calls=1 1
                1 20
                fn=lonely
                1 7
                """;
        // f calls itself, so f is no root and nothing reaches it: speedscope shows only "lonely", and so
        // do we; under a root, a call back into a function on the stack stays the caller's self
        assertThat(stacks(text)).containsExactlyInAnyOrderEntriesOf(Map.of("lonely", 7L));
        // lonely calling f: speedscope's unfolding would give lonely;f 25 of a file holding 7 + 5 (f's
        // recursive inclusive cost counted again): more than the file holds, so the flat profile
        // (issue 29)
        assertThat(stacks(text.replace("fn=lonely\n1 7", "fn=lonely\n1 7\ncfn=f\ncalls=1 1\n1 25")))
                .containsExactlyInAnyOrderEntriesOf(Map.of("lonely", 7L, "f", 5L));
    }

    @Test
    void theFilesTotalsLineBoundsTheUnfolding() throws IOException {
        String text = """
                events: Ir
                fn=main
                1 10
                cfn=work
                calls=1 1
                1 90
                fn=work
                1 90
                """;
        // within the file's self costs (100): the call tree
        assertThat(stacks(text)).containsExactlyInAnyOrderEntriesOf(Map.of("main", 10L, "main;work", 90L));
        assertThat(stacks("summary: 100\n" + text + "totals: 100\n"))
                .containsExactlyInAnyOrderEntriesOf(Map.of("main", 10L, "main;work", 90L));
        // a totals: line below what the unfolding gives: never more than the file says it holds
        java.util.List<String> warnings = new java.util.ArrayList<>();
        Profile p = read(text + "totals: 50\n", FormatOptions.none().withWarnings(warnings::add));
        assertThat(warnings).anyMatch(w -> w.contains("where the file holds 50") && w.contains("flat profile"));
        assertThat(SpeedscopeOracle.stacks(p)).containsExactlyInAnyOrderEntriesOf(Map.of("main", 10L, "work", 90L));
        // the summary: line where there is no totals: line
        assertThat(stacks("summary: 50\n" + text)).containsExactlyInAnyOrderEntriesOf(Map.of("main", 10L, "work", 90L));
    }

    @Test
    void subtreesUnderATenThousandthOfTheHeaviestFunctionAreDropped() throws IOException {
        String text = """
                events: Ir
                fn=main
                1 100000
                cfn=tiny
                calls=1 1
                1 9
                fn=tiny
                1 9
                """;
        assertThat(stacks(text)).containsExactly(Map.entry("main", 100009L));
    }

    @Test
    void nameCompressionFilesAndTheCalleeResetAfterEachCall() throws IOException {
        String text = """
                # callgrind format
                events: Ir
                fl=(1) a.c
                fn=(1) main
                1 1
                cfi=(2) b.c
                cfn=(2) helper
                calls=1 1
                1 4
                calls=1 1
                1 2
                fi=(3) inline.h
                3 1
                fe=(1)
                fl=(2)
                fn=(2)
                1 4
                """;
        // the second calls= has no cfn: speedscope (like KCachegrind) forgets the callee after each call
        // and names it (unknown), which has no cost of its own, so its 2 stay main's; fi= keeps the function
        Profile p = read(text, FormatOptions.none());
        assertThat(SpeedscopeOracle.stacks(p)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "main", 4L, "main;helper", 4L));
        int helper = -1;
        for (int f = 0; f < p.frames().size(); f++) {
            if (p.frames().name(f).equals("helper")) {
                helper = f;
            }
        }
        assertThat(p.frames().file(helper)).isEqualTo("b.c");
        assertThat(p.valueTypes().getFirst().type()).isEqualTo("Ir");
    }

    @Test
    void subpositionsApplyToEveryColumnAndMissingCostsAreZero() throws IOException {
        String text = """
                positions: instr line
                events: Ir Dr
                fn=main
                0x10 5 100 7
                +4 * 20
                -2 +1 *
                16
                """;
        // Ir: 100 + 20 + 20 (the * repeats the column above) + 0 (missing)
        assertThat(stacks(text)).containsExactly(Map.entry("main", 140L));
        assertThat(SpeedscopeOracle.stacks(read(text, FormatOptions.none().set("event", "Dr"))))
                .containsExactly(Map.entry("main", 7L));
        assertThat(SpeedscopeOracle.stacks(read(text, FormatOptions.none().set("event", "1"))))
                .containsExactly(Map.entry("main", 7L));
    }

    @Test
    void timeInTensOfNanosecondsIsNanoseconds() throws IOException {
        Profile p = read("events: Time_(10ns)\nfn=main\n1 12\n", FormatOptions.none());
        assertThat(p.valueTypes().getFirst()).isEqualTo(new Profile.ValueType("time", "nanoseconds"));
        assertThat(SpeedscopeOracle.stacks(p)).containsExactly(Map.entry("main", 120L));
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> badInputs() {
        return java.util.stream.Stream.of(
                new String[] {"events: Ir\nfn=main\n1 2\nhello world\n", "t.callgrind:4: callgrind: not a callgrind line: \"hello world\""},
                new String[] {"fn=main\n1 2\n", "t.callgrind:2: callgrind: a cost line before the \"events:\" line"},
                new String[] {"events: Ir\nfn=(1)\n", "t.callgrind:2: callgrind: name (1) used before it was defined"},
                new String[] {"events: Ir\nfn=(1) a\nfn=(1) b\n", "t.callgrind:3: callgrind: name (1) defined twice (first as \"a\")"},
                new String[] {"events: Ir\nfn=a\ncfn=b\ncalls=1 1\nfn=b\n",
                        "t.callgrind:4: callgrind: \"calls=\" is not followed by the call's cost line"},
                new String[] {"events: Ir\nevents: Dr\n",
                        "t.callgrind:2: callgrind: a second \"events:\" line that differs from the first (Ir)"},
                new String[] {"events: Ir\nfn=a\n1 99999999999999999999\n",
                        "t.callgrind:3: callgrind: not a callgrind line: \"1 99999999999999999999\""},
                new String[] {"version: 1\n", "t.callgrind: callgrind: no \"events:\" line"})
                .map(a -> org.junit.jupiter.params.provider.Arguments.of((Object[]) a));
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.MethodSource("badInputs")
    void badInputIsOneLineNamingTheLine(String text, String message) {
        assertThatThrownBy(() -> read(text, FormatOptions.none()))
                .isInstanceOf(InputException.class).hasMessage(message);
    }

    @Test
    void hugeNameIdsAndLongCostLinesCostNoMemory() throws IOException {
        // ids are looked up in a map, not an array as long as the largest id
        assertThat(stacks("events: Ir\nfn=(2147483646) a\n1 2\nfn=(7) b\nfn=(2147483646)\n1 3\n"))
                .containsExactly(Map.entry("a", 5L));
        assertThat(stacks("events: Ir\nfn=a\n1 4" + " 0".repeat(200_000) + "\n")).containsExactly(Map.entry("a", 4L));
    }

    @Test
    void anUnknownEventSaysWhichThereAre() {
        assertThatThrownBy(() -> read("events: Ir Dr\nfn=a\n1 2 3\n", FormatOptions.none().set("event", "Bc")))
                .isInstanceOf(InputException.class).hasMessage("t.callgrind: callgrind: no event 'Bc'; the file has Ir, Dr");
    }

    @Test
    void mutatedRealFilesGiveAProfileOrOneInputException() throws IOException {
        byte[] original = java.nio.file.Files.readAllBytes(SpeedscopeOracle.resource("callgrind/callgrind.out.prog"));
        java.util.Random random = new java.util.Random(12);
        for (int round = 0; round < 40; round++) {
            byte[] b = original.clone();
            for (int k = 0; k < 1 + random.nextInt(20); k++) {
                b[random.nextInt(b.length)] = (byte) " \n(=+-*0123456789abcfnl#:".charAt(random.nextInt(25));
            }
            try (Input in = Input.ofBytes("m.callgrind", b)) {
                new CallgrindFormat().read(in, FormatOptions.none());
            } catch (InputException e) {
                assertThat(e.getMessage()).startsWith("m.callgrind").doesNotContain("\n");
            }
        }
    }
}
