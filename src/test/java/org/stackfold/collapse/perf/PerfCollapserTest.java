package org.stackfold.collapse.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.stackfold.collapse.perf.PerfTestSupport.collapse;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.stackfold.io.InputException;

/** One test per rule of docs/collapse-perf.md. */
class PerfCollapserTest {
    private static final String SAMPLE = """
            java 1234/1240 [001] 100.000001:     250 cycles:
            \t    7f0000000010 Lfoo/Bar;.baz(I)V (/tmp/perf-1234.map)
            \t    7f0000000020 main+0x10 (/usr/bin/java)
            \tffffffff81000000 do_syscall_64+0x5 ([kernel.kallsyms])

            """;

    @Test
    void collapsesOneSampleRootFirstWeightedByPeriod() {
        assertThat(collapse(SAMPLE, "")).containsExactly("java;do_syscall_64;main;foo/Bar:.baz 250");
    }

    @Test
    void rootFramesOfManyInterleavedCommsKeepTheirOwnNameAndJavaRules() {
        // More comms than the parser remembers root frames for (16), Java's and others, interleaved:
        // each sample's root is its own comm, and only Java's frames get Java's naming.
        StringBuilder in = new StringBuilder();
        List<String> expected = new ArrayList<>();
        int[] count = new int[24];
        int t = 0;
        for (int round = 0; round < 3; round++) {
            // comms 0-23 in turn (past the 16 remembered), each twice in a row, with comm 0 or 1
            // again in between (remembered, found again among others)
            for (int c = 0; c < 24; c++) {
                for (int comm : new int[] {c, c, c % 2}) {
                    count[comm]++;
                    in.append(comm % 3 == 0 ? "java" : "app").append(comm).append(' ').append(100 + comm)
                            .append(" [001] 1.").append(String.format("%06d", t++)).append(": 1 cycles:\n")
                            .append("\t    7f0000000010 Lfoo/Bar;.baz(I)V (/tmp/perf-1.map)\n\n");
                }
            }
        }
        for (int c = 0; c < 24; c++) {
            String comm = (c % 3 == 0 ? "java" : "app") + c;
            expected.add(comm + (c % 3 == 0 ? ";foo/Bar:.baz " : ";Lfoo/Bar:.baz ") + count[c]);
        }
        expected.sort(null);
        assertThat(collapse(in.toString(), "")).containsExactlyElementsOf(expected);
    }

    @Test
    void pidAndTidOptions() {
        assertThat(collapse(SAMPLE, "--pid")).containsExactly("java-1234;do_syscall_64;main;foo/Bar:.baz 250");
        assertThat(collapse(SAMPLE, "--tid")).containsExactly("java-1234/1240;do_syscall_64;main;foo/Bar:.baz 250");
        String oneId = SAMPLE.replace("1234/1240", "1240");
        assertThat(collapse(oneId, "--tid")).containsExactly("java-?/1240;do_syscall_64;main;foo/Bar:.baz 250");
    }

    @Test
    void kernelAndJitAnnotations() {
        assertThat(collapse(SAMPLE, "--all"))
                .containsExactly("java;do_syscall_64_[k];main;foo/Bar:.baz_[j] 250");
        assertThat(collapse(SAMPLE, "--kernel")).containsExactly("java;do_syscall_64_[k];main;foo/Bar:.baz 250");
    }

    @Test
    void theLastSampleCountsWithoutAFinalBlankLine() {
        String two = SAMPLE + SAMPLE.strip();
        assertThat(collapse(two, "")).containsExactly("java;do_syscall_64;main;foo/Bar:.baz 500");
        assertThat(collapse(two + "\n", "--perl-compat")).containsExactly("java;do_syscall_64;main;foo/Bar:.baz 500");
    }

    @Test
    void aNewEventLineClosesASampleEvenWithoutABlankLine() {
        String in = """
                a 1 1.0: 1 cycles:
                \t1 f (/x)
                b 2 2.0: 1 cycles:
                \t2 g (/x)
                """;
        assertThat(collapse(in, "")).containsExactly("a;f 1", "b;g 1");
    }

    @Test
    void commNamesWithSpacesAndDigitWords() {
        String in = """
                V8 WorkerThread 25607 4794564.109216: 3 cycles:
                \t1 f (/x)

                Web Content 2 24636/25607 [000] 94564.109216: 7 cycles:
                \t1 f (/x)

                """;
        assertThat(collapse(in, "--pid")).containsExactly("V8_WorkerThread-?;f 3", "Web_Content_2-24636;f 7");
    }

    @Test
    void singleCharacterCommAndCommWithASecondWord() {
        // FlameGraph #259 and #57: perl misreads both.
        String in = """
                t 99076 10314749.002559: 1 cpu-clock:
                \t1 f (/x)

                CUPSManager cup 11320 186448.846888:    1008373 cpu-clock:
                \t1 f (/x)

                """;
        assertThat(collapse(in, "--pid")).containsExactly("CUPSManager_cup-?;f 1008373", "t-?;f 1");
    }

    @Test
    void paddedTracepointLinesWithAHexLookingCommAreEvents() {
        // FlameGraph #164: no callchains, comm "f" right-aligned; "f" must not read as an address.
        String in = """
                      f  9566 [001] 18490161.191157: kmem:mm_pagevec_free: page=0xffffea00269631d0 pfn=647377360 order=0 cold=0
                      f  9566 [001] 18490161.191157: kmem:mm_pagevec_free: page=0xffffea0026963198 pfn=647377304 order=0 cold=0
                      dd  9567 [001] 18490161.191158: kmem:kfree: call_site=ffffffff81092295 ptr=(nil)
                """;
        assertThat(collapse(in, "")).containsExactly("f 2");
        assertThat(collapse(in, "--event-filter=kmem:kfree")).containsExactly("dd 1");
    }

    @Test
    void intelPtTraceErrorsAreReportedNotFatal() {
        String in = " instruction trace error type 1 time 4525.744123981 cpu 0 pid 21595 tid 21595 ip 0 code 8: Lost trace data\n"
                + SAMPLE;
        List<String> warnings = new ArrayList<>();
        assertThat(PerfTestSupport.collapse(in.getBytes(StandardCharsets.UTF_8), PerfTestSupport.options(""), warnings))
                .containsExactly("java;do_syscall_64;main;foo/Bar:.baz 250");
        assertThat(warnings).singleElement().asString().contains("1 instruction trace error").contains("line 1");
    }

    @Test
    void eventsOtherThanTheFirstAreSkippedWithAWarning() {
        String in = """
                a 1 1.0: 10 instructions:
                \t1 f (/x)

                a 1 2.0: 20 cycles:
                \t1 g (/x)

                a 1 3.0: 30 instructions:u:
                \t1 h (/x)

                """;
        List<String> warnings = new ArrayList<>();
        List<String> got = PerfTestSupport.collapse(in.getBytes(StandardCharsets.UTF_8), PerfTestSupport.options(""), warnings);
        assertThat(got).containsExactly("a;f 10", "a;h 30");
        assertThat(warnings).singleElement().asString().contains("'instructions'").contains("1 of 'cycles'");
        assertThat(collapse(in, "--event-filter=cycles")).containsExactly("a;g 20");
    }

    @Test
    void tracepointEventsKeepTheirStacks() {
        String in = """
                perf 9 [001] 1.000001: sched:sched_switch: prev_comm=perf prev_pid=9 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0
                \tffffffff81000001 __schedule+0x1 ([kernel.kallsyms])
                \tffffffff81000002 schedule+0x2 ([kernel.kallsyms])

                perf 9 [001] 1.000002: sched:sched_wakeup: comm=x pid=1
                \tffffffff81000003 try_to_wake_up ([kernel.kallsyms])

                """;
        assertThat(collapse(in, "")).containsExactly("perf;schedule;__schedule 1");
        assertThat(collapse(in, "--event-filter=sched:sched_wakeup")).containsExactly("perf;try_to_wake_up 1");
    }

    @Test
    void oneLineSamplesWithoutCallchains() {
        String in = """
                           false 39654 19115.489713:          1 cycles:u:  ffffffff9b201293 [unknown] ([unknown])
                           false 39654 19115.489719:          1 cycles:      7fa68b1f2d84 _dl_start+0x4 (/usr/lib/ld-2.31.so)
                """;
        assertThat(collapse(in, "")).containsExactly("false;[unknown] 1", "false;_dl_start 1");
    }

    @Test
    void paddedOneLineSamplesOfAnotherEventDoNotHideTheNextSample() {
        String in = """
                            perf 1 [000] 1.0: 1 cycles:
                            perf 1 [000] 1.1: sched:sched_switch: prev_comm=perf
                            perf 1 [000] 1.2: 1 cycles:
                """;
        assertThat(collapse(in, "")).containsExactly("perf 2");
    }

    @Test
    void errorMessagesStayOnOneLine() {
        String in = "a 1 1.0: 1 cycles:\n\tgar\u0001bage\r\n\n";
        assertThatThrownBy(() -> collapse(in, "")).hasMessageNotContaining("\r").hasMessageNotContaining("\u0001")
                .hasMessageContaining("test.txt:2:");
    }

    @Test
    void aSampleWithoutFramesCountsUnderItsProcess() {
        assertThat(collapse("a 1 1.0: 5 cycles:\n\n", "")).containsExactly("a 5");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "7f00 foo+0x1a (/lib/x.so)|foo",
            "7f00 foo(int, char) const (/lib/x.so)|foo",
            "7f00 std::function<void (int, int)>::operator()(int, int) (/lib/x.so)|std::function<void (int, int)>::operator",
            "7f00 {lambda(int, int)#2}::operator() (/lib/x.so)|{lambda(int, int)#2}::operator",
            "7f00 (anonymous namespace)::myBar() (/lib/x.so)|(anonymous namespace)::myBar",
            "7f00 go/build.(*importReader).readByte (/usr/bin/go)|go/build.(*importReader).readByte",
            "7f00 a;b (/lib/x.so)|a:b",
            "7f00 [unknown] (/usr/lib/libc.so.6)|[libc.so.6]",
            "7f00 [unknown] ([unknown])|[unknown]",
            "7f00  (/lib/x.so)|''", // a blank name is trimmed to empty: folded text cannot keep it
            "7f00 foo (/tmp/my lib.so (deleted))|foo",
            "7f00 foo|foo",
            "7f00 std::sys::unix::fs::File::open::hb90e1c1c787080f0 (/bin/rg)|std::sys::unix::fs::File::open",
            "7f00 _$LT$std..fs..ReadDir$u20$as$u20$core..iter..Iterator$GT$::next::hc14f1750ca79129b (/bin/rg)|<std::fs::ReadDir as core::iter::Iterator>::next",
    })
    void frameNames(String line, String name) {
        String in = "a 1 1.0: 1 cycles:\n\t" + line + "\n\n";
        assertThat(collapse(in, "")).containsExactly("a;" + name + " 1");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "7f00 std::function<void (int, int)>::operator()(int, int) (/lib/x.so)|'std::function<void '",
            "7f00 (anonymous namespace)::myBar() (/lib/x.so)|",
            "7f00 _$LT$std..fs..ReadDir$GT$::next::hc14f1750ca79129b (/bin/rg)|_$LT$std..fs..ReadDir$GT$::next::hc14f1750ca79129b",
    })
    void perlCompatNames(String line, String name) {
        String in = "a 1 1.0: 1 cycles:\n\t" + line + "\n\n";
        assertThat(collapse(in, "--perl-compat")).containsExactly(name == null ? "a 1" : "a;" + name + " 1");
    }

    @Test
    void addrsShowsTheAddressOfUnknownSymbols() {
        String in = "a 1 1.0: 1 cycles:\n\t7f01 [unknown] (/usr/lib/libc.so.6)\n\t7f02 [unknown] ([unknown])\n\n";
        assertThat(collapse(in, "--addrs")).containsExactly("a;[unknown <7f02>];[libc.so.6 <7f01>] 1");
    }

    @Test
    void javaInliningSplitsFramesAndTagsTheInlinedOnes() {
        String in = "java 1 1.0: 1 cycles:\n\t7f01 Lfoo/A;.a->Lfoo/B;.b->Lfoo/C;.c (/tmp/perf-1.map)\n\t7f02 main (/bin/java)\n\n";
        assertThat(collapse(in, "--jit")).containsExactly("java;main;foo/A:.a_[j];foo/B:.b_[i];foo/C:.c_[i] 1");
    }

    @Test
    void kernelModulesAndVersionedVmlinux() {
        String in = """
                swapper 0 [012] 1.0: 1 cycles:
                \tffffffffc087cbc9 mlx5e_xdp_handle+0xa9 (/lib/modules/5.4/kernel/mlx5_core.ko)
                \tffffffffb8f03eaa net_rx_action+0x13a (/usr/lib/debug/boot/vmlinux-5.4.14-cloudflare-2020.1.11)
                \t7f00 user (/bin/x)

                """;
        assertThat(collapse(in, "--kernel")).containsExactly("swapper;user;net_rx_action_[k];mlx5e_xdp_handle_[k] 1");
        assertThat(collapse(in, "--kernel --perl-compat")).containsExactly("swapper;user;net_rx_action;mlx5e_xdp_handle 1");
    }

    @Test
    void simpleperfJitCacheModulesAreJitNotKernel() {
        // FlameGraph #262: simpleperf's module "[JIT app cache]" has spaces.
        String in = """
                com.google.android.apps.maps    21452/21452 [007] 11371.483014: 201198 cpu-clock:
                        ffffff9c807ad35c __schedule ([kernel.kallsyms])
                              7b0da4f360 syscall (/apex/com.android.runtime/lib64/bionic/libc.so)
                                9c51fd34 java.lang.String.hashCode ([JIT app cache])

                """;
        assertThat(collapse(in, "--all"))
                .containsExactly("com.google.android.apps.maps;java.lang.String.hashCode_[j];syscall;__schedule_[k] 201198");
    }

    @Test
    void jitdumpModulesAreJit() {
        String in = "a 1 1.0: 1 cycles:\n\tf719f4a4 fib.smx::fib+0x3c (/tmp/jitted-31714-4145673320.so)\n\n";
        assertThat(collapse(in, "--jit")).containsExactly("a;fib.smx::fib_[j] 1");
    }

    @Test
    void skipAfterDropsTheCallersAndTheProcess() {
        String in = "a 1 1.0: 1 cycles:\n\t1 leaf (/x)\n\t2 run (/x)\n\t3 main (/x)\n\n";
        assertThat(collapse(in, "--skip-after=run")).containsExactly("run;leaf 1");
        assertThat(collapse(in, "--skip-after=nothere")).containsExactly("a;main;run;leaf 1");
        String cpp = "a 1 1.0: 1 cycles:\n\t1 leaf (/x)\n\t2 ns::run(int)+0x1 (/x)\n\t3 main (/x)\n\n";
        assertThat(collapse(cpp, "--skip-after=ns::run(int)")).containsExactly("ns::run;leaf 1");
        assertThat(collapse(cpp, "--skip-after=ns::run")).containsExactly("ns::run;leaf 1");
    }

    @Test
    void srclineAddsTheSourceLocationBeforeTheAnnotation() {
        String in = """
                a.out 35081 252436.005167:     667783 cycles:
                                  408ebb some_method+0x8b (/full/path/a.out)
                  uniform_int_dist.h:300
                         ffffffff814f9302 up_write+0x32 ([kernel.kallsyms])
                  [kernel.kallsyms][ffffffff814f9302]
                            7f6d2148eb25 __libc_start_main+0xd5 (/lib64/libc-2.33.so)
                  libc-2.33.so[27b25]

                """;
        assertThat(collapse(in, "--srcline --kernel"))
                .containsExactly("a.out;__libc_start_main:libc-2.33.so;up_write_[k];some_method:uniform_int_dist.h:300 667783");
        assertThat(collapse(in, "--srcline --kernel --perl-compat"))
                .containsExactly("a.out;__libc_start_main:libc-2.33.so;up_write_[k];some_method:uniform_int_dist.h:300 667783");
    }

    @Test
    void crlfLineEndings() {
        assertThat(collapse(SAMPLE.replace("\n", "\r\n"), "--kernel"))
                .containsExactly("java;do_syscall_64_[k];main;foo/Bar:.baz 250");
    }

    @Test
    void sideBandRecordsAreNotSamples() {
        String in = """
                perf 1234 [000] 0.000001: PERF_RECORD_MMAP2 1234/1234: [0x400000(0x1000) @ 0 08:01 1 0]: r-xp /bin/x
                perf 1234 [000] 0.000002: PERF_RECORD_COMM exec: x:1234/1234
                x 1234 [000] 1.0: 3 cycles:
                \t1 f (/bin/x)

                """;
        assertThat(collapse(in, "")).containsExactly("x;f 3");
    }

    @Test
    void srclineOrderAroundTheKernelTag() {
        String in = "a 1 1.0: 1 cycles:\n\tffffffff81000000 vfs_read+0x1 ([kernel.kallsyms])\n  fs/read_write.c:100\n\n";
        assertThat(collapse(in, "--srcline --kernel")).containsExactly("a;vfs_read:fs/read_write.c:100_[k] 1");
        assertThat(collapse(in, "--srcline --kernel --perl-compat")).containsExactly("a;vfs_read_[k]:fs/read_write.c:100 1");
    }

    @Test
    void anInputWithoutSamplesSaysSo() {
        List<String> warnings = new ArrayList<>();
        assertThat(PerfTestSupport.collapse("# just a header\n\n".getBytes(StandardCharsets.UTF_8),
                PerfTestSupport.options(""), warnings)).isEmpty();
        assertThat(warnings).singleElement().asString().contains("no samples found");
        warnings.clear();
        assertThat(PerfTestSupport.collapse(new byte[0], PerfTestSupport.options(""), warnings)).isEmpty();
        assertThat(warnings).isEmpty();
    }

    @Test
    void commentsAndHeadersAreSkipped() {
        assertThat(collapse("# ========\n# cmdline : /usr/bin/perf record -g\n" + SAMPLE, ""))
                .containsExactly("java;do_syscall_64;main;foo/Bar:.baz 250");
    }

    @Test
    void badLinesFailWithTheirLineNumber() {
        String in = "a 1 1.0: 1 cycles:\n\t1 f (/x)\n\tTHIS_IS_A_WEIRD_LINE\n\n";
        assertThatThrownBy(() -> collapse(in, ""))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("test.txt:3:")
                .hasMessageContaining("THIS_IS_A_WEIRD_LINE");
    }

    @Test
    void lenientSkipsAndCountsBadLines() {
        String in = "garbage here\na 1 1.0: 1 cycles:\n\t1 f (/x)\n\tTHIS_IS_A_WEIRD_LINE\n\n";
        List<String> warnings = new ArrayList<>();
        List<String> got = PerfTestSupport.collapse(in.getBytes(StandardCharsets.UTF_8),
                PerfTestSupport.options("--lenient"), warnings);
        assertThat(got).containsExactly("a;f 1");
        assertThat(warnings).singleElement().asString().contains("skipped 2 unrecognised lines").contains("line 1");
    }

    @Test
    void errorLineNumbersCountFromTheStartOfTheFileAcrossThreads() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 2000; i++) {
            sb.append(SAMPLE);
        }
        sb.append("a 1 1.0: 1 cycles:\n\tnot a frame at all\n\n");
        byte[] in = sb.toString().getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> PerfTestSupport.collapse(in, PerfTestSupport.options("", 4, 4096), new ArrayList<>()))
                .hasMessageContaining("test.txt:" + (2000 * 5 + 2) + ":");
    }

    @Test
    void quotesAreKeptByDefaultAndDeletedInPerlMode() {
        String in = "a 1 1.0: 1 cycles:\n\t1 f<'a> (/x)\n\n";
        assertThat(collapse(in, "")).containsExactly("a;f<'a> 1");
        assertThat(collapse(in, "--perl-compat")).containsExactly("a;f<a> 1");
    }

    @Test
    void detectRecognisesPerfScriptOnly() {
        PerfCollapser c = new PerfCollapser();
        byte[] perf = SAMPLE.getBytes(StandardCharsets.UTF_8);
        assertThat(c.detect(perf, perf.length)).isTrue();
        byte[] folded = "a;b;c 1\n".getBytes(StandardCharsets.UTF_8);
        assertThat(c.detect(folded, folded.length)).isFalse();
        byte[] dtrace = "CPU     ID                    FUNCTION:NAME\n  0  64091                        :tick-60s\n"
                .getBytes(StandardCharsets.UTF_8);
        assertThat(c.detect(dtrace, dtrace.length)).isFalse();
    }
}
