package org.stackfold.collapse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.format.FormatOptions;

/**
 * Records bpftrace and BCC {@code profile} output live and collapses it: the sample total must
 * equal the sum of the raw counts. Opt-in ({@code STACKFOLD_LIVE_EBPF=1}) because it needs root,
 * the tools (Debian {@code bpftrace}, {@code bpfcc-tools} + kernel headers, see
 * docs/collapse.md) and a few CPU-seconds; otherwise skipped with the reason. The checked-in
 * recordings in {@code src/test/resources/collapse/{bpftrace,bcc}} are the permanent fixtures.
 */
class EbpfLiveRecordingTest {
    @TempDir
    Path dir;

    private static void assumeLive(String tool) {
        assumeThat(System.getenv("STACKFOLD_LIVE_EBPF")).as("set STACKFOLD_LIVE_EBPF=1 to record live").isEqualTo("1");
        assumeThat(System.getProperty("user.name")).as("BPF needs root").isEqualTo("root");
        assumeThat(Files.isExecutable(Path.of(tool))).as(tool + " is installed").isTrue();
    }

    /** A shell loop burning CPU for a few seconds; the caller destroys it. */
    private static Process busy() throws Exception {
        return new ProcessBuilder("sh", "-c", "i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done")
                .redirectErrorStream(true).start();
    }

    private static long rawTotal(List<String> lines, String countPrefix) {
        long sum = 0;
        for (String l : lines) {
            int at = l.lastIndexOf(countPrefix);
            if (at >= 0 && l.substring(at + countPrefix.length()).trim().matches("\\d+")) {
                sum += Long.parseLong(l.substring(at + countPrefix.length()).trim());
            }
        }
        return sum;
    }

    private static long foldedTotal(List<String> folded) {
        return folded.stream().mapToLong(l -> Long.parseLong(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    @Test
    void bpftraceRecordingCollapses() throws Exception {
        assumeLive("/usr/bin/bpftrace");
        Process p = busy();
        try {
            Path out = dir.resolve("bt.txt");
            Process bt = new ProcessBuilder("bpftrace", "-e", "profile:hz:99 /pid == " + p.pid()
                    + "/ { @[comm, ustack, kstack] = count(); } interval:s:2 { exit(); }")
                    .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            assertThat(bt.waitFor(120, TimeUnit.SECONDS)).as("bpftrace ended").isTrue();
            List<String> raw = Files.readAllLines(out);
            assumeThat(rawTotal(raw, "]: ")).as("bpftrace recorded samples").isPositive();
            List<String> folded = CollapseTesting.collapse("bpftrace", out, FormatOptions.none(), new ArrayList<>());
            assertThat(foldedTotal(folded)).isEqualTo(rawTotal(raw, "]: "));
            assertThat(folded).allSatisfy(l -> assertThat(l).startsWith("sh"));
        } finally {
            p.destroy();
        }
    }

    @Test
    void bccProfileRecordingCollapses() throws Exception {
        assumeLive("/usr/sbin/profile-bpfcc");
        Process p = busy();
        try {
            Path out = dir.resolve("bcc.txt");
            Process bcc = new ProcessBuilder("profile-bpfcc", "-F", "99", "-f", "-d", "-p", Long.toString(p.pid()), "2")
                    .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            assertThat(bcc.waitFor(180, TimeUnit.SECONDS)).as("profile-bpfcc ended").isTrue();
            List<String> raw = Files.readAllLines(out);
            assumeThat(rawTotal(raw, " ")).as("BCC recorded samples (kernel headers installed?)").isPositive();
            List<String> folded = CollapseTesting.collapse("bcc", out, FormatOptions.none(), new ArrayList<>());
            assertThat(foldedTotal(folded)).isEqualTo(rawTotal(raw, " "));
            assertThat(folded).noneMatch(l -> l.contains(";-;"));
        } finally {
            p.destroy();
        }
    }
}
