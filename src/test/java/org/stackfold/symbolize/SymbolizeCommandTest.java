package org.stackfold.symbolize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stackfold.cli.CliRun.run;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Linker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.cli.CliRun;
import org.stackfold.cli.Main;

/** {@code stackfold symbolize} end to end through {@link Main#run}. */
class SymbolizeCommandTest {
    @TempDir
    Path dir;

    @Test
    void addr2lineFormatPrintsWhatAddr2linePrints() throws IOException {
        Path program = NativeTools.program();
        List<String> args = new ArrayList<>(List.of("symbolize", "--elf", program.toString(), "--format", "addr2line"));
        List<String> addresses = new ArrayList<>();
        for (NativeTools.NmSymbol s : NativeTools.nmText(program, false)) {
            addresses.add("0x" + Long.toHexString(s.address() + s.size() / 2));
        }
        addresses.add("0x5");
        args.addAll(addresses);
        CliRun r = run(args.toArray(String[]::new));
        List<String> a2l = new ArrayList<>(List.of("addr2line", "-a", "-f", "-i", "-C", "-p", "-e", program.toString()));
        a2l.addAll(addresses);
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo(NativeTools.run(a2l));
    }

    @Test
    void framesOfAFileAProcessAndTheKernel() throws IOException {
        Path program = NativeTools.program();
        long mix = 0;
        try (Symbolizer s = new Symbolizer(SymbolizerOptions.DEFAULT)) {
            for (NativeTools.NmSymbol sym : NativeTools.nmText(program, false)) {
                for (long a = sym.address(); a < sym.address() + sym.size() && mix == 0; a++) {
                    if (s.elf(program).symbolize(a).getFirst().function().equals("mix")) {
                        mix = a;
                    }
                }
            }
        }
        CliRun elf = run("symbolize", "--elf", program.toString(), Long.toHexString(mix));
        assertThat(elf.code()).as(elf.err()).isZero();
        assertThat(elf.out().lines().toList()).first().asString()
                .matches("0x" + Long.toHexString(mix) + " mix \\[inlined\\] at .*inline\\.c:\\d+ in " + program + " \\(native\\)");
        assertThat(elf.out().lines().toList().getLast()).contains(" in " + program + " (native)");

        long getpid = Linker.nativeLinker().defaultLookup().find("getpid").orElseThrow().address();
        CliRun self = run("symbolize", "--no-jvm-perf-map", "--pid", Long.toString(ProcessHandle.current().pid()), "0x" + Long.toHexString(getpid));
        assertThat(self.out()).matches("0x[0-9a-f]+ (__)?getpid\\+0x0 .*in .*libc\\.so\\.6 \\(native\\)\\n");

        String line = Files.readAllLines(Path.of("/proc/kallsyms")).stream().filter(l -> l.endsWith(" T schedule"))
                .findFirst().orElseThrow();
        long schedule = Long.parseUnsignedLong(line.substring(0, 16), 16);
        CliRun kernel = run("symbolize", "--kernel", Long.toHexString(schedule + 3));
        assertThat(kernel.out()).isEqualTo("0x" + Long.toHexString(schedule + 3) + " schedule+0x3 in vmlinux (kernel)\n");
    }

    @Test
    void foldedStacksOfAddressesThroughASavedMapsSnapshot() throws Exception {
        Process child = new ProcessBuilder(NativeTools.program().toString(), "wait").start();
        try {
            String where = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)).readLine();
            String top = where.split(" ")[0].split("=")[1];
            String main = where.split(" ")[2].split("=")[1];
            Path maps = dir.resolve("maps.txt");
            Files.copy(Path.of("/proc/" + child.pid() + "/maps"), maps);
            child.getOutputStream().close();
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String kallsyms = Files.readAllLines(Path.of("/proc/kallsyms")).stream().filter(l -> l.endsWith(" T schedule"))
                    .findFirst().orElseThrow();
            String schedule = "0x" + kallsyms.substring(0, 16);
            Path folded = dir.resolve("raw.folded");
            Files.writeString(folded, "victim;" + main + ";" + top + ";" + schedule + " 7\n"
                    + "victim;0x10;not-an-address 2\n");
            Path out = dir.resolve("named.folded");
            CliRun r = run("symbolize", "--folded", folded.toString(), "--maps", maps.toString(), "--annotate",
                    "-o", out.toString());
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(Files.readString(out)).matches("victim;main;top_(compute|alias);schedule_\\[k\\] 7\n"
                    + "victim;\\[unknown\\];not-an-address 2\n");
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void badArgumentsAreOneLineErrors() {
        CliRun noTarget = run("symbolize", "0x10");
        assertThat(noTarget.code()).isEqualTo(2);
        assertThat(noTarget.err()).contains("give one of --pid, --elf, --maps, --kernel");
        CliRun badAddress = run("symbolize", "--kernel", "xyz");
        assertThat(badAddress.code()).isEqualTo(1);
        assertThat(badAddress.err()).isEqualTo("stackfold: symbolize: 'xyz' is not a hexadecimal address\n");
        CliRun missing = run("symbolize", "--elf", dir.resolve("nope").toString(), "0x10");
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err().lines().count()).isEqualTo(1);
        CliRun notElf = run("symbolize", "--elf", "/proc/self/status", "0x10");
        assertThat(notElf.code()).isEqualTo(1);
        assertThat(notElf.err().lines().count()).isEqualTo(1);
    }
}
