package org.stackfold.symbolize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Linker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.model.FrameKind;

/** Live processes: this JVM and a child running the test program. */
class ProcessSnapshotTest {
    private static final Path PROC = Path.of("/proc");
    private static final int SELF = (int) ProcessHandle.current().pid();

    @Test
    void mapsAreReadWholeIntoAReusedBufferThatGrows(@TempDir Path dir) throws IOException {
        byte[] text = new byte[200_000];
        new java.util.Random(7).nextBytes(text);
        Path f = Files.write(dir.resolve("maps"), text);
        byte[][] buffer = {new byte[16]};
        int n = ProcessSnapshot.readInto(f, buffer);
        assertThat(n).isEqualTo(text.length);
        assertThat(java.util.Arrays.copyOf(buffer[0], n)).isEqualTo(text);
        byte[] grown = buffer[0];
        Path small = Files.write(dir.resolve("small"), new byte[] {1, 2, 3});
        assertThat(ProcessSnapshot.readInto(small, buffer)).isEqualTo(3);
        assertThat(buffer[0]).isSameAs(grown);
        assertThat(ProcessSnapshot.readInto(Path.of("/proc/self/maps"), buffer)).isGreaterThan(100);
    }

    @Test
    void aLibcFunctionOfThisProcessIsNamed() throws IOException {
        long getpid = Linker.nativeLinker().defaultLookup().find("getpid").orElseThrow().address();
        try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT).askJvmsForPerfMaps(false)) {
            SymbolFrame f = s.process(SELF).symbolize(getpid + 1).getLast();
            assertThat(f.function()).isIn("getpid", "__getpid");
            assertThat(f.offset()).isEqualTo(1);
            assertThat(f.kind()).isEqualTo(FrameKind.NATIVE);
            assertThat(f.module()).endsWith("libc.so.6");
        }
    }

    @Test
    void aSnapshotOutlivesTheProcessAndItsDeletedFile(@TempDir Path dir) throws Exception {
        Path program = dir.resolve("victim");
        Files.copy(NativeTools.program(), program);
        Process child = new ProcessBuilder(program.toString(), "wait").start();
        Map<String, Long> where = new HashMap<>();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            for (String kv : out.readLine().split(" ")) {
                String[] p = kv.split("=");
                where.put(p[0], Long.parseUnsignedLong(p[1].substring(2), 16));
            }
            Files.delete(program);
            try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT)) {
                AddressSymbolizer snapshot = s.process((int) child.pid());
                child.getOutputStream().close();
                assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(Files.exists(PROC.resolve(Long.toString(child.pid())))).isFalse();
                SymbolFrame top = snapshot.symbolize(where.get("top_compute") + 4).getLast();
                assertThat(top.function()).isIn("top_compute", "top_alias");
                assertThat(top.offset()).isEqualTo(4);
                assertThat(top.module()).isEqualTo(program.toString());
                assertThat(snapshot.symbolize(where.get("sort_values")).getLast().function()).isEqualTo("sort_values");
                assertThat(snapshot.symbolize(where.get("main") + 3).getLast().function()).isEqualTo("main");
                assertThat(s.process((int) child.pid())).isSameAs(snapshot);
            }
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void theVdsoIsReadFromTheProcessMemory() throws IOException {
        String vdso = Files.readAllLines(PROC.resolve("self/maps")).stream().filter(l -> l.endsWith("[vdso]"))
                .findFirst().orElse(null);
        assumeThat(vdso).as("a [vdso] mapping").isNotNull();
        String[] range = vdso.substring(0, vdso.indexOf(' ')).split("-");
        long start = Long.parseUnsignedLong(range[0], 16);
        long end = Long.parseUnsignedLong(range[1], 16);
        try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT).askJvmsForPerfMaps(false)) {
            AddressSymbolizer self = s.process(SELF);
            boolean named = false;
            for (long a = start; a < end && !named; a += 4) {
                SymbolFrame f = self.symbolize(a).getLast();
                assertThat(f.module()).isEqualTo("[vdso]");
                named = f.function().contains("gettimeofday") || f.function().contains("clock_gettime");
            }
            assertThat(named).isTrue();
        }
    }

    @Test
    void anonymousExecutableMemoryIsNamedByThePerfMap(@TempDir Path tmp) throws IOException {
        String anon = Files.readAllLines(PROC.resolve("self/maps")).stream()
                .filter(l -> l.split("\\s+").length == 5 && l.split("\\s+")[1].contains("x")).findFirst().orElse(null);
        assumeThat(anon).as("an anonymous executable mapping (the JIT code cache)").isNotNull();
        long start = Long.parseUnsignedLong(anon.substring(0, anon.indexOf('-')), 16);
        Files.writeString(tmp.resolve("perf-" + SELF + ".map"),
                Long.toHexString(start + 0x40) + " 20 void Hot.main(java.lang.String[])\n");
        try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT, PROC, tmp, List.of()).askJvmsForPerfMaps(false)) {
            AddressSymbolizer self = s.process(SELF);
            assertThat(self.symbolize(start + 0x48)).containsExactly(new SymbolFrame(
                    "void Hot.main(java.lang.String[])", 8, null, 0, FrameKind.JIT,
                    tmp.resolve("perf-" + SELF + ".map").toString(), false));
            assertThat(self.symbolize(start + 0x60).getFirst()).extracting(SymbolFrame::function, SymbolFrame::kind)
                    .containsExactly(Symbolizer.UNKNOWN, FrameKind.JIT);
        }
    }

    @Test
    void aMissingProcessIsAOneLineError() {
        try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT)) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.process(Integer.MAX_VALUE))
                    .isInstanceOf(org.stackfold.io.InputException.class).hasMessageContaining("no such process");
        }
    }
}
