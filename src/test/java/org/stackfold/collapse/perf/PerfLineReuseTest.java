package org.stackfold.collapse.perf;

import org.stackfold.perf.PerfOptions;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The parser reuses what it learnt from earlier lines (the line cache, the successor guesses, the
 * lines of filtered samples, the stack cache, the merge of ranges). Seeded texts built from a few
 * repeated frame lines, in changing orders, shared by Java and other processes and by counted and
 * filtered events, must collapse exactly as the sum of their samples collapsed one at a time.
 */
class PerfLineReuseTest {
    private static final String[] FRAMES = {
        "7f35a94dbdc7 Lorg/x/Y;.getSlot (/tmp/perf-339.map)",
        "7f35a962419c Lorg/x/Z;.name (/tmp/perf-339.map)",
        "ffffffff81574e48 ip_local_deliver_finish ([kernel.kallsyms])",
        "ffffffff815750c8 ip_local_deliver ([kernel.kallsyms])",
        "4004f4 main+0x14 (/usr/bin/app)",
        "400512 run (/usr/bin/app)",
        "7f1e0d49c9fc Interpreter (/tmp/perf-3236.map)",
        "7f1e0d49c9fc Interpreter (/tmp/perf-3237.map)",
        "a1 [unknown] ([unknown])",
        "7fd0 std::vec::Vec<T>::push (/lib/libx.so)",
    };
    private static final String[] OPTIONS = {"--event-filter=cycles", "--event-filter=cycles --pid --skip-after=run",
        "--event-filter=cpu-clock --tid --kernel --jit"};

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void wholeTextCollapsesAsItsSamplesOneByOne(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<String> samples = new ArrayList<>();
        int[] next = new int[FRAMES.length];
        for (int i = 0; i < next.length; i++) {
            next[i] = r.nextInt(FRAMES.length);
        }
        for (int s = 0; s < 400; s++) {
            StringBuilder sb = new StringBuilder();
            String comm = r.nextBoolean() ? "java" : "app";
            sb.append(comm).append(' ').append(100 + r.nextInt(3)).append('/').append(200 + r.nextInt(3))
                    .append(" [001] 1.").append(String.format("%06d", s)).append(": ")
                    .append(1 + r.nextInt(1000)).append(r.nextInt(4) == 0 ? " cpu-clock:\n" : " cycles:\n");
            // Mostly the usual successor, sometimes another one, so guesses are right and wrong.
            int f = r.nextInt(FRAMES.length);
            for (int d = r.nextInt(9); d > 0; d--) {
                sb.append(r.nextBoolean() ? "\t" : "        ").append(FRAMES[f]).append('\n');
                f = r.nextInt(5) == 0 ? r.nextInt(FRAMES.length) : next[f];
                if (r.nextInt(20) == 0) {
                    next[f] = r.nextInt(FRAMES.length);
                }
            }
            samples.add(sb.append('\n').toString());
        }
        for (String cli : OPTIONS) {
            Map<String, Long> oneByOne = new TreeMap<>();
            for (String sample : samples) {
                PerfTestSupport.counts(PerfTestSupport.collapse(sample, cli))
                        .forEach((k, v) -> oneByOne.merge(k, v, Long::sum));
            }
            byte[] whole = String.join("", samples).getBytes(StandardCharsets.UTF_8);
            for (int threads : new int[] {1, 2}) {
                PerfOptions opt = PerfTestSupport.options(cli, threads, 512);
                Map<String, Long> got = new TreeMap<>(PerfTestSupport.counts(
                        PerfTestSupport.collapse(whole, opt, new ArrayList<>())));
                assertThat(got).as("%s, %d threads", cli, threads).isEqualTo(oneByOne);
            }
        }
    }
}
