package org.stackfold.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The unwind worker's reader of whole /proc files ({@link ProcReader}): the same text as the JDK reads, one buffer reused. */
class ProcReaderTest {
    @Test
    void readsProcFilesAsTheJdkDoes() throws Exception {
        ProcReader r = new ProcReader();
        long pid = ProcessHandle.current().pid();
        assertThat(r.read("/proc/self/stat")).startsWith(pid + " (");
        // A file the JDK would read short (size 0 in stat), and one that does not change between two reads.
        assertThat(r.read("/proc/self/cmdline")).isEqualTo(ProcFiles.read(Path.of("/proc/self/cmdline")));
        Process sleep = new ProcessBuilder("sleep", "30").start();
        try {
            String maps = "/proc/" + sleep.pid() + "/maps";
            // Asleep with libc mapped: ld.so is done, its maps stay as they are (waited for, not timed).
            for (int i = 0; i < 10_000 && !(ProcFiles.read(Path.of(maps)).contains("libc")
                    && ProcFiles.state(Path.of("/proc/" + sleep.pid() + "/stat")) == 'S'); i++) {
                sleep.waitFor(1, java.util.concurrent.TimeUnit.MILLISECONDS);
            }
            String a = r.read(maps);
            assertThat(a).isNotNull().isEqualTo(ProcFiles.read(Path.of(maps)));
        } finally {
            sleep.destroyForcibly().waitFor();
        }
    }

    @Test
    void growsItsBufferAndReusesIt(@TempDir Path dir) throws Exception {
        ProcReader r = new ProcReader();
        StringBuilder big = new StringBuilder();
        Random random = new Random(7);
        while (big.length() < 300_000) {
            big.append(Long.toHexString(random.nextLong())).append(" /usr/lib/x86_64-linux-gnu/libc.so.6\n");
        }
        Path f = dir.resolve("big");
        Files.writeString(f, big);
        assertThat(r.read(f.toString())).isEqualTo(big.toString());
        Path small = dir.resolve("small");
        Files.writeString(small, "7f00-7f01 r-xp 00000000 08:01 12 /bin/sh\n");
        assertThat(r.read(small.toString())).as("no bytes left from the longer read").isEqualTo(Files.readString(small));
        Files.write(small, new byte[0]);
        assertThat(r.read(small.toString())).isEmpty();
    }

    @Test
    void namesThatAreNotUtf8AreReplacedNotThrown(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("latin1");
        Files.write(f, "7f00-7f01 r-xp 00000000 08:01 12 /opt/caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
        assertThat(new ProcReader().read(f.toString())).contains("/opt/caf\ufffd");
    }

    @Test
    void aFileThatIsNotThereIsNull() {
        ProcReader r = new ProcReader();
        assertThat(r.read("/proc/999999999/maps")).isNull();
        assertThat(r.gone()).isTrue();
        assertThat(r.read("/proc/self/stat")).isNotNull();
        assertThat(r.errno()).isZero();
    }
}
