package org.stackfold.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.stackfold.unwind.UnwindTables;

/**
 * The walker's maps follow processes as they come and go (issue 26): a process's executable mappings
 * go into the trie with the tables of its files, a process that ends loses its prefixes, and a file's
 * table is freed once no process maps it any more (so a long recording of a whole machine does not
 * run out of the 4,096 table slots); a table shared with a live process stays. Real processes
 * ({@code sleep}), real BPF maps; each state is waited for, never a duration. Skipped where eBPF is
 * not allowed.
 */
class UnwindMapsLiveTest {
    @Test
    void tablesOfFilesNoProcessMapsAreFreed() throws Exception {
        String missing = Privileges.missing();
        assumeTrue(missing == null, missing);
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/sleep")), "no /usr/bin/sleep");
        Path cache = Files.createTempDirectory("sf-unwind-cache");
        try (UnwindMaps maps = new UnwindMaps(new TablesRowSource(new UnwindTables(cache)))) {
            maps.keepIdle(0, 0, 0); // freed at once (the next test keeps them)
            Process a = sleeper(), b = sleeper();
            try {
                assertThat(maps.refresh((int) a.pid())).isTrue();
                int one = maps.tables();
                java.util.Map<Integer, Integer> first = serials(maps);
                assertThat(first).as("slot -> serial of each table mapped").hasSizeGreaterThanOrEqualTo(3)
                        .allSatisfy((slot, serial) -> assertThat(serial).isPositive());
                // sleep, libc, ld.so (and the vDSO, which stays for the recording)
                assertThat(one).as("tables for one sleep").isGreaterThanOrEqualTo(3);
                assertThat(lpmEntries(maps)).isEqualTo(maps.prefixCount()).isPositive();
                // One batch call put the process's prefixes in (-1: this kernel has no batch commands for tries).
                assertThat(maps.batchCalls()).isIn(-1L, 1L);
                assertThat(maps.refresh((int) b.pid())).isTrue();
                assertThat(maps.tables()).as("the same files: no new tables").isEqualTo(one);
                assertThat(maps.processes()).isEqualTo(2);
                assertThat(lpmEntries(maps)).isEqualTo(maps.prefixCount());

                a.destroyForcibly().waitFor();
                maps.exited((int) a.pid());
                assertThat(maps.processes()).isEqualTo(1);
                assertThat(maps.tables()).as("still mapped by the other sleep").isEqualTo(one);
                assertThat(maps.freedTables()).isZero();
                // Only b's prefixes are left (their number depends on where ASLR put its files).
                assertThat(lpmEntries(maps)).isEqualTo(maps.prefixCount()).isPositive();

                b.destroyForcibly().waitFor();
                maps.exited((int) b.pid());
                assertThat(maps.processes()).isZero();
                assertThat(lpmEntries(maps)).as("trie entries left").isZero();
                assertThat(maps.tables()).as("only the vDSO's table is left").isLessThanOrEqualTo(1);
                assertThat(maps.freedTables()).isEqualTo(one - maps.tables());
                assertThat(maps.errors()).isEmpty();

                // A new process gets its tables again (from the freed slots' files, rebuilt).
                Process c = sleeper();
                try {
                    assertThat(maps.refresh((int) c.pid())).isTrue();
                    assertThat(maps.tables()).isEqualTo(one);
                    // The row cache's tags: a rebuilt table has a serial no earlier table had (only the
                    // vDSO's, never freed, keeps its own), so no cached row of a freed table can match.
                    java.util.Map<Integer, Integer> again = serials(maps);
                    int before = java.util.Collections.max(first.values());
                    assertThat(again.entrySet().stream().filter(e -> e.getValue() <= before)
                            .filter(e -> !first.containsKey(e.getKey()) || !first.get(e.getKey()).equals(e.getValue())))
                            .as("serials reused").isEmpty();
                    assertThat(again.values().stream().filter(v -> v > before).count())
                            .as("tables loaded again, with new serials").isGreaterThanOrEqualTo(2);
                } finally {
                    c.destroyForcibly().waitFor();
                }
                assertThat(maps.refresh((int) c.pid())).as("gone").isFalse();
                assertThat(lpmEntries(maps)).isZero();
            } finally {
                a.destroyForcibly();
                b.destroyForcibly();
            }
        } finally {
            try (var s = Files.walk(cache)) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * Process churn: the files of a process that ended stay loaded, idle, and the next process that maps
     * them gets the same tables without a read of their headers or a build; a file rewritten in place
     * (the same inode) since is read and built again, the others are still reused.
     */
    @Test
    void idleTablesAreReusedAndReadAgainWhenTheFileChanged() throws Exception {
        String missing = Privileges.missing();
        assumeTrue(missing == null, missing);
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/sleep")), "no /usr/bin/sleep");
        Path cache = Files.createTempDirectory("sf-unwind-cache");
        Path dir = Files.createTempDirectory("sf-idle");
        Path sleep = dir.resolve("sleep"); // a copy of its own (an inode no other process maps)
        Files.copy(Path.of("/usr/bin/sleep"), sleep);
        try (UnwindMaps maps = new UnwindMaps(new TablesRowSource(new UnwindTables(cache)))) {
            Process a = sleeper(sleep);
            java.util.Map<Integer, Integer> first;
            long reads;
            try {
                assertThat(maps.refresh((int) a.pid())).isTrue();
                first = serials(maps);
                reads = maps.headerReads();
                assertThat(first).as("sleep, libc, ld.so").hasSizeGreaterThanOrEqualTo(3);
                assertThat(reads).isGreaterThanOrEqualTo(3);
            } finally {
                a.destroyForcibly().waitFor();
            }
            int one = maps.tables();
            maps.exited((int) a.pid());
            assertThat(maps.processes()).isZero();
            assertThat(lpmEntries(maps)).as("trie entries left").isZero();
            assertThat(maps.tables()).as("kept loaded").isEqualTo(one);
            assertThat(maps.idleFiles()).as("all but the vDSO").isGreaterThanOrEqualTo(first.size() - 1);
            assertThat(maps.freedTables()).isZero();

            Process b = sleeper(sleep);
            try {
                assertThat(maps.refresh((int) b.pid())).isTrue();
                assertThat(serials(maps)).as("the same tables in the same slots").isEqualTo(first);
                assertThat(maps.headerReads()).as("no header read again").isEqualTo(reads);
                assertThat(maps.reused()).isGreaterThanOrEqualTo(first.size() - 1);
                assertThat(maps.idleFiles()).isLessThan(first.size());
                assertThat(maps.tables()).isEqualTo(one);
            } finally {
                b.destroyForcibly().waitFor();
            }
            maps.exited((int) b.pid());

            // Rewritten in place, as cp over an existing file does: the same inode, a new modification time.
            Object inode = Files.getAttribute(sleep, "unix:ino");
            java.nio.file.attribute.FileTime mtime = Files.getLastModifiedTime(sleep);
            Files.write(sleep, Files.readAllBytes(sleep));
            Files.setLastModifiedTime(sleep, java.nio.file.attribute.FileTime.fromMillis(mtime.toMillis() + 2_000));
            assertThat(Files.getAttribute(sleep, "unix:ino")).isEqualTo(inode);
            Process c = sleeper(sleep);
            try {
                assertThat(maps.refresh((int) c.pid())).isTrue();
                assertThat(maps.headerReads()).as("only the rewritten file read again").isEqualTo(reads + 1);
                assertThat(maps.freedTables()).as("its old table freed").isEqualTo(1);
                java.util.Map<Integer, Integer> now = serials(maps);
                int newest = java.util.Collections.max(first.values());
                assertThat(now.values().stream().filter(v -> v > newest).count()).as("one table built again").isEqualTo(1);
                assertThat(now.values().stream().filter(first::containsValue).count())
                        .as("the libraries' tables reused").isEqualTo(first.size() - 1);
                assertThat(maps.tables()).isEqualTo(one);
            } finally {
                c.destroyForcibly().waitFor();
            }
            maps.exited((int) c.pid());
            assertThat(maps.errors()).isEmpty();
        } finally {
            for (Path d : new Path[] {cache, dir}) {
                try (var s = Files.walk(d)) {
                    s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    /** A {@code sleep} that has exec'd (its maps are sleep's, not the JVM's fork): waited for, not timed. */
    private static Process sleeper() throws IOException, InterruptedException {
        return sleeper(Path.of("/usr/bin/sleep"));
    }

    private static Process sleeper(Path sleep) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(sleep.toString(), "300").start();
        Path maps = Path.of("/proc/" + p.pid() + "/maps");
        for (int i = 0; i < 10_000 && p.isAlive(); i++) {
            String m = Files.readString(maps);
            // Asleep with libc mapped: ld.so is done, the maps stay as they are.
            if (m.contains("/sleep") && m.contains("libc") && state(p.pid()) == 'S') {
                return p;
            }
            p.waitFor(1, TimeUnit.MILLISECONDS);
        }
        throw new AssertionError("sleep did not start");
    }

    private static char state(long pid) {
        return ProcFiles.state(Path.of("/proc/" + pid + "/stat"));
    }

    /** Table slot -> serial of every mapping with a table in the trie (a slot has one serial at a time). */
    private static java.util.Map<Integer, Integer> serials(UnwindMaps maps) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cur = arena.allocate(WalkerProgram.LPM_KEY_SIZE, 8);
            MemorySegment next = arena.allocate(WalkerProgram.LPM_KEY_SIZE, 8);
            MemorySegment value = arena.allocate(WalkerProgram.MAPPING_SIZE, 8);
            java.util.Map<Integer, Integer> out = new java.util.TreeMap<>();
            boolean more = maps.lpm.nextKey(null, cur);
            while (more) {
                if (maps.lpm.lookup(cur, value) && value.get(ValueLayout.JAVA_INT, 32) == WalkerProgram.KIND_TABLE) {
                    Integer old = out.put(value.get(ValueLayout.JAVA_INT, 24),
                            value.get(ValueLayout.JAVA_INT, WalkerProgram.MAPPING_SERIAL));
                    assertThat(old == null || old == value.get(ValueLayout.JAVA_INT, WalkerProgram.MAPPING_SERIAL))
                            .as("one serial a slot").isTrue();
                }
                more = maps.lpm.nextKey(cur, next);
                MemorySegment t = cur;
                cur = next;
                next = t;
            }
            return out;
        }
    }

    private static long lpmEntries(UnwindMaps maps) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cur = arena.allocate(WalkerProgram.LPM_KEY_SIZE, 8);
            MemorySegment next = arena.allocate(WalkerProgram.LPM_KEY_SIZE, 8);
            long n = 0;
            boolean more = maps.lpm.nextKey(null, cur);
            while (more) {
                n++;
                more = maps.lpm.nextKey(cur, next);
                MemorySegment t = cur;
                cur = next;
                next = t;
            }
            return n;
        }
    }
}
