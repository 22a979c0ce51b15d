package org.stackfold.format.perfdata;

import java.util.Map;
import java.util.TreeMap;

/**
 * One process's executable mappings as MMAP/MMAP2 records built them, with a cache from address to
 * the frames it was named with. A new mapping cuts away what it overlaps (as mmap does); a fork
 * copies the parent's mappings.
 */
final class AddressSpace {
    /** One mapping of a file (or anonymous memory) at [start, end), pgoff its file offset. */
    record Mapping(long start, long end, long pgoff, String file) {
    }

    private final TreeMap<Long, Mapping> maps;
    final int pid;
    final LongIntMap frames = new LongIntMap();
    /** The same for threads whose comm starts with "java" (collapse perf names their frames apart). */
    final LongIntMap javaFrames = new LongIntMap();
    /** Set by the reader to a new number whenever this space changes (callchains are cached per epoch). */
    int epoch;

    AddressSpace(int pid) {
        this(pid, new TreeMap<>(Long::compareUnsigned));
    }

    private AddressSpace(int pid, TreeMap<Long, Mapping> maps) {
        this.pid = pid;
        this.maps = maps;
    }

    AddressSpace forkedAs(int child) {
        return new AddressSpace(child, new TreeMap<>(maps));
    }

    void map(Mapping m) {
        Map.Entry<Long, Mapping> before = maps.lowerEntry(m.start());
        if (before != null && Long.compareUnsigned(before.getValue().end(), m.start()) > 0) {
            Mapping b = before.getValue();
            maps.put(b.start(), new Mapping(b.start(), m.start(), b.pgoff(), b.file()));
            if (Long.compareUnsigned(b.end(), m.end()) > 0) {
                maps.put(m.end(), new Mapping(m.end(), b.end(), b.pgoff() + (m.end() - b.start()), b.file()));
            }
        }
        while (true) {
            Map.Entry<Long, Mapping> next = maps.ceilingEntry(m.start());
            if (next == null || Long.compareUnsigned(next.getKey(), m.end()) >= 0) {
                break;
            }
            Mapping n = maps.remove(next.getKey());
            if (Long.compareUnsigned(n.end(), m.end()) > 0) {
                maps.put(m.end(), new Mapping(m.end(), n.end(), n.pgoff() + (m.end() - n.start()), n.file()));
            }
        }
        maps.put(m.start(), m);
        frames.clear();
        javaFrames.clear();
    }

    Mapping find(long addr) {
        Map.Entry<Long, Mapping> e = maps.floorEntry(addr);
        return e != null && Long.compareUnsigned(addr, e.getValue().end()) < 0 ? e.getValue() : null;
    }
}
