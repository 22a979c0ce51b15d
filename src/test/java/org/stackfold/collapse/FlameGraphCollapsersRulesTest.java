package org.stackfold.collapse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.stackfold.io.InputException;

/** The rules of FlameGraph's other collapsers, one small input each (the golden tests cover real files). */
class FlameGraphCollapsersRulesTest {
    private static List<String> collapse(String format, String text) throws Exception {
        return CollapseTesting.collapse(format, text);
    }

    private static List<String> collapse(String format, String text, Map<String, Object> options) throws Exception {
        return CollapseTesting.collapse(format, text, CollapseTesting.options(options), new ArrayList<>());
    }

    @Test
    void gdbTakesTheNameAfterInOrTheFirstFieldAndEndsAStackAtALineThePerlRegexRejects() throws Exception {
        String text = """
                Thread 1 (Thread 0x7f (LWP 5) "x"):
                #0  0x00007f12 in poll () from /lib/libc.so.6
                #1  main () at x.c:5
                #2 short ()
                #3  0x0000 in ignored () at y.c:1
                """;
        // "#2 short ()" has too few spaces for perl's four fields: it ends the stack; #3 starts another
        assertThat(collapse("gdb", text)).containsExactly("ignored 1", "main;poll 1");
    }

    @Test
    void gdbThreadLineDropsAnUnfinishedStack() throws Exception {
        String text = "#0  0x1 in a () at a.c:1\nThread 2 (Thread 0x7f (LWP 6) \"x\"):\n#0  0x2 in b () at b.c:2\n";
        assertThat(collapse("gdb", text)).containsExactly("b 1");
    }

    @Test
    void elfutilsNamesFramesWithoutSymbolUnknownAndAddsPidAndTid() throws Exception {
        String text = "PID 7 - process\nTID 7:\n#0  0x00007f01 poll\n#1  0x00005601\n#2  0x00005602 main\nTID 8:\n#0  0x1 run\n";
        assertThat(collapse("elfutils", text)).containsExactly("main;[unknown];poll 1", "run 1");
        assertThat(collapse("elfutils", text, Map.of("pid", true, "tid", true)))
                .containsExactly("PID=7;TID=7;main;[unknown];poll 1", "PID=7;TID=8;run 1");
    }

    @Test
    void faulthandlerFramesArePathLineFunction() throws Exception {
        String text = """
                Timeout (0:00:00.050000)!
                Thread 0x00007f (most recent call first):
                  File "/a/b.py", line 4 in fib
                  File "/a/b.py", line 9 in <module>

                Current thread 0x01 (most recent call first):
                  File "/a/c.py", line 1 in run
                """;
        assertThat(collapse("faulthandler", text)).containsExactly("/a/b.py:9:<module>;/a/b.py:4:fib 1", "/a/c.py:1:run 1");
    }

    @Test
    void stapStripsAddressAndOffsetAndSumsEqualStacks() throws Exception {
        String text = """
                 0xffffffff8103ce3b : native_safe_halt+0xb/0x10 [kernel]
                 0xffffffff8101c6a3 : default_idle+0x53/0x1d0 [kernel]
                	2404

                 0xffffffff8103ce3b : native_safe_halt+0xc/0x10 [kernel]
                 0xffffffff8101c6a3 : default_idle+0x53/0x1d0 [kernel]
                	6
                 0x1 : +0x0/0x0 [kernel]
                	1
                """;
        assertThat(collapse("stap", text)).containsExactly("- 1", "default_idle;native_safe_halt 2410");
    }

    @Test
    void stapCountWithoutFramesAndFramesWithoutCountAreErrorsWithTheirLine() {
        assertThatThrownBy(() -> collapse("stap", " 0x1 : a+0x1/0x2 [kernel]\n 5\n 7\n"))
                .isInstanceOf(InputException.class).hasMessageStartingWith("test.txt:3: ")
                .hasMessageContaining("without a stack");
        assertThatThrownBy(() -> collapse("stap", " 0x1 : a+0x1/0x2 [kernel]\n 5\n 0x1 : b+0x1/0x2 [kernel]\n"))
                .isInstanceOf(InputException.class).hasMessageStartingWith("test.txt:3: ")
                .hasMessageContaining("no count line");
    }

    @Test
    void lenientSkipsAndCountsBadLines() throws Exception {
        List<String> warnings = new ArrayList<>();
        List<String> got = CollapseTesting.collapse("stap", " 0x1 : a+0x1/0x2 [kernel]\n 5\n 7\n 8\n",
                CollapseTesting.options(Map.of("lenient", true)), warnings);
        assertThat(got).containsExactly("a 5");
        assertThat(warnings).singleElement().asString().contains("skipped 2 bad lines (first: line 3:");
    }

    @Test
    void jstackCountsRunnableThreadsThatAreNotWaitingOrBackground() throws Exception {
        String text = """
                "worker-12" #20 prio=5 os_prio=0 tid=0x1 nid=0x2 runnable
                   java.lang.Thread.State: RUNNABLE
                	at com.example.Work.spin(Work.java:3)
                	at java.lang.Thread.run(Thread.java:744)

                "poller" #21 prio=5 tid=0x3 nid=0x4 runnable
                   java.lang.Thread.State: RUNNABLE
                	at sun.nio.ch.EPoll.wait(Native Method)
                	at java.lang.Thread.run(Thread.java:744)

                "sleeper" #22 prio=5 tid=0x5 nid=0x6 waiting on condition
                   java.lang.Thread.State: TIMED_WAITING (sleeping)
                	at java.lang.Thread.sleep(Native Method)

                "C2 CompilerThread0" #5 daemon prio=9 tid=0x7 nid=0x8 runnable
                   java.lang.Thread.State: RUNNABLE

                "reader" #23 prio=5 tid=0x9 nid=0xa runnable
                   java.lang.Thread.State: RUNNABLE
                	at java.net.SocketInputStream.socketRead0(Native Method)

                "VM Periodic Task Thread" tid=0xb nid=0xc runnable
                   java.lang.Thread.State: RUNNABLE

                "last" #24 prio=5 tid=0xd nid=0xe runnable
                   java.lang.Thread.State: RUNNABLE
                	at com.example.Last.run(Last.java:1)
                """;
        assertThat(collapse("jstack", text)).containsExactly("VM Periodic Task Thread 1", "last;com.example.Last.run 1",
                "worker;java.lang.Thread.run;com.example.Work.spin 1");
        assertThat(collapse("jstack", text, Map.of("includetid", true, "shortenpkgs", true)))
                .contains("worker-12;j.l.Thread.run;c.e.Work.spin 1");
    }

    @Test
    void shortenKeepsNamesWithFewerThanTwoDots() {
        assertThat(JavaFrames.shorten("org.example.Foo.bar", false)).isEqualTo("o.e.Foo.bar");
        assertThat(JavaFrames.shorten("org.example.Foo.bar", true)).isEqualTo("Foo.bar");
        assertThat(JavaFrames.shorten("Foo.bar", false)).isEqualTo("Foo.bar");
        assertThat(JavaFrames.shorten("java.base/java.lang.Integer.parseInt", false)).isEqualTo("j.b/j.l.Integer.parseInt");
    }

    @Test
    void javaExceptionsCountEachLoggedTraceAndPassOverWaitingOnLines() throws Exception {
        String text = """
                ERROR x
                java.lang.IllegalStateException: boom
                	at a.B.c(B.java:1)
                	- waiting on <0x1>
                	at a.B.main(B.java:2)
                Caused by: java.io.IOException
                	at a.D.e(D.java:3)
                	... 2 more
                """;
        assertThat(collapse("java-exceptions", text)).containsExactly("a.B.main;a.B.c 1", "a.D.e 1");
    }

    @Test
    void goNamesLocationsByFunctionOrAddressAndWeighsByTheFirstValue() throws Exception {
        String text = """
                PeriodType: space bytes
                Samples:
                objects/count space/bytes inuse/count inuse/bytes
                          3    2097152 1 2: 1 2
                          2: 3 2
                Locations
                     1: 0x410bc0 M=1 runtime.mallocgc /go/malloc.go:10 s=0
                             runtime.inlined /go/x.go:1 s=0
                     2: 0x41a770 M=1 main.main /app/main.go:5 s=0
                     3: 0x41a999 M=1\s
                Mappings
                1: 0x400000/0x4a0000/0x0 /app/prog
                """;
        assertThat(collapse("go", text)).containsExactly("main.main;0x41a999 2", "main.main;runtime.mallocgc 3");
    }

    @Test
    void chromeTracingGivesEachEventItsSelfTimeUnderItsEnclosingEvents() throws Exception {
        String text = """
                [{"pid":1,"tid":1,"ph":"X","name":"outer","ts":0,"dur":10},
                 {"pid":1,"tid":1,"ph":"X","name":"inner","ts":2,"dur":3.4},
                 {"pid":1,"tid":1,"ph":"B","name":"ignored","ts":3},
                 {"pid":1,"tid":2,"ph":"X","name":"inner","ts":0,"dur":1.2},
                 {"pid":1,"tid":1,"ph":"X","name":"no-dur","ts":5}
                """; // no closing bracket: the array layout allows it
        assertThat(collapse("chrome-tracing", text)).containsExactly("inner 1", "outer 7", "outer;inner 3");
    }

    @Test
    void chromeTracingInvalidJsonIsAnErrorWithItsLine() {
        assertThatThrownBy(() -> collapse("chrome-tracing", "{\"traceEvents\": [\n{\"ph\": X}]}"))
                .isInstanceOf(InputException.class).hasMessageStartingWith("test.txt:2: ")
                .hasMessageContaining("invalid JSON");
    }

    @Test
    void instrumentsConvertsUnitsToMillisecondsRoundingHalfToEven() throws Exception {
        String text = "Running Time\tSelf (ms)\t\tSymbol Name\n"
                + "2.0 s  100.0%\t0.5 ms\t \tstart\n"
                + "2.0 s  100.0%\t1.5 s\t \t main\n"
                + "0.1 min  5.0%\t0.01 min\t \t  tick\n"
                + "1.0 ms  0.1%\t2.5 ms\t \t frame\n";
        assertThat(collapse("instruments", text)).containsExactly("start;frame 2", "start;main 1500", "start;main;tick 600");
    }

    @Test
    void instrumentsBadRowAndSkippedLevelAreErrorsWithTheirLine() {
        assertThatThrownBy(() -> collapse("instruments", "header\n2.0 s  1.0%\t1 ms\t \tstart\nnot a row\n"))
                .isInstanceOf(InputException.class).hasMessageStartingWith("test.txt:3: ");
        assertThatThrownBy(() -> collapse("instruments", "header\n2.0 s  1.0%\t1 ms\t \tstart\n2.0 s  1.0%\t1 ms\t \t   deep\n"))
                .isInstanceOf(InputException.class).hasMessageStartingWith("test.txt:3: ")
                .hasMessageContaining("skips a level");
    }

    @Test
    void pmcIndentationSkippingALevelIsAnError() {
        assertThatThrownBy(() -> collapse("pmc", "10.0%  [5]  leaf\n   100.0%  [5]  far\n"))
                .isInstanceOf(InputException.class).hasMessageStartingWith("test.txt:2: ")
                .hasMessageContaining("skips a level");
    }

    @Test
    void ljpCountsTheLastStackWithoutATotalLine() throws Exception {
        String text = "5 2  b(B.java:1)\n      a(A.java:2)\n3 1  c(C.java:3)\n";
        assertThat(collapse("ljp", text)).containsExactly("a;b 5", "c 3");
    }

    @Test
    void wcpCountsTheLastStackWithoutABlankLine() throws Exception {
        String text = "Full stacks:\n\n50.0% ==== (7 samples)\n  1: leaf   (at a.c:1)\n  2: main   (at a.c:9)\n";
        assertThat(collapse("wcp", text)).containsExactly("main   (at a.c:9);leaf   (at a.c:1) 7");
    }

    @Test
    void vtuneMcTakesAllocationsOrBytesAndRefusesFractions() throws Exception {
        String text = VtuneMcCollapser.HEADER + "\nmain,100,0,2,app\n \"f(a, b)\",50,0,1.0,app\n";
        assertThat(collapse("vtune-mc", text)).containsExactly("main(app) 2", "main(app);f(a, b)(app) 1");
        assertThat(collapse("vtune-mc", text, Map.of("size", true))).containsExactly("main(app) 100", "main(app);f(a, b)(app) 50");
        assertThatThrownBy(() -> collapse("vtune-mc", VtuneMcCollapser.HEADER + "\nmain,1,0,0.5,app\n"))
                .isInstanceOf(InputException.class).hasMessageStartingWith("test.txt:2: ")
                .hasMessageContaining("not a whole number");
    }

    @Test
    void xdebugTimesAreWholeMicrosecondsAndAnExitWithoutEntryIsAnError() throws Exception {
        String text = "TRACE START [x]\n1\t0\t0\t0.000100\t1\t{main}\n2\t1\t0\t0.000250\t1\tf\n2\t1\tR\t\t\t5\n"
                + "2\t1\t1\t0.0003004\t1\n1\t0\t1\t0.001000\t1\n\t\t\t0.0011\t1\nTRACE END\n";
        assertThat(collapse("xdebug", text)).containsExactly("{main} 850", "{main};f 50");
        assertThat(collapse("xdebug", text, Map.of("count", true))).containsExactly("{main};f 1");
        assertThat(XdebugCollapser.micros("12.0000006".getBytes(StandardCharsets.US_ASCII), 0, 10)).isEqualTo(12_000_001);
        assertThatThrownBy(() -> collapse("xdebug", "TRACE START\n1\t0\t1\t0.1\t1\n"))
                .isInstanceOf(InputException.class).hasMessageStartingWith("test.txt:2: ");
    }

    @Test
    void perfSchedWithoutCallchainsAndWithPaddedEventLines() throws Exception {
        // plain perf script pads the command name; without -g there are no blank lines between events
        String text = """
                            app  4321 [001] 10.000000: sched:sched_switch: prev_comm=app prev_pid=4321 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
                        swapper     0 [001] 10.002000: sched:sched_stat_sleep: comm=app pid=4321 delay=2000000 [ns]
                            app  4321 [001] 10.003000: sched:sched_switch: prev_comm=app prev_pid=4321 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
                	ffffffff8100 __schedule ([kernel.kallsyms])
                	ffffffff8101 schedule ([kernel.kallsyms])

                        swapper     0 [001] 10.004500: sched:sched_stat_blocked: comm=app pid=4321 delay=1500999 [ns]
                	ffffffff8200 ttwu ([kernel.kallsyms])
                """;
        assertThat(collapse("perf-sched", text)).containsExactly("app 2000", "app;schedule;__schedule 1500");
        assertThat(collapse("perf-sched", text, Map.of("record_tid", true, "record_wake_stack", true)))
                .containsExactly("app-4321;schedule;__schedule;ttwu;swapper-0 1500", "app-4321;swapper-0 2000");
    }
}
