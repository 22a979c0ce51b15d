package org.stackfold.unwind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.io.InputException;
import org.stackfold.symbolize.ElfSections;

/** Building, caching (memory and disk, damaged cache files), the vDSO, and .debug_frame from a separate debug file. */
class UnwindTablesTest {
    @TempDir
    Path dir;

    private Path libc() {
        Path libc = Path.of("/lib/x86_64-linux-gnu/libc.so.6");
        assumeThat(Files.isRegularFile(libc)).as("no glibc here").isTrue();
        return libc;
    }

    @Test
    void cachedInMemoryAndOnDiskByBuildId() throws Exception {
        Path libc = libc();
        Path cache = dir.resolve("cache");
        UnwindTables tables = new UnwindTables(cache);
        UnwindTable t = tables.forFile(libc);
        assertThat(t.buildId()).isNotNull();
        assertThat(tables.forFile(libc)).isSameAs(t);
        Path file = cache.resolve(t.buildId() + ".uwt");
        assertThat(file).isRegularFile().hasSize(32 + 8L * t.rowCount());
        UnwindTable fromDisk = new UnwindTables(cache).forFile(libc);
        assertThat(fromDisk).isNotSameAs(t);
        assertThat(fromDisk.rows()).isEqualTo(t.rows());
        assertThat(fromDisk.fdeCount()).isEqualTo(t.fdeCount());
    }

    @Test
    void aMemoryBudgetForgetsTheLeastRecentlyUsedTablesAndReadsThemBackFromDisk() throws Exception {
        Path libc = libc();
        Path libm = Path.of("/lib/x86_64-linux-gnu/libm.so.6");
        assumeThat(Files.isRegularFile(libm)).as("no libm here").isTrue();
        Path cache = dir.resolve("cache");
        UnwindTables unbounded = new UnwindTables(cache);
        UnwindTable c = unbounded.forFile(libc), m = unbounded.forFile(libm);
        assertThat(unbounded.memoryBytes()).as("not counted without a budget").isZero();
        // Room for the larger table only: each file asked for forgets the other.
        long room = 8L * Math.max(c.rowCount(), m.rowCount()) + 64;
        UnwindTables tables = new UnwindTables(cache).memoryBudget(room);
        UnwindTable c1 = tables.forFile(libc);
        assertThat(tables.forFile(libc)).isSameAs(c1);
        UnwindTable m1 = tables.forFile(libm);
        assertThat(tables.memoryBytes()).isLessThanOrEqualTo(room);
        UnwindTable c2 = tables.forFile(libc);
        assertThat(c2).as("forgotten, read back from the disk cache").isNotSameAs(c1);
        assertThat(c2.rows()).isEqualTo(c.rows());
        assertThat(tables.forFile(libm)).isNotSameAs(m1);
        assertThat(tables.forFile(libm).rows()).isEqualTo(m.rows());
        assertThat(tables.memoryBytes()).isLessThanOrEqualTo(room);
        // A budget for both keeps both.
        UnwindTables both = new UnwindTables(cache).memoryBudget(2 * room);
        UnwindTable c3 = both.forFile(libc);
        both.forFile(libm);
        assertThat(both.forFile(libc)).isSameAs(c3);
    }

    @Test
    void damagedCacheFilesAreRebuilt() throws Exception {
        Path libc = libc();
        Path cache = dir.resolve("cache");
        UnwindTable t = new UnwindTables(cache).forFile(libc);
        Path file = cache.resolve(t.buildId() + ".uwt");
        byte[] bytes = Files.readAllBytes(file);
        bytes[100] ^= 1; // a flipped bit: the checksum fails
        Files.write(file, bytes);
        assertThat(new UnwindTables(cache).forFile(libc).rows()).isEqualTo(t.rows());
        assertThat(Files.readAllBytes(file)).isNotEqualTo(bytes); // rewritten
        Files.write(file, java.util.Arrays.copyOf(bytes, 40)); // cut short
        assertThat(new UnwindTables(cache).forFile(libc).rows()).isEqualTo(t.rows());
        Files.writeString(file, "not a table at all, but long enough for a header......");
        assertThat(new UnwindTables(cache).forFile(libc).rows()).isEqualTo(t.rows());
    }

    @Test
    void anUnwritableCacheKeepsTablesInMemory() throws Exception {
        Path libc = libc();
        Path notADir = Files.writeString(dir.resolve("file"), "x");
        UnwindTable t = new UnwindTables(notADir.resolve("sub")).forFile(libc);
        assertThat(t.rowCount()).isPositive();
    }

    @Test
    void notElf() throws Exception {
        Path f = Files.writeString(dir.resolve("text"), "hello, this is not an ELF file at all......................................");
        assertThatThrownBy(() -> new UnwindTables(null).forFile(f)).isInstanceOf(InputException.class).hasMessageContaining("not an ELF file");
    }

    @Test
    void vdsoOfThisMachine() {
        UnwindTable v = new UnwindTables(null).vdso();
        assumeThat(v).as("no [vdso] mapping readable here").isNotNull();
        assertThat(v.name()).isEqualTo("[vdso]");
        assertThat(v.rowCount()).isPositive();
    }

    @Test
    void debugFrameFromASeparateDebugFile() throws Exception {
        assumeThat(UnwindTableReadelfTest.onPath("gcc") && UnwindTableReadelfTest.onPath("objcopy")).as("gcc/objcopy not installed").isTrue();
        String src = """
                static volatile long sink;
                __attribute__((noinline)) long f1(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * sink; return s; }
                __attribute__((noinline)) long f2(long n) { return f1(n) + f1(n / 2); }
                __attribute__((noinline)) long f3(long n) { return f2(n) * 3; }
                __attribute__((noinline)) long f4(long n) { return f3(n) - 1; }
                __attribute__((noinline)) long f5(long n) { return f4(n) ^ 5; }
                __attribute__((noinline)) long f6(long n) { return f5(n) + f1(3); }
                __attribute__((noinline)) long f7(long n) { return f6(n) + f2(3); }
                __attribute__((noinline)) long f8(long n) { return f7(n) + f3(3); }
                __attribute__((noinline)) long f9(long n) { return f8(n) + f4(3); }
                int main(void) { return (int) f9(10); }
                """;
        Files.writeString(dir.resolve("p.c"), src);
        run("gcc", "-O2", "-g", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables", "-o", "p", "p.c");
        run("objcopy", "--only-keep-debug", "p", "p.debug");
        run("objcopy", "--strip-debug", "--add-gnu-debuglink=p.debug", "p");
        Path program = dir.resolve("p");
        ElfSections elf = ElfSections.open(program);
        assumeThat(elf.section(".debug_frame")).as("the program kept no .debug_frame").isNull();
        UnwindTable t = UnwindTables.build(program);
        assertThat(t.fdeCount()).as("FDEs from p.debug's .debug_frame").isGreaterThanOrEqualTo(10);
        // the program's few .eh_frame FDEs (_start) and every function from the debug file: readelf
        // follows the debug link too, and prints both sections
        String dump = ReadelfOracle.readelf(program);
        assertThat(dump).contains("Contents of the .debug_frame section");
        ReadelfOracle.Result r = ReadelfOracle.compare(t, elf, dump);
        assertThat(r.mismatches()).isEmpty();
        assertThat(r.fdes()).isEqualTo(t.fdeCount());
    }

    private void run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(List.of(cmd)).directory(dir.toFile()).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", cmd) + ": " + log).isZero();
    }
}
