package org.stackfold.format.perfdata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stackfold.cli.CliRun.run;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.cli.CliRun;
import org.stackfold.io.Input;

/**
 * perf.data through the commands (collapse, flamegraph, convert, info) on a recorded file, and bad
 * files: truncated, lying sizes and random mutations give exit code 1 with one line naming the
 * byte offset, never a stack trace, hang or out-of-memory. Assertions hold whatever the symbols of
 * the machine running them (the test file's totals, root frames and header).
 */
class PerfDataFileTest {
    private static final long TOTAL = 134L * 2004008;

    @TempDir
    Path dir;

    private static byte[] recorded() throws Exception {
        return PerfDataFileTest.class.getResourceAsStream("/perfdata/burn.perf.data").readAllBytes();
    }

    private Path write(String name, byte[] b) throws Exception {
        Path p = dir.resolve(name);
        Files.write(p, b);
        return p;
    }

    private static long total(String folded) {
        long sum = 0;
        for (String line : folded.split("\n")) {
            if (!line.isBlank()) {
                sum += Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    @Test
    void collapseWeighsByPeriodWithTheCommAsRoot() throws Exception {
        Path f = write("perf.data", recorded());
        CliRun r = run("collapse", "perf", f.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(total(r.out())).isEqualTo(TOTAL);
        assertThat(r.out().lines()).allMatch(l -> l.startsWith("burn;"));
        CliRun pid = run("collapse", "perf", "--tid", f.toString());
        assertThat(pid.out().lines()).allMatch(l -> l.startsWith("burn-5245/5245;"));
    }

    /**
     * A BPF program is named from the file's PERF_RECORD_KSYMBOL, as perf script names it, not from
     * the reading machine's kallsyms: the program was unloaded right after the recording, and another
     * loaded later at its address was what a kallsyms lookup named (main's build said {@code sf_walk}).
     */
    @Test
    void bpfProgramsAreNamedFromTheFilesKsymbolRecords() throws Exception {
        byte[] gz = PerfDataFileTest.class.getResourceAsStream("/perfdata/dd-bpf.perf.data.gz").readAllBytes();
        Path f = write("dd-bpf.perf.data", new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(gz))
                .readAllBytes());
        String expected = new String(PerfDataFileTest.class.getResourceAsStream("/perfdata/dd-bpf.perf-script-bpf.txt")
                .readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
        long perfScriptFrames = expected.lines().filter(l -> l.contains("bpf_prog_e3d4ce2bc6c6a4d5_sf_mmap+")).count();
        assertThat(perfScriptFrames).isEqualTo(4);
        for (String[] options : new String[][] {{}, {"--all"}}) {
            java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("collapse", "perf", "--count-samples"));
            args.addAll(java.util.List.of(options));
            args.add(f.toString());
            CliRun r = run(args.toArray(String[]::new));
            assertThat(r.code()).as(r.err()).isZero();
            long named = 0;
            for (String line : r.out().split("\n")) {
                if (line.contains("bpf_prog_")) {
                    // The leaf or under it: perf's dso for a BPF program is the program, so no _[k] (as the text path).
                    assertThat(line).contains(";bpf_prog_e3d4ce2bc6c6a4d5_sf_mmap").doesNotContain("sf_mmap_[k]")
                            .doesNotContainPattern("bpf_prog_(?!e3d4ce2bc6c6a4d5_sf_mmap)");
                    named += Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            assertThat(named).as(String.join(" ", options)).isEqualTo(perfScriptFrames);
        }
    }

    @Test
    void everyCommandReadsIt() throws Exception {
        Path f = write("perf.data", recorded());
        Path folded = dir.resolve("out.folded");
        CliRun c = run("convert", f.toString(), "-o", folded.toString());
        assertThat(c.code()).as(c.err()).isZero();
        assertThat(total(Files.readString(folded))).isEqualTo(TOTAL);
        Path svg = dir.resolve("out.svg");
        CliRun g = run("flamegraph", f.toString(), "-o", svg.toString());
        assertThat(g.code()).as(g.err()).isZero();
        assertThat(Files.readString(svg)).contains("<svg").contains("burn");
        CliRun i = run("info", f.toString());
        assertThat(i.code()).as(i.err()).isZero();
        assertThat(i.out()).contains("perf.data").contains("cpu-clock:pppH").contains("perf version: 6.1.192")
                .contains("cmdline: /usr/bin/perf record -F 499 -g");
    }

    @Test
    void eventFilterNamesTheSkippedSamples() throws Exception {
        Path f = write("perf.data", recorded());
        CliRun r = run("collapse", "perf", "--event-filter", "cycles", f.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().strip()).endsWith("no samples of event 'cycles'; the file has 134 of 'cpu-clock:pppH' (choose with --event-filter)");
        CliRun base = run("collapse", "perf", "--event-filter", "cpu-clock", f.toString());
        assertThat(total(base.out())).isEqualTo(TOTAL);
    }

    @Test
    void sniffedByMagicInEitherByteOrder() throws Exception {
        assertThat(PerfData.sniff("PERFILE2".getBytes(), 8)).isTrue();
        assertThat(PerfData.sniff("2ELIFREP".getBytes(), 8)).isTrue();
        assertThat(PerfData.sniff("PERFILE".getBytes(), 7)).isFalse();
        try (Input in = Input.ofBytes("x", recorded())) {
            StringWriter s = new StringWriter();
            PerfData.describe(in, new PrintWriter(s, true));
            assertThat(s.toString()).contains("LITTLE_ENDIAN").contains("hostname: vm").contains("build ids: 3");
        }
    }

    @Test
    void lyingRecordSizeNamesItsOffset() throws Exception {
        byte[] b = recorded();
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putShort(264 + 6, (short) 4);
        CliRun r = run("collapse", "perf", write("bad.data", b).toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().strip()).contains("at byte offset 264").contains("claims 4 bytes").doesNotContain("\n");
    }

    @Test
    void lyingDataSectionNamesTheHeaderField() throws Exception {
        byte[] b = recorded();
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(48, 1L << 40);
        CliRun r = run("convert", write("bad.data", b).toString(), "-o", dir.resolve("x.folded").toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().strip()).contains("at byte offset 40").contains("data section").doesNotContain("\n");
    }

    @Test
    void hugeCallchainIsAnErrorNotAnAllocation() throws Exception {
        byte[] b = recorded();
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        int at = 264;
        while (bb.getInt(at) != 9) {
            at += bb.getShort(at + 6) & 0xffff;
        }
        bb.putLong(at + 40, Long.MAX_VALUE / 4);
        CliRun r = run("collapse", "perf", write("bad.data", b).toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().strip()).contains("at byte offset " + at).contains("callchain");
    }

    @Test
    void aChainWithAnUnknownContextMarkerIsDroppedAsPerfDropsIt() throws Exception {
        // perf script prints such a sample (a JVM's stack walk can yield -1) without frames: comm alone
        byte[] b = recorded();
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        int at = 264;
        while (bb.getInt(at) != 9) {
            at += bb.getShort(at + 6) & 0xffff;
        }
        long period = bb.getLong(at + 32);
        assertThat(bb.getLong(at + 40)).isGreaterThan(1);
        bb.putLong(at + 48 + 8, -1L); // the entry after the first
        CliRun r = run("collapse", "perf", write("marker.data", b).toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(total(r.out())).isEqualTo(TOTAL);
        assertThat(r.out().lines()).contains("burn " + period);
    }

    /** A pipe's header comes as records: features, the event's name (EVENT_DESC, EVENT_UPDATE). */
    @Test
    void pipeModeHeaderRecordsNameTheEventAndTheKernel() throws Exception {
        Path f = write("clock.pipe.data", pipeRecorded());
        CliRun info = run("info", f.toString());
        assertThat(info.out()).contains("pipe mode").contains("os release: " + PIPE_RELEASE)
                .contains("event: cpu-clock:pppH").contains("cmdline: /usr/bin/perf record -q -F 199 -g -o -");
        CliRun r = run("collapse", "perf", "--event-filter=cpu-clock", f.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("counts are cpu-clock ");
        assertThat(run("collapse", "perf", "--count-samples", f.toString()).out().lines()
                .mapToLong(l -> Long.parseLong(l.substring(l.lastIndexOf(' ') + 1))).sum()).isEqualTo(159);
    }

    /**
     * A pipe keeps no copy of the vDSO: perf script names its frames from its own, and so does the
     * reader, but only where the file was recorded on the running kernel release; elsewhere they
     * stay unknown, in the vDSO (as {@code [[vdso]]}), and weigh the same.
     */
    @Test
    void pipeVdsoFramesAreNamedFromThisProcessOnlyOnTheKernelTheyWereRecordedOn() throws Exception {
        byte[] b = pipeRecorded();
        String here = run("collapse", "perf", write("clock.pipe.data", b).toString()).out();
        if (PIPE_RELEASE.equals(System.getProperty("os.version"))) {
            assertThat(here).contains("clock;__libc_start_call_main;clock_gettime@@GLIBC_2.17;__vdso_clock_gettime ");
        } else {
            assertThat(here).doesNotContain("__vdso").contains("[[vdso]]");
        }
        byte[] release = PIPE_RELEASE.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        int at = indexOf(b, release);
        assertThat(at).isPositive();
        byte[] other = "0.0.0-other".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        java.util.Arrays.fill(b, at, at + release.length, (byte) 0);
        System.arraycopy(other, 0, b, at, other.length);
        String elsewhere = run("collapse", "perf", write("other.pipe.data", b).toString()).out();
        assertThat(elsewhere).doesNotContain("__vdso")
                .contains("clock;__libc_start_call_main;clock_gettime@@GLIBC_2.17;[[vdso]] ");
        assertThat(total(elsewhere)).isEqualTo(total(here)).isEqualTo(798994875L);
    }

    private static final String PIPE_RELEASE = "6.18.44-fc-v657";

    private static byte[] pipeRecorded() throws Exception {
        return PerfDataFileTest.class.getResourceAsStream("/perfdata/clock.pipe.data").readAllBytes();
    }

    private static int indexOf(byte[] b, byte[] part) {
        for (int i = 0; i + part.length <= b.length; i++) {
            if (java.util.Arrays.equals(b, i, i + part.length, part, 0, part.length)) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void truncatedAndMutatedFilesFailInOneLine() throws Exception {
        byte[] good = recorded();
        Random random = new Random(12);
        for (int k = 0; k < 60; k++) {
            byte[] b;
            if (k % 3 == 0) {
                b = java.util.Arrays.copyOf(good, random.nextInt(good.length));
            } else {
                b = good.clone();
                for (int i = 0; i < 1 + random.nextInt(8); i++) {
                    b[random.nextInt(b.length)] = (byte) random.nextInt(256);
                }
            }
            CliRun r = run("collapse", "perf", write("m" + k + ".data", b).toString());
            assertThat(r.code()).as(r.err()).isIn(0, 1);
            assertThat(r.err()).doesNotContain("Exception").doesNotContain("internal error").doesNotContain("\tat ");
            if (r.code() == 1) {
                assertThat(r.err().strip().lines().count()).as(r.err()).isEqualTo(1);
            }
        }
    }
}
