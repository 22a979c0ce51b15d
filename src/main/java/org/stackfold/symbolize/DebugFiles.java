package org.stackfold.symbolize;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import org.stackfold.io.InputException;

/**
 * Finds the separate debug file of an ELF file the way GDB and binutils do: by build id under
 * {@code ROOT/.build-id/xx/rest.debug}, then by {@code .gnu_debuglink} name in the file's
 * directory, its {@code .debug} subdirectory and {@code ROOT/DIR}. A candidate is accepted when its
 * build id matches, or, for a file without one, when the link's CRC-32 matches.
 */
final class DebugFiles {
    private final List<Path> roots;

    DebugFiles(List<Path> roots) {
        this.roots = List.copyOf(roots);
    }

    /** The debug file of {@code elf} found at {@code path} on disk, or null. */
    ElfFile find(ElfFile elf, Path path) {
        String id = elf.buildId();
        if (id != null && id.length() > 2) {
            for (Path root : roots) {
                Path candidate = root.resolve(".build-id").resolve(id.substring(0, 2)).resolve(id.substring(2) + ".debug");
                ElfFile debug = open(candidate);
                if (debug != null && id.equals(debug.buildId())) {
                    return debug;
                }
            }
        }
        String link = elf.debugLink();
        if (link == null || link.contains("/")) {
            return null;
        }
        for (Path candidate : linkCandidates(path, link)) {
            if (candidate.equals(path)) {
                continue;
            }
            ElfFile debug = open(candidate);
            if (debug != null && (id != null ? id.equals(debug.buildId()) : crc(debug.data) == elf.debugLinkCrc())) {
                return debug;
            }
        }
        return null;
    }

    private List<Path> linkCandidates(Path path, String link) {
        List<Path> candidates = new ArrayList<>();
        Path dir = path == null ? null : path.toAbsolutePath().getParent();
        if (dir != null) {
            candidates.add(dir.resolve(link));
            candidates.add(dir.resolve(".debug").resolve(link));
            for (Path root : roots) {
                candidates.add(root.resolve(dir.toString().substring(1)).resolve(link));
            }
        }
        return candidates;
    }

    private static ElfFile open(Path candidate) {
        if (!Files.isRegularFile(candidate)) {
            return null;
        }
        try {
            return ElfFile.open(candidate, candidate.toString());
        } catch (IOException | InputException e) {
            return null;
        }
    }

    private static int crc(MemorySegment data) {
        CRC32 crc = new CRC32();
        long chunk = 1 << 20;
        for (long off = 0; off < data.byteSize(); off += chunk) {
            ByteBuffer b = data.asSlice(off, Math.min(chunk, data.byteSize() - off)).asByteBuffer();
            crc.update(b);
        }
        return (int) crc.getValue();
    }
}
