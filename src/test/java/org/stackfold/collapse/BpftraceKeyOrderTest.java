package org.stackfold.collapse;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A bpftrace key lists its parts in any order; the stack is root first whatever the order: comm,
 * then pid and tid (in key order), then the user frames, then the kernel frames. The entries of a
 * real {@code @[kstack, ustack, comm, pid, tid]} recording are printed again, as bpftrace prints
 * them, in every order of every subset of the five parts that holds a stack.
 */
class BpftraceKeyOrderTest {
    private static final String REAL = "bpftrace/bpftrace-kstack-ustack-comm-pid-tid.txt";

    /** One map entry of the recording: its parts by name, stacks leaf first as printed. */
    record Entry(Map<String, Object> parts, long count) {
    }

    @Test
    void realRecordingKernelStackFirstInTheKey() throws Exception {
        List<String> got = CollapseTesting.collapse("bpftrace", CollapseTesting.resource(REAL),
                CollapseTesting.options(Map.of()), new ArrayList<>());
        assertThat(got).containsExactlyElementsOf(CollapseTesting.expected(
                CollapseTesting.resource("bpftrace/bpftrace-kstack-ustack-comm-pid-tid.folded")));
        assertThat(got).anyMatch(l -> l.startsWith("head;11049;11049;0x7f37f49f02ad;entry_SYSCALL_64_after_hwframe;"));
    }

    static Stream<List<String>> orders() {
        List<List<String>> all = new ArrayList<>();
        List<String> names = List.of("kstack", "ustack", "comm", "pid", "tid");
        for (int mask = 1; mask < 32; mask++) {
            List<String> subset = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                if ((mask & (1 << i)) != 0) {
                    subset.add(names.get(i));
                }
            }
            if (subset.contains("kstack") || subset.contains("ustack")) {
                permutations(subset, 0, all);
            }
        }
        return all.stream();
    }

    private static void permutations(List<String> items, int k, List<List<String>> out) {
        if (k == items.size()) {
            out.add(List.copyOf(items));
            return;
        }
        for (int i = k; i < items.size(); i++) {
            Collections.swap(items, k, i);
            permutations(items, k + 1, out);
            Collections.swap(items, k, i);
        }
    }

    @ParameterizedTest(name = "@[{0}]")
    @MethodSource("orders")
    void rootFirstWhateverTheKeyOrder(List<String> order) throws Exception {
        List<Entry> entries = entries();
        StringBuilder in = new StringBuilder("Attaching 2 probes...\n\n\n");
        Map<String, Long> expected = new TreeMap<>();
        for (Entry e : entries) {
            List<String> rendered = new ArrayList<>();
            for (String part : order) {
                rendered.add(render(e.parts().get(part)));
            }
            in.append("@[").append(String.join(", ", rendered)).append("]: ").append(e.count()).append('\n');
            List<String> stack = new ArrayList<>();
            for (String scalar : List.of("comm", "pid", "tid")) {
                // numbers keep their key order; in this recording pid == tid, so any order is one stack
                if (order.contains(scalar)) {
                    stack.add((String) e.parts().get(scalar));
                }
            }
            for (String side : List.of("ustack", "kstack")) {
                if (order.contains(side)) {
                    stack.addAll(rootFirst(e.parts().get(side)));
                }
            }
            if (stack.isEmpty()) {
                stack.add(BpftraceCollapser.NO_STACK);
            }
            expected.merge(String.join(";", stack), e.count(), Long::sum);
        }
        List<String> warnings = new ArrayList<>();
        List<String> got = CollapseTesting.collapse("bpftrace", in.toString(), CollapseTesting.options(Map.of()), warnings);
        List<String> want = expected.entrySet().stream().map(x -> x.getKey() + " " + x.getValue()).sorted().toList();
        assertThat(got).containsExactlyElementsOf(want);
        assertThat(warnings).isEmpty();
    }

    @SuppressWarnings("unchecked")
    private static List<String> rootFirst(Object stack) {
        List<String> frames = new ArrayList<>();
        for (String f : (List<String>) stack) {
            frames.add(0, f.replaceAll("\\+\\d+$", ""));
        }
        return frames;
    }

    /** As bpftrace prints a key part: a stack as a new line and one indented frame a line. */
    @SuppressWarnings("unchecked")
    private static String render(Object part) {
        if (part instanceof String s) {
            return s;
        }
        StringBuilder b = new StringBuilder();
        List<String> frames = (List<String>) part;
        if (!frames.isEmpty()) {
            b.append('\n');
            for (String f : frames) {
                b.append("    ").append(f).append('\n');
            }
        }
        return b.toString();
    }

    /** The recording's entries, parts read by their known key order (kstack, ustack, comm, pid, tid). */
    private static List<Entry> entries() throws Exception {
        String text = Files.readString(CollapseTesting.resource(REAL), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("@\\[(.*?)\\]: (\\d+)\\n", Pattern.DOTALL).matcher(text);
        List<Entry> out = new ArrayList<>();
        while (m.find()) {
            List<Object> items = new ArrayList<>();
            List<String> frames = new ArrayList<>();
            StringBuilder scalar = new StringBuilder();
            String key = m.group(1);
            for (int i = 0; i <= key.length(); i++) {
                if (i == key.length() || key.startsWith(", ", i)) {
                    items.add(frames.isEmpty() && !scalar.isEmpty() ? scalar.toString() : List.copyOf(frames));
                    frames.clear();
                    scalar.setLength(0);
                    i++;
                } else if (key.startsWith("    ", i)) {
                    int nl = key.indexOf('\n', i);
                    frames.add(key.substring(i + 4, nl));
                    i = nl;
                } else if (key.charAt(i) != '\n') {
                    scalar.append(key.charAt(i));
                }
            }
            assertThat(items).hasSize(5);
            out.add(new Entry(Map.of("kstack", items.get(0), "ustack", items.get(1), "comm", items.get(2),
                    "pid", items.get(3), "tid", items.get(4)), Long.parseLong(m.group(2))));
        }
        assertThat(out).hasSize(232);
        return out;
    }
}
