package org.stackfold.symbolize;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.stackfold.model.FrameKind;

/** A JVM target: the snapshot asks it for its perf map (jcmd Compiler.perfmap) and names JIT code by it. */
class JvmPerfMapTest {
    @Test
    void aJvmIsAskedForItsPerfMapAndItsJitCodeIsNamed() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-XX:+UseSerialGC", "-cp",
                System.getProperty("java.class.path"), JitSpinner.class.getName()).start();
        Path map = Path.of("/tmp/perf-" + child.pid() + ".map");
        try {
            String ready = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertThat(ready).startsWith("ready");
            Files.deleteIfExists(map);
            try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT)) {
                // Passive: a JVM whose attach listener does not run is not asked (jcmd would SIGQUIT it).
                s.process((int) child.pid());
                assertThat(map).doesNotExist();
                s.forget((int) child.pid());
                // The test's own child: start its listener the way jcmd does, then the symbolizer asks it.
                NativeTools.run(List.of(java.resolveSibling("jcmd").toString(), Long.toString(child.pid()), "VM.version"));
                AddressSymbolizer snapshot = s.process((int) child.pid());
                assertThat(map).as("a map written because it was asked is deleted once read").doesNotExist();
                s.forget((int) child.pid());
                NativeTools.run(List.of(java.resolveSibling("jcmd").toString(), Long.toString(child.pid()), "Compiler.perfmap"));
                snapshot = s.process((int) child.pid());
                assertThat(map).as("a map that was there before is left").exists();
                List<String> lines = Files.readAllLines(map);
                // hotLeafMath, or main's loop compiled on stack with it inlined: the last such entry
                String hot = lines.stream().filter(l -> l.contains("JitSpinner.")).reduce((a, b) -> b)
                        .orElseThrow(() -> new AssertionError("no JitSpinner method in the perf map: " + lines.size()
                                + " lines"));
                String[] f = hot.split(" ", 3);
                long start = Long.parseUnsignedLong(f[0].replace("0x", ""), 16);
                SymbolFrame frame = snapshot.symbolize(start + 1).getFirst();
                assertThat(frame.function()).contains("JitSpinner.");
                assertThat(frame.kind()).isEqualTo(FrameKind.JIT);
                assertThat(frame.offset()).isEqualTo(1);
                assertThat(frame.module()).isEqualTo(map.toString());
            }
        } finally {
            child.getOutputStream().close();
            child.waitFor(30, TimeUnit.SECONDS);
            child.destroyForcibly();
            Files.deleteIfExists(map);
        }
    }
}
