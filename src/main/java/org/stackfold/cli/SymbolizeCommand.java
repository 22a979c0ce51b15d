package org.stackfold.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.stackfold.io.AtomicOutput;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.symbolize.AddressSymbolizer;
import org.stackfold.symbolize.Addr2line;
import org.stackfold.symbolize.FoldedAddresses;
import org.stackfold.symbolize.SymbolFrame;
import org.stackfold.symbolize.Symbolizer;
import org.stackfold.symbolize.SymbolizerOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "symbolize", mixinStandardHelpOptions = true,
        description = {"Addresses to function names, source lines and inlined frames: of a live process, an ELF",
                "file or the kernel; or folded stacks of raw addresses to folded stacks of names.",
                "Addresses are hexadecimal (0x optional); without ADDR they are read from stdin, one a line."},
        footer = {"", "Examples:", "  stackfold symbolize --pid 1234 0x7f3a12c4e0f0 0x55d0c2a4f139",
                "  stackfold symbolize --elf ./a.out --format addr2line 0x1139   (prints what addr2line -a -f -i -C -p prints)",
                "  stackfold symbolize --kernel 0xffffffff81a2c3f0",
                "  stackfold symbolize --folded raw.folded --pid 1234 -o named.folded",
                "  stackfold symbolize --folded raw.folded --maps saved-maps.txt --annotate"})
final class SymbolizeCommand implements Callable<Integer> {
    enum Format { frames, addr2line }

    @Option(names = "--pid", paramLabel = "PID", description = "Addresses of this live process (root for other users' processes).")
    Integer pid;

    @Option(names = "--elf", paramLabel = "FILE", description = "Virtual addresses of this ELF file (as addr2line -e takes them).")
    Path elf;

    @Option(names = "--kernel", description = "Kernel addresses (/proc/kallsyms).")
    boolean kernel;

    @Option(names = "--maps", paramLabel = "FILE", description = "A saved /proc/PID/maps of the process the addresses come from.")
    Path maps;

    @Option(names = "--perf-map", paramLabel = "FILE", description = "With --maps: the JIT's perf map (/tmp/perf-PID.map).")
    Path perfMap;

    @Option(names = "--folded", paramLabel = "IN", description = "Rewrite folded stacks whose frames are 0x addresses ('-' for stdin).")
    String folded;

    @Option(names = "--format", paramLabel = "frames|addr2line",
            description = "frames (default): one line per frame; addr2line: exactly addr2line -a -f -i -C -p (with --elf).")
    Format format = Format.frames;

    @Option(names = "--raw-names", description = "Keep linkage names (no C++/Rust demangling).")
    boolean rawNames;

    @Option(names = "--strip-params", description = "Drop C++ parameter lists from demangled names.")
    boolean stripParams;

    @Option(names = "--no-inline", description = "No inlined frames.")
    boolean noInline;

    @Option(names = "--no-lines", description = "No source files and lines.")
    boolean noLines;

    @Option(names = "--no-jvm-perf-map", description = "Do not ask a JVM target to write its perf map (jcmd PID Compiler.perfmap).")
    boolean noJvmPerfMap;

    @Option(names = "--annotate", description = "With --folded: suffix kernel frames _[k], inlined _[i], JIT _[j].")
    boolean annotate;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", description = "Output file (default stdout).")
    String output;

    @Parameters(arity = "0..*", paramLabel = "ADDR", description = "Addresses (hexadecimal).")
    List<String> addresses = new ArrayList<>();

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        int targets = (pid != null ? 1 : 0) + (elf != null ? 1 : 0) + (maps != null ? 1 : 0) + (kernel ? 1 : 0);
        if (folded == null && targets != 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give one of --pid, --elf, --maps, --kernel");
        }
        if (folded != null && targets - (kernel ? 1 : 0) > 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--folded takes at most one of --pid, --elf, --maps");
        }
        if (format == Format.addr2line && (elf == null || folded != null)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--format addr2line needs --elf FILE and addresses");
        }
        SymbolizerOptions options = new SymbolizerOptions(!rawNames, !noInline, !noLines, stripParams);
        try (Symbolizer symbolizer = new Symbolizer(options).askJvmsForPerfMaps(!noJvmPerfMap);
             AtomicOutput out = AtomicOutput.open(output, Main.stdout())) {
            if (folded != null) {
                rewriteFolded(symbolizer, out.stream());
            } else if (format == Format.addr2line) {
                Addr2line a2l = Addr2line.of(symbolizer, elf);
                for (long a : addresses()) {
                    out.stream().write(a2l.lookup(a).getBytes(StandardCharsets.UTF_8));
                }
            } else {
                AddressSymbolizer target = target(symbolizer);
                StringBuilder b = new StringBuilder();
                for (long a : addresses()) {
                    b.setLength(0);
                    for (SymbolFrame f : target.symbolize(a)) {
                        describe(b, a, f);
                    }
                    out.stream().write(b.toString().getBytes(StandardCharsets.UTF_8));
                }
            }
            out.commit();
            for (String problem : symbolizer.dwarfProblems()) {
                spec.commandLine().getErr().println("stackfold: warning: " + org.stackfold.io.Printable.of(problem)
                        + ": debug info unreadable; names from the symbol table, without inlined frames or lines");
            }
        }
        return 0;
    }

    private AddressSymbolizer target(Symbolizer s) throws IOException {
        if (pid != null) {
            return s.process(pid);
        }
        if (elf != null) {
            return s.elf(elf);
        }
        if (maps != null) {
            return s.maps(maps, perfMap);
        }
        return s.kernel();
    }

    private void rewriteFolded(Symbolizer s, OutputStream out) throws IOException {
        AddressSymbolizer user = pid != null || elf != null || maps != null ? target(s) : null;
        AddressSymbolizer k = null;
        try {
            k = s.kernel();
        } catch (IOException | InputException e) {
            Warnings.to(spec).accept("kernel addresses stay [unknown]: " + e.getMessage());
        }
        byte[] in;
        try (Input input = Input.open(folded)) {
            in = input.bytes().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        }
        new FoldedAddresses(user, k, annotate).rewrite(in, folded, out);
    }

    /** "0xADDR FUNCTION+0xOFF [inlined] at FILE:LINE in MODULE (KIND)". */
    private static void describe(StringBuilder b, long address, SymbolFrame f) {
        b.append("0x").append(Long.toHexString(address)).append(' ').append(f.function());
        if (!f.inlined()) {
            b.append("+0x").append(Long.toHexString(f.offset()));
        } else {
            b.append(" [inlined]");
        }
        if (f.file() != null) {
            b.append(" at ").append(f.file()).append(':').append(f.line() == 0 ? "?" : Integer.toString(f.line()));
        }
        if (f.module() != null) {
            b.append(" in ").append(f.module());
        }
        b.append(" (").append(f.kind().name().toLowerCase(java.util.Locale.ROOT)).append(")\n");
    }

    private List<Long> addresses() throws IOException {
        List<String> words = addresses;
        if (words.isEmpty()) {
            words = new ArrayList<>();
            for (String line : new String(System.in.readAllBytes(), StandardCharsets.UTF_8).split("\\s+")) {
                if (!line.isEmpty()) {
                    words.add(line);
                }
            }
        }
        List<Long> out = new ArrayList<>(words.size());
        for (String w : words) {
            String hex = w.startsWith("0x") || w.startsWith("0X") ? w.substring(2) : w;
            try {
                if (hex.isEmpty() || hex.length() > 16) {
                    throw new NumberFormatException();
                }
                out.add(Long.parseUnsignedLong(hex, 16));
            } catch (NumberFormatException e) {
                throw new InputException("symbolize: '" + w + "' is not a hexadecimal address");
            }
        }
        return out;
    }
}
