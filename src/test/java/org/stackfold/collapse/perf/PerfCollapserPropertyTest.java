package org.stackfold.collapse.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stackfold.io.InputException;

/** Seeded random {@code perf script} texts against a model of what they must collapse to. */
class PerfCollapserPropertyTest {
    private static final String[] COMMS = {"java", "V8 WorkerThread", "Web Content 2", "kworker/0:1", "a", "perf-exec",
            "node 12"};
    private static final String[] SYMBOLS = {"main", "foo", "bar::baz", "std::vec::Vec<T>::push", "__libc_start_main",
            "Lcom/x/Y;.run", "do_syscall_64", "[unknown]", "<impl Foo for Bar>::go", "x_y_z"};
    private static final String[] MODULES = {"/usr/bin/app", "[kernel.kallsyms]", "/lib/x86_64-linux-gnu/libc.so.6",
            "/tmp/my lib.so"};

    record Generated(byte[] text, Map<String, Long> expected) {
    }

    static Generated generate(long seed) {
        return generate(seed, true);
    }

    /** Without blank lines every sample still ends where the next event line starts. */
    static Generated generate(long seed, boolean blankLines) {
        SplittableRandom r = new SplittableRandom(seed);
        StringBuilder sb = new StringBuilder();
        Map<String, Long> expected = new TreeMap<>();
        int samples = 1 + r.nextInt(300);
        if (r.nextBoolean()) {
            sb.append("# ========\n# captured on: today\n# ========\n#\n");
        }
        for (int s = 0; s < samples; s++) {
            String comm = COMMS[r.nextInt(COMMS.length)];
            long period = 1 + r.nextInt(100000);
            sb.append(comm).append(' ').append(1 + r.nextInt(99999));
            if (r.nextBoolean()) {
                sb.append('/').append(1 + r.nextInt(99999));
            }
            if (r.nextBoolean()) {
                sb.append(String.format(" [%03d]", r.nextInt(64)));
            }
            sb.append(String.format(" %d.%06d: %10d cycles:%s\n", r.nextInt(100000), r.nextInt(1000000), period,
                    r.nextBoolean() ? " " : ""));
            int depth = r.nextInt(12);
            List<String> names = new ArrayList<>();
            for (int d = 0; d < depth; d++) {
                String sym = SYMBOLS[r.nextInt(SYMBOLS.length)];
                String mod = MODULES[r.nextInt(MODULES.length)];
                String off = r.nextBoolean() ? "+0x" + Integer.toHexString(r.nextInt(4096)) : "";
                sb.append(r.nextBoolean() ? "\t" : "        ").append(String.format("%16x", r.nextLong() & 0xffffffffffffL))
                        .append(' ').append(sym).append(sym.equals("[unknown]") ? "" : off)
                        .append(" (").append(mod).append(")\n");
                String name = sym.equals("[unknown]") ? "[" + mod.substring(mod.lastIndexOf('/') + 1) + "]" : sym;
                if (comm.startsWith("java") && name.startsWith("L") && name.contains("/")) {
                    name = name.substring(1);
                }
                names.add(name.replace(';', ':'));
            }
            StringBuilder stack = new StringBuilder(comm.replace(' ', '_'));
            for (int d = names.size() - 1; d >= 0; d--) {
                stack.append(';').append(names.get(d));
            }
            expected.merge(stack.toString(), period, Long::sum);
            boolean last = s == samples - 1;
            if (blankLines && (!last || r.nextBoolean())) {
                sb.append(r.nextInt(10) == 0 ? "  \n" : "\n");
            }
        }
        return new Generated(sb.toString().getBytes(StandardCharsets.UTF_8), expected);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
    void collapsesToTheModelOnAnyNumberOfThreads(long seed) {
        Generated g = generate(seed);
        for (int threads : new int[] {1, 2, 5}) {
            List<String> got = PerfTestSupport.collapse(g.text(), PerfTestSupport.options("", threads, 512),
                    new ArrayList<>());
            assertThat(new TreeMap<>(PerfTestSupport.counts(got))).as("threads %d", threads).isEqualTo(g.expected());
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {21, 22, 23, 24, 25})
    void samplesWithoutBlankLinesSplitAcrossThreadsToo(long seed) {
        Generated g = generate(seed, false);
        for (int threads : new int[] {1, 3}) {
            List<String> got = PerfTestSupport.collapse(g.text(), PerfTestSupport.options("", threads, 300),
                    new ArrayList<>());
            assertThat(new TreeMap<>(PerfTestSupport.counts(got))).as("threads %d", threads).isEqualTo(g.expected());
        }
    }

    /** Damaged input: strict mode fails with an InputException or succeeds; lenient mode always succeeds. */
    @ParameterizedTest
    @ValueSource(longs = {101, 102, 103, 104, 105, 106, 107, 108, 109, 110})
    void damagedInputNeverEscapesAsAnotherException(long seed) {
        byte[] text = generate(seed).text();
        SplittableRandom r = new SplittableRandom(seed);
        for (int round = 0; round < 20; round++) {
            byte[] t = text.clone();
            int damage = 1 + r.nextInt(20);
            for (int k = 0; k < damage && t.length > 0; k++) {
                t[r.nextInt(t.length)] = (byte) r.nextInt(256);
            }
            byte[] cut = java.util.Arrays.copyOf(t, r.nextInt(t.length + 1));
            assertThatCode(() -> {
                try {
                    PerfTestSupport.collapse(cut, PerfTestSupport.options("--all --addrs", 2, 256), new ArrayList<>());
                } catch (InputException expected) {
                    // a clear error is fine
                }
            }).doesNotThrowAnyException();
            assertThatCode(() -> PerfTestSupport.collapse(cut, PerfTestSupport.options("--lenient --tid", 2, 256),
                    new ArrayList<>())).doesNotThrowAnyException();
        }
    }
}
