package org.stackfold.model;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The frames of a profile, interned to dense int ids.
 *
 * <p>A frame is a name plus what a format may know about it: its {@link FrameKind} and a source
 * location (file, line and column ranges, and a bytecode offset such as CPython's opcode). Two frames
 * with the same name but different locations are different frames; a format that wants them merged
 * renders them to one name first.
 *
 * <p>The common case, a bare name from a folded stack, takes a fast path: one interning of the name
 * bytes and one array read, no allocation.
 */
public final class FrameTable {
    /** Marks an absent line, column or opcode. */
    public static final int NONE = -1;

    private final ByteStringPool names = new ByteStringPool();
    private final ByteStringPool files = new ByteStringPool();
    private int[] plainFrameOfName = new int[1024];
    private int[] nameId = new int[1024];
    private byte[] kind = new byte[1024];
    // Location columns are allocated on first use: folded profiles never pay for them.
    private int[] fileId;
    private int[] line;
    private int[] endLine;
    private int[] column;
    private int[] endColumn;
    private int[] opcode;
    private int size;
    private final Map<Key, Integer> located = new HashMap<>();

    /**
     * Hashed and compared by hand: a record's generated methods go through method handles, which C1
     * (the JIT of {@code record}, whose agent interns every frame of every interval) does not inline.
     */
    private record Key(int name, int kind, int file, int line, int endLine, int column, int endColumn, int opcode) {
        @Override
        public int hashCode() {
            int h = name;
            h = h * 31 + kind;
            h = h * 31 + file;
            h = h * 31 + line;
            h = h * 31 + endLine;
            h = h * 31 + column;
            h = h * 31 + endColumn;
            return h * 31 + opcode;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && name == k.name && kind == k.kind && file == k.file && line == k.line
                    && endLine == k.endLine && column == k.column && endColumn == k.endColumn && opcode == k.opcode;
        }
    }

    public int size() {
        return size;
    }

    public ByteStringPool names() {
        return names;
    }

    public ByteStringPool files() {
        return files;
    }

    /** The frame with this name and nothing else known about it. */
    public int plain(byte[] b, int off, int len) {
        return plainOfName(names.intern(b, off, len));
    }

    public int plain(byte[] b, int off, int len, int hash) {
        return plainOfName(names.intern(b, off, len, hash));
    }

    public int plain(String name) {
        return plainOfName(names.intern(name));
    }

    private int plainOfName(int n) {
        if (n >= plainFrameOfName.length) {
            int old = plainFrameOfName.length;
            plainFrameOfName = Arrays.copyOf(plainFrameOfName, Math.max(n + 1, old * 2));
        }
        int f = plainFrameOfName[n] - 1;
        if (f < 0) {
            f = add(n, FrameKind.UNKNOWN);
            plainFrameOfName[n] = f + 1;
        }
        return f;
    }

    /** A frame of a kind, without a location. */
    public int frame(String name, FrameKind k) {
        if (k == FrameKind.UNKNOWN) {
            return plain(name);
        }
        return frame(name, k, null, NONE, NONE, NONE, NONE, NONE);
    }

    /** A frame with everything a format may know; {@code file} may be null and ints {@link #NONE}. */
    public int frame(String name, FrameKind k, String file, int line, int endLine, int column, int endColumn,
                     int opcode) {
        int n = names.intern(name);
        int fi = file == null ? NONE : files.intern(file);
        if (k == FrameKind.UNKNOWN && fi == NONE && line == NONE && endLine == NONE && column == NONE
                && endColumn == NONE && opcode == NONE) {
            return plainOfName(n);
        }
        Key key = new Key(n, k.ordinal(), fi, line, endLine, column, endColumn, opcode);
        Integer id = located.get(key);
        if (id != null) {
            return id;
        }
        int f = add(n, k);
        if (fi != NONE || line != NONE || endLine != NONE || column != NONE || endColumn != NONE
                || opcode != NONE) {
            ensureLocations();
            this.fileId[f] = fi;
            this.line[f] = line;
            this.endLine[f] = endLine;
            this.column[f] = column;
            this.endColumn[f] = endColumn;
            this.opcode[f] = opcode;
        }
        located.put(key, f);
        return f;
    }

    private int add(int n, FrameKind k) {
        int f = size++;
        if (f == nameId.length) {
            int cap = f * 2;
            nameId = Arrays.copyOf(nameId, cap);
            kind = Arrays.copyOf(kind, cap);
            if (fileId != null) {
                growLocations(cap);
            }
        }
        nameId[f] = n;
        kind[f] = (byte) k.ordinal();
        if (fileId != null) {
            fileId[f] = NONE;
            line[f] = NONE;
            endLine[f] = NONE;
            column[f] = NONE;
            endColumn[f] = NONE;
            opcode[f] = NONE;
        }
        return f;
    }

    private void ensureLocations() {
        if (fileId == null) {
            int cap = nameId.length;
            fileId = filled(cap);
            line = filled(cap);
            endLine = filled(cap);
            column = filled(cap);
            endColumn = filled(cap);
            opcode = filled(cap);
        }
    }

    private static int[] filled(int cap) {
        int[] a = new int[cap];
        Arrays.fill(a, NONE);
        return a;
    }

    private void growLocations(int cap) {
        fileId = grow(fileId, cap);
        line = grow(line, cap);
        endLine = grow(endLine, cap);
        column = grow(column, cap);
        endColumn = grow(endColumn, cap);
        opcode = grow(opcode, cap);
    }

    private static int[] grow(int[] a, int cap) {
        int old = a.length;
        int[] b = Arrays.copyOf(a, cap);
        Arrays.fill(b, old, cap, NONE);
        return b;
    }

    public int nameId(int frame) {
        return nameId[frame];
    }

    public String name(int frame) {
        return names.string(nameId[frame]);
    }

    public byte[] nameBytes(int frame) {
        return names.bytes(nameId[frame]);
    }

    public FrameKind kind(int frame) {
        return FrameKind.of(kind[frame]);
    }

    public boolean hasLocation(int frame) {
        return fileId != null && (fileId[frame] != NONE || line[frame] != NONE || opcode[frame] != NONE
                || column[frame] != NONE || endLine[frame] != NONE || endColumn[frame] != NONE);
    }

    /** The file name, or null. */
    public String file(int frame) {
        int f = fileId == null ? NONE : fileId[frame];
        return f == NONE ? null : files.string(f);
    }

    public int line(int frame) {
        return fileId == null ? NONE : line[frame];
    }

    public int endLine(int frame) {
        return fileId == null ? NONE : endLine[frame];
    }

    public int column(int frame) {
        return fileId == null ? NONE : column[frame];
    }

    public int endColumn(int frame) {
        return fileId == null ? NONE : endColumn[frame];
    }

    public int opcode(int frame) {
        return fileId == null ? NONE : opcode[frame];
    }

    /** The rank of every frame id in the order of {@code order}: rank[frame] = position. */
    public int[] ranks(IndexSort.IndexComparator order) {
        // A merge sort of int ids: TimSort over boxed ids ran interpreted for the first thousands
        // of comparisons of a run that sorts its names once (1% of collapse perf's CPU).
        int[] ids = IndexSort.sorted(size, order);
        int[] rank = new int[size];
        for (int i = 0; i < size; i++) {
            rank[ids[i]] = i;
        }
        return rank;
    }

    /** Compares frames by name bytes (unsigned), then by kind and location so the order is total. */
    public int compare(int a, int b) {
        if (a == b) {
            return 0;
        }
        int c = names.compare(nameId[a], nameId[b]);
        if (c != 0) {
            return c;
        }
        c = Integer.compare(kind[a], kind[b]);
        if (c != 0) {
            return c;
        }
        c = Integer.compare(line(a), line(b));
        if (c != 0) {
            return c;
        }
        String fa = file(a);
        String fb = file(b);
        if (fa != null && fb != null) {
            c = fa.compareTo(fb);
            if (c != 0) {
                return c;
            }
        } else if (fa != fb) {
            return fa == null ? -1 : 1;
        }
        return Integer.compare(a, b);
    }
}
