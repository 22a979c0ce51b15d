package org.stackfold.collapse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.InputException;

/** The corpus error and log cases, and bad input in general: one clear error with the line, or --lenient. */
class CollapseErrorTest {
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
            // format, resource, line, message part
            "sample, sample/inferno__collapse-sample__no-four-spaces.txt, 22, does not start with 4 spaces",
            "sample, sample/inferno__collapse-sample__odd-indentation.txt, 22, odd number",
            "sample, sample/inferno__collapse-sample__skipped-indentation.txt, 23, skips a level",
            "sample, sample/inferno__collapse-sample__end-before-call-graph-end.txt, 34, ended before the end of the call graph",
            "vtune, vtune/inferno__collapse-vtune__skipped-indentation.csv, 7, skips a level",
            "vtune, vtune/inferno__collapse-vtune__bad-stack-line.csv, 7, cannot parse stack line",
            "vsprof, vsprof/inferno__collapse-vsprof__incorrect-header.csv, 1, header",
            "vsprof, vsprof/inferno__collapse-vsprof__missing-function-name.csv, 2, missing function name",
    })
    void corpusErrorCasesFailWithTheLine(String format, String resource, int line, String what) {
        var file = CollapseTesting.resource(resource);
        assertThatThrownBy(() -> CollapseTesting.collapse(format, file, FormatOptions.none(), new ArrayList<>()))
                .isInstanceOf(InputException.class)
                .hasMessageStartingWith(file + ":" + line + ": ")
                .hasMessageContaining(what);
    }

    @Test
    void vsprofEmptyFileWarnsOnceAndWritesNothing() throws Exception {
        List<String> warnings = new ArrayList<>();
        var out = CollapseTesting.collapse("vsprof", CollapseTesting.resource("vsprof/inferno__collapse-vsprof__empty-file.csv"),
                FormatOptions.none(), warnings);
        assertThat(out).isEmpty();
        assertThat(warnings).singleElement().asString().contains("ended before the start of the call graph");
    }

    @Test
    void guessOnAnUnknownFormatIsAnError() {
        var file = CollapseTesting.resource("guess/inferno__collapse-guess__unknown-format.txt");
        assertThatThrownBy(() -> CollapseTesting.collapse("guess", file, FormatOptions.none(), new ArrayList<>()))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("no applicable collapse implementation found");
    }

    @Test
    void lenientSkipsABadLineWithItsSubtreeAndCountsIt() throws Exception {
        String text = """
                Call graph:
                    10 Thread_1
                    + 10 start  (in libdyld.dylib) + 1  [0x1]
                    +   4 main  (in app) + 2  [0x2]
                    +   x broken  (in app) + 2  [0x2]
                    +     3 under_broken  (in app) + 2  [0x2]
                    +   6 other  (in app) + 2  [0x2]
                Total number in stack
                """;
        List<String> warnings = new ArrayList<>();
        var out = CollapseTesting.collapse("sample", text, CollapseTesting.options(Map.of("lenient", true)), warnings);
        assertThat(out).containsExactly("Thread_1;libdyld`start;app`main 4", "Thread_1;libdyld`start;app`other 6");
        assertThat(warnings).singleElement().asString()
                .isEqualTo("test.txt: skipped 1 bad line (first: line 5: invalid sample count 'x')");
    }

    @Test
    void dtraceStackWithoutCountIsAnErrorAtItsFirstLine() {
        String text = "CPU ID\n\n  a`f+0x1\n  a`main+0x2\n  3\n\n  b`g+0x1\n  b`main\n";
        assertThatThrownBy(() -> CollapseTesting.collapse("dtrace", text))
                .isInstanceOf(InputException.class)
                .hasMessage("test.txt:7: input ends in the middle of the stack starting here (no count line)");
    }

    @Test
    void dtraceLenientKeepsTheGoodStacks() throws Exception {
        String text = "CPU ID\n\n  a`f+0x1\n  a`main+0x2\n  3\n\n  99999999999999999999999\n  b`main\n  2\n";
        List<String> warnings = new ArrayList<>();
        var out = CollapseTesting.collapse("dtrace", text, CollapseTesting.options(Map.of("lenient", true)), warnings);
        assertThat(out).containsExactly("a`main;a`f 3", "b`main 2");
        assertThat(warnings).singleElement().asString().contains("skipped 1 bad line (first: line 7: count");
    }

    @Test
    void recursiveBadCountNamesTheLine() {
        assertThatThrownBy(() -> CollapseTesting.collapse("recursive", "a;b 1\na;b x\n"))
                .isInstanceOf(InputException.class)
                .hasMessage("test.txt:2: count 'x' is not a whole number");
    }

    @Test
    void bpftraceEntryWithoutCount() {
        String text = "@[\n    f+1\n    main+2\n@[\n    g+1\n]: 4\n";
        assertThatThrownBy(() -> CollapseTesting.collapse("bpftrace", text))
                .isInstanceOf(InputException.class)
                .hasMessage("test.txt:1: map entry has no ']: COUNT' line before the next entry");
    }

    @Test
    void xctraceBadXmlAndDanglingRefs() {
        assertThatThrownBy(() -> CollapseTesting.collapse("xctrace",
                "<?xml version=\"1.0\"?>\n<trace-query-result><node><row><backtrace ref=\"7\"/></row></node></trace-query-result>"))
                .isInstanceOf(InputException.class)
                .hasMessageStartingWith("test.txt:2: backtrace ref 7 refers to no earlier backtrace");
        assertThatThrownBy(() -> CollapseTesting.collapse("xctrace", "<?xml version=\"1.0\"?>\n<trace-query-result><node>"))
                .isInstanceOf(InputException.class)
                .hasMessageStartingWith("test.txt:");
    }

    @Test
    void xctraceRefusesDoctypesAndExternalEntities() {
        String xxe = "<?xml version=\"1.0\"?>\n<!DOCTYPE t [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n"
                + "<trace-query-result><node><row><backtrace id=\"1\"><frame id=\"2\" name=\"&x;\"/></backtrace></row>"
                + "</node></trace-query-result>";
        assertThatThrownBy(() -> CollapseTesting.collapse("xctrace", xxe)).isInstanceOf(InputException.class);
    }

    @Test
    void ghcprofTicksOnAProfileWithoutTicks() {
        var file = CollapseTesting.resource("ghcprof/inferno__collapse-ghcprof__percent.prof");
        assertThatThrownBy(() -> CollapseTesting.collapse("ghcprof", file,
                CollapseTesting.options(Map.of("source", "ticks")), new ArrayList<>()))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("expected a 'ticks' column");
    }
}
