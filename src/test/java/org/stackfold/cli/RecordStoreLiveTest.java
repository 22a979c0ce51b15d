package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.record.Privileges;

/**
 * {@code record --store} end to end with a real, short recording (skipped, with the reason, where
 * eBPF is not allowed): what lands in the table is what {@code -o} wrote, under the default labels.
 */
class RecordStoreLiveTest {
    /** About half a second of CPU in dash, whatever the machine's load. */
    private static final String BUSY = "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done";

    @TempDir
    Path dir;

    record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void aRecordedCommandIsStoredWithTheDefaultLabelsAndItsStartTime() throws IOException {
        String missing = Privileges.missing();
        assumeTrue(missing == null, missing);
        Path table = dir.resolve("fleet");
        Path folded = dir.resolve("cpu.folded");
        long before = Instant.now().getEpochSecond();
        Run r = run("record", "-F", "499", "-o", folded.toString(), "--store", table.toString(), "--label", "env=ci",
                "--", "/bin/sh", "-c", BUSY);
        long after = Instant.now().getEpochSecond();
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("stored the profile").contains("service=sh");
        assertThat(Files.readString(folded)).as("the recording has samples").isNotBlank();

        Run merged = run("query", table.toString(), "--where", "service = 'sh' and labels = 'env=ci'");
        assertThat(merged.code()).as(merged.err()).isZero();
        Run fold = run("fold", folded.toString());
        assertThat(merged.out()).isEqualTo(fold.out());

        Run row = run("query", table.toString(), "--sql",
                "SELECT DISTINCT host, profile, epoch(time)::BIGINT AS t FROM samples");
        String host = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        String[] fields = row.out().lines().skip(1).findFirst().orElseThrow().split("\t");
        assertThat(fields[0]).isEqualTo(host.replaceAll("[^A-Za-z0-9_.-]", "_"));
        assertThat(fields[1]).isEqualTo("record -- /bin/sh -c " + BUSY);
        assertThat(Long.parseLong(fields[2])).isBetween(before, after);
    }
}
