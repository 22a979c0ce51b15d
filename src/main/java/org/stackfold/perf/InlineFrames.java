package org.stackfold.perf;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.stackfold.symbolize.SymbolFrame;
import org.stackfold.symbolize.Symbolizer;
import org.stackfold.symbolize.SymbolizerOptions;

/**
 * {@code --inline}: a frame {@code FUNCTION+0xOFF (MODULE)} of an ELF file with DWARF becomes the
 * function as perf named it, then the functions the compiler inlined into it at that address
 * (outermost first), as stackcollapse-perf.pl's {@code --inline} does through addr2line; with
 * {@code --context} each gets {@code :FILE:LINE} (file base name). The address inside the file comes
 * from the symbol perf named plus the offset, so it needs no load address; an {@code [unknown]}
 * frame of a position-dependent executable is named from its address. Shared by the parser threads;
 * each distinct frame is looked up once.
 */
public final class InlineFrames implements AutoCloseable {
    private final Symbolizer symbolizer;
    private final boolean context;
    private final Map<String, Optional<List<String>>> cache = new ConcurrentHashMap<>();

    public InlineFrames(boolean context) {
        this.symbolizer = new Symbolizer(new SymbolizerOptions(true, true, context, true));
        this.context = context;
    }

    /** The frame's names root to leaf, or null to keep it as perf printed it. */
    public List<String> expand(String module, String function, long offset) {
        return cache.computeIfAbsent(module + '\0' + function + '\0' + offset,
                k -> Optional.ofNullable(lookup(module, function, offset))).orElse(null);
    }

    /**
     * An {@code [unknown]} frame at runtime address {@code pc} of a position-dependent executable:
     * its function and inlined frames, or null (other files, or nothing covers the address).
     */
    public List<String> expandUnknown(String module, long pc) {
        return cache.computeIfAbsent(module + "\0?" + pc, k -> {
            List<SymbolFrame> frames = symbolizer.symbolizeExecutableAddress(Path.of(module), pc);
            return Optional.ofNullable(frames.isEmpty() ? null : names(frames, frames.getLast().function()));
        }).orElse(null);
    }

    private List<String> lookup(String module, String function, long offset) {
        List<SymbolFrame> frames = symbolizer.symbolizeFunction(Path.of(module), function, offset);
        if (frames.isEmpty() || frames.size() == 1 && !context) {
            return null;
        }
        return names(frames, function);
    }

    private List<String> names(List<SymbolFrame> frames, String function) {
        List<String> names = new ArrayList<>(frames.size());
        names.add(function + location(frames.getLast()));
        for (int k = frames.size() - 2; k >= 0; k--) {
            names.add(frames.get(k).function() + location(frames.get(k)));
        }
        return names;
    }

    private String location(SymbolFrame f) {
        if (!context || f.file() == null) {
            return "";
        }
        return ":" + f.file().substring(f.file().lastIndexOf('/') + 1) + ":" + f.line();
    }

    @Override
    public void close() {
        symbolizer.close();
    }
}
