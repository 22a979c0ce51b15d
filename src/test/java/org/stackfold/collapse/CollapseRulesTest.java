package org.stackfold.collapse;

import org.stackfold.perf.RustSymbols;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** One test per rule of the collapsers (see docs/collapse.md). */
class CollapseRulesTest {
    private static List<String> dtraceFrames(String line, boolean includeOffset) {
        ArrayList<String> leafFirst = new ArrayList<>();
        DtraceCollapser.addFrames(line, includeOffset, leafFirst);
        return leafFirst.reversed();
    }

    @Test
    void rustSymbolsAreRepaired() {
        assertThat(RustSymbols.fix("_$LT$grep_searcher..searcher..glue..ReadByLine$LT$$u27$s$C$$u20$M$C$$u20$R$C$$u20$S$GT$$GT$::run::h30ecedc997ad7e32"))
                .isEqualTo("<grep_searcher::searcher::glue::ReadByLine<'s, M, R, S>>::run");
        assertThat(RustSymbols.fix("std::rt::lang_start::_$u7b$$u7b$closure$u7d$$u7d$::h7cd9ec399e9db3f7"))
                .isEqualTo("std::rt::lang_start::_{{closure}}");
        assertThat(RustSymbols.fix("main")).isNull();
        assertThat(RustSymbols.fix("foo::hxyz0000000000000")).isNull(); // not hex
        assertThat(RustSymbols.fix("a$ZZ$b::h0123456789abcdef")).isEqualTo("a$ZZ$b"); // unknown escape kept
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "TestClass::TestClass2(const char*)[__1cJTestClass2t6Mpkc_v_]|TestClass::TestClass2",
            "TestClass::TestClass2<blargh>(const char*)[__1c]|TestClass::TestClass2<blargh>",
            "ns::f<int>|ns::f",
            "plain(int)|plain(int)",
            "(x)::f|(x)::f",
    })
    void dtraceCppArgumentsAreCut(String in, String out) {
        assertThat(DtraceCollapser.uncpp(in)).isEqualTo(out);
    }

    @Test
    void dtraceFrameRules() {
        assertThat(dtraceFrames("genunix`syscall_mstate+0x5d", false)).containsExactly("genunix`syscall_mstate");
        assertThat(dtraceFrames("a`f;g+0x1", false)).containsExactly("a`f:g");
        assertThat(dtraceFrames("+0x1", false)).containsExactly("-");
        assertThat(dtraceFrames("libjvm.so`Lcom/a/B;->Lcom/a/C;", false))
                .containsExactly("libjvm.so`Lcom/a/B:", "com/a/C:_[i]");
        assertThat(dtraceFrames("app`foo::bar::h0123456789abcdef+0x12", false)).containsExactly("app`foo::bar");
        assertThat(dtraceFrames("app`foo::bar::h0123456789abcdef+0x12", true)).containsExactly("app`foo::bar+0x12");
    }

    @Test
    void dtraceIncludeOffsetKeepsAllButTheLeafOffset() throws Exception {
        String text = "CPU ID\n\n  a`leaf+0x1\n  a`mid+0x2\n  a`main+0x3\n  7\n";
        assertThat(CollapseTesting.collapse("dtrace", text, CollapseTesting.options(Map.of("includeoffset", true)),
                new ArrayList<>())).containsExactly("a`main+0x3;a`mid+0x2;a`leaf 7");
        assertThat(CollapseTesting.collapse("dtrace", text)).containsExactly("a`main;a`mid;a`leaf 7");
    }

    @Test
    void dtraceEqualStacksAddUp() throws Exception {
        String text = "h\n\n  a`f+0x1\n  a`main+0x3\n  7\n\n  a`f+0x9\n  a`main+0x4\n  5\n";
        assertThat(CollapseTesting.collapse("dtrace", text)).containsExactly("a`main;a`f 12");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "start  (in libdyld.dylib) + 1  [0x7fff737cf3d5]|false|libdyld`start",
            "start  (in libdyld.dylib) + 1  [0x7fff737cf3d5]|true|start",
            "rg::main::h6909bd3a32e27a08  (in rg) + 34  [0x1038445a2]|false|rg`rg::main",
            "Thread_15758535|false|Thread_15758535",
            "f (.llvm.1)  (in a.out) + 1|false|a.out`f",
    })
    void sampleFrames(String text, boolean noModules, String frame) {
        assertThat(SampleCollapser.frame(text, noModules)).isEqualTo(frame);
    }

    @Test
    void sampleDropsWaitingLeavesAndWeighsLeavesByTheirCount() throws Exception {
        String text = """
                Call graph:
                    9 Thread_1
                    + 9 start  (in libdyld.dylib) + 1  [0x1]
                    +   5 work  (in app) + 2  [0x2]
                    +   4 mach_msg_trap  (in libsystem_kernel.dylib) + 2  [0x2]
                Total number in stack
                """;
        assertThat(CollapseTesting.collapse("sample", text)).containsExactly("Thread_1;libdyld`start;app`work 5");
    }

    @Test
    void vtuneWeighsSelfTimeInMilliseconds() throws Exception {
        String text = """
                Function Stack,CPU Time:Self,Module
                Total,0.0,[Unknown]
                 main,0.0015,app
                  "f(int, int)",0.0024,app
                """;
        assertThat(CollapseTesting.collapse("vtune", text)).containsExactly(
                "[Unknown]`Total;app`main 2", "[Unknown]`Total;app`main;app`f(int, int) 2");
        assertThat(CollapseTesting.collapse("vtune", text, CollapseTesting.options(Map.of("nomodules", true)),
                new ArrayList<>())).containsExactly("Total;main 2", "Total;main;f(int, int) 2");
    }

    @Test
    void vsprofCallerKeepsCallsMinusTheCallee() throws Exception {
        String text = VsprofCollapser.HEADER + "\n"
                + "0,\"app.exe\",0,100.00,0.00,0.00,0.00,\"\",\n"
                + "1,\"A()\",500,100.00,0.00,0.00,0.00,\"app.exe\",\n"
                + "2,\"B()\",300,50.00,0.00,0.00,0.00,\"app.exe\",\n"
                + "1,\"C()\",\"1,200\",10.00,0.00,0.00,0.00,\"app.exe\",\n";
        assertThat(CollapseTesting.collapse("vsprof", text)).containsExactly("A() 200", "A();B() 300", "C() 1200");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "471,91.25|471",
            ",471,91.25|471",
            "\"2,893,824\",54.37|2893824",
            "\"2.893.824\",54.37|2893824",
    })
    void vsprofNumbers(String field, long value) throws Exception {
        assertThat(VsprofCollapser.nextNumber(field, 0)[0]).isEqualTo(value);
    }

    @Test
    void vsprofNumbersWithoutSeparatorsAreBad() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> VsprofCollapser.nextNumber("1234,", 0))
                .hasMessageContaining("thousands separator");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> VsprofCollapser.nextNumber("\"1,234.567\",", 0))
                .hasMessageContaining("cannot parse");
    }

    @Test
    void recursiveMergesOnlyDirectRecursion() throws Exception {
        assertThat(CollapseTesting.collapse("recursive", "a;r;r;r;h 1\na;r;h 2\nco;rec;co;rec 3\nx 4\n"))
                .containsExactly("a;r;h 3", "co;rec;co;rec 3", "x 4");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "chacha_permute+525|false|chacha_permute",
            "chacha_permute+525|true|chacha_permute+525",
            "0x55e1c0de|false|0x55e1c0de",
            "7f1234 main+38 (/tmp/busy)|false|main",
            "7f1234 [unknown] (/usr/lib/libc.so.6)|false|[unknown]",
            "operator+|false|operator+",
            "a;b+0x10|false|a:b",
    })
    void bpftraceFrames(String text, boolean includeOffset, String frame) {
        assertThat(BpftraceCollapser.frame(text, includeOffset)).isEqualTo(frame);
    }

    @Test
    void bpftraceNameThenNumbersThenStacksRootFirst() throws Exception {
        String text = """
                Attaching 2 probes...


                @[1234,
                    leaf+1
                    main+2
                , busy,
                    kleaf+3
                    entry+4
                ]: 5
                @[busy]: 2
                @[]: 3
                @count: 10
                """;
        assertThat(CollapseTesting.collapse("bpftrace", text)).containsExactly(
                "[no stack] 3", "busy 2", "busy;1234;main;leaf;entry;kleaf 5");
    }

    @Test
    void bccMergesDuplicateLinesAndHandlesTheDelimiter() throws Exception {
        String text = "p;main;read;-;sys_read;vfs_read 1\np;main;read;-;sys_read;vfs_read 2\np;main;work 4\n";
        assertThat(CollapseTesting.collapse("bcc", text)).containsExactly(
                "p;main;read;sys_read;vfs_read 3", "p;main;work 4");
        assertThat(CollapseTesting.collapse("bcc", text, CollapseTesting.options(Map.of("annotations", true)),
                new ArrayList<>())).containsExactly("p;main;read;sys_read_[k];vfs_read_[k] 3", "p;main;work 4");
        assertThat(CollapseTesting.collapse("bcc", text, CollapseTesting.options(Map.of("keepdelimiter", true)),
                new ArrayList<>())).containsExactly("p;main;read;-;sys_read;vfs_read 3", "p;main;work 4");
    }

    @Test
    void bccDedupKernelLeafOnlyTouchesKernelFrames() throws Exception {
        String text = "p;f;f 1\np;main;-;vfs_read;vfs_read 2\np;main;vfs_read_[k];vfs_read_[k] 3\n";
        assertThat(CollapseTesting.collapse("bcc", text, CollapseTesting.options(Map.of("dedupkernelleaf", true)),
                new ArrayList<>())).containsExactly("p;f;f 1", "p;main;vfs_read 2", "p;main;vfs_read_[k] 3");
    }

    @Test
    void ghcprofTimeIsTenthsOfAPercentTruncated() throws Exception {
        String text = """
                COST CENTRE MODULE SRC no. entries %time %alloc %time %alloc

                MAIN        MAIN   <b>  1   0       0.7    0.0  100.0  100.0
                 f          M      x.hs 2   1      99.3   100.0   99.3  100.0
                """;
        assertThat(CollapseTesting.collapse("ghcprof", text)).containsExactly("MAIN.MAIN 7", "MAIN.MAIN;M.f 993");
    }
}
