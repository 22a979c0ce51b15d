package org.stackfold.unwind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.stackfold.symbolize.ElfSections;

/**
 * Tables against {@code readelf --debug-dump=frames-interp}, row for row, on the system's own files
 * (each skipped where absent), the vDSO, and programs built here with gcc/g++ (a C++ program whose
 * CFI uses remember_state/restore_state, a signal-handler program).
 */
class UnwindTableReadelfTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {
            "/lib/x86_64-linux-gnu/libc.so.6",
            "/lib64/ld-linux-x86-64.so.2",
            "/lib/x86_64-linux-gnu/liblzma.so.5",
            "/usr/bin/xz",
            "/usr/bin/python3.11",
            "/usr/lib/jvm/temurin-25-jdk-amd64/lib/server/libjvm.so"})
    void systemFile(String name) throws Exception {
        Path file = Path.of(name);
        assumeThat(Files.isRegularFile(file)).as(name + " is not on this machine").isTrue();
        agree(file.toRealPath());
    }

    @Test
    void vdso() throws Exception {
        byte[] image = ElfSections.ownVdsoImage();
        assumeThat(image).as("no [vdso] mapping readable here").isNotNull();
        Path f = dir.resolve("vdso.so");
        Files.write(f, image);
        ReadelfOracle.Result r = agree(f);
        assertThat(r.fdes()).isPositive();
    }

    @Test
    void cxxWithRememberState() throws Exception {
        String src = """
                #include <stdexcept>
                #include <string>
                #include <vector>
                __attribute__((noinline)) int pick(std::vector<int>& v, int n) {
                    int s = 0;
                    for (int i = 0; i < n; i++) {
                        if (v[i] < 0) return -1;
                        if (v[i] == 7) throw std::runtime_error(std::to_string(i));
                        s += v[i] * i;
                    }
                    return s;
                }
                int main(int argc, char**) {
                    std::vector<int> v(100, argc);
                    try { return pick(v, 100) > 0 ? 0 : 1; } catch (const std::exception& e) { return 2; }
                }
                """;
        Path program = build("remember.cc", src, "g++", "-O2");
        String dump = ReadelfOracle.readelf(program);
        // the case this program exists for
        assertThat(new ProcessBuilder("readelf", "--debug-dump=frames", program.toString()).start().inputReader().lines()
                .anyMatch(l -> l.contains("DW_CFA_remember_state"))).as("g++ emitted remember_state").isTrue();
        agree(program, dump);
    }

    @Test
    void signalHandlerProgram() throws Exception {
        String src = """
                #include <signal.h>
                #include <string.h>
                #include <sys/time.h>
                static volatile long hits, sink;
                __attribute__((noinline)) static void work(int n) { for (int i = 0; i < n; i++) sink += i; }
                static void handler(int sig) { hits++; work(1000); }
                int main(void) {
                    struct sigaction sa; memset(&sa, 0, sizeof sa); sa.sa_handler = handler;
                    sigaction(SIGPROF, &sa, 0);
                    struct itimerval t = {{0, 1000}, {0, 1000}}; setitimer(ITIMER_PROF, &t, 0);
                    while (hits < 10) work(100000);
                    return 0;
                }
                """;
        agree(build("sig.c", src, "gcc", "-O2", "-fomit-frame-pointer"));
    }

    @Test
    void libcSignalTrampolineIsASignalRowStartingOneByteEarly() throws Exception {
        Path libc = Path.of("/lib/x86_64-linux-gnu/libc.so.6");
        assumeThat(Files.isRegularFile(libc)).as("no glibc here").isTrue();
        UnwindTable t = UnwindTables.build(libc);
        long signalRows = 0;
        for (int i = 0; i < t.rowCount(); i++) {
            if (UnwindRow.cfa(t.row(i)) == UnwindRow.CFA_SIGNAL) {
                signalRows++;
                ElfSections elf = ElfSections.open(libc);
                // one byte before the FDE, which glibc starts at the nop before __restore_rt
                long pc = UnwindRow.pc(t.row(i));
                assertThat(List.of(elf.bytesAt(pc + 1, 9), elf.bytesAt(pc + 2, 9)))
                        .anySatisfy(b -> assertThat(b).isEqualTo(CfiParser.SIGRETURN));
            }
        }
        assertThat(signalRows).isEqualTo(1);
    }

    private Path build(String name, String src, String compiler, String... flags) throws Exception {
        assumeThat(onPath(compiler)).as(compiler + " is not installed").isTrue();
        Path source = dir.resolve(name);
        Files.writeString(source, src);
        Path out = dir.resolve(name.substring(0, name.indexOf('.')));
        List<String> cmd = new java.util.ArrayList<>(List.of(compiler));
        cmd.addAll(List.of(flags));
        cmd.addAll(List.of("-o", out.toString(), source.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(log).isZero();
        return out;
    }

    private ReadelfOracle.Result agree(Path file) throws Exception {
        assumeThat(onPath("readelf")).as("readelf (binutils) is not installed").isTrue();
        return agree(file, ReadelfOracle.readelf(file));
    }

    private ReadelfOracle.Result agree(Path file, String dump) throws Exception {
        UnwindTable table = UnwindTables.build(file);
        ReadelfOracle.Result r = ReadelfOracle.compare(table, ElfSections.open(file), dump);
        assertThat(r.fdes()).as("FDEs readelf lists vs the table's").isEqualTo(table.fdeCount());
        assertThat(r.mismatches()).as(file + ": " + r.rowsCompared() + " addresses compared").isEmpty();
        System.out.println(file + ": " + table + "; " + r.rowsCompared() + " addresses agree with readelf");
        return r;
    }

    static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }
}
