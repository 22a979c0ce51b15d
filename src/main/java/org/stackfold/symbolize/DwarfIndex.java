package org.stackfold.symbolize;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.stackfold.io.InputException;
import org.stackfold.model.IndexSort;

/**
 * The DWARF of one ELF file, read once into primitive columns: every row of every {@code .debug_line}
 * program (versions 2 to 5) as one address-sorted table, and every {@code DW_TAG_subprogram} and
 * {@code DW_TAG_inlined_subroutine} with code ranges (low/high pc, {@code .debug_ranges},
 * {@code .debug_rnglists}, {@code .debug_addr}) as a pre-order tree, names resolved through
 * {@code .debug_str}/{@code .debug_str_offsets}/{@code .debug_line_str} and abstract origins and
 * specifications. File names are built as binutils builds them (compilation directory, include
 * directory, name), so they print as addr2line prints them.
 */
final class DwarfIndex {
    static final String UNKNOWN_FILE = "<unknown>";

    private static final int TAG_SUBPROGRAM = 0x2e;
    private static final int TAG_INLINED = 0x1d;
    private static final int TAG_COMPILE_UNIT = 0x11;
    private static final int TAG_PARTIAL_UNIT = 0x3c;
    private static final int AT_NAME = 0x03;
    private static final int AT_STMT_LIST = 0x10;
    private static final int AT_LOW_PC = 0x11;
    private static final int AT_HIGH_PC = 0x12;
    private static final int AT_LANGUAGE = 0x13;
    private static final int AT_COMP_DIR = 0x1b;
    private static final int AT_ABSTRACT_ORIGIN = 0x31;
    private static final int AT_SPECIFICATION = 0x47;
    private static final int AT_RANGES = 0x55;
    private static final int AT_CALL_FILE = 0x58;
    private static final int AT_CALL_LINE = 0x59;
    private static final int AT_LINKAGE_NAME = 0x6e;
    private static final int AT_STR_OFFSETS_BASE = 0x72;
    private static final int AT_ADDR_BASE = 0x73;
    private static final int AT_RNGLISTS_BASE = 0x74;
    private static final int AT_MIPS_LINKAGE_NAME = 0x2007;
    private static final int AT_GNU_ADDR_BASE = 0x2133;

    private final String source;
    private final byte[] info;
    private final byte[] abbrev;
    private final byte[] lineSection;
    private final byte[] lineStr;
    private final byte[] str;
    private final byte[] ranges;
    private final byte[] rnglists;
    private final byte[] addr;
    private final byte[] strOffsets;

    private final List<Unit> units = new ArrayList<>();
    private final Map<Long, Abbrevs> abbrevCache = new HashMap<>();
    private final List<String> files = new ArrayList<>();
    private final Map<String, Integer> fileIds = new HashMap<>();
    private final Map<Long, NameHolder> names = new HashMap<>();
    private final Map<String, String> interned = new HashMap<>();

    // line rows, address-sorted; rowFile -1 marks the end of a sequence
    private long[] rowAddr;
    private int[] rowFile;
    private int[] rowLine;
    private int[] rowDisc;
    /** binutils 2.40's file for each row, where it differs anywhere; null otherwise. */
    private int[] rowBfdFile;
    private AddressIndex rowIndex;
    private AddressIndex rootIndex;

    // functions in pre-order
    private int entries;
    private int[] parent = new int[256];
    private int[] subtreeEnd = new int[256];
    private int[] rangeFrom = new int[257];
    private int[] callFile = new int[256];
    private int[] callLine = new int[256];
    private String[] name = new String[256];
    private boolean[] linkage = new boolean[256];
    private boolean[] root = new boolean[256];
    private int rangeCount;
    private long[] rangeLo = new long[512];
    private long[] rangeHi = new long[512];
    private long[] rootLo;
    private long[] rootHi;
    /** The highest end among roots 0..i, so a backwards scan stops where nothing further back can reach. */
    private long[] rootMaxHi;
    private int[] rootEntry;

    // rows while reading, before sorting sequences
    private long[] tAddr = new long[4096];
    private int[] tFile = new int[4096];
    private int[] tLine = new int[4096];
    private int[] tDisc = new int[4096];
    private int[] tBfd = new int[4096];
    private boolean bfdDiffers;
    private int tRows;
    private long[] seqStart = new long[64];
    private int[] seqFrom = new int[64];
    private int[] seqTo = new int[64];
    private int seqCount;

    private static final class Unit {
        long offset;
        int dieStart;
        int end;
        int version;
        int offsetSize;
        int addressSize;
        Abbrevs abbrevs;
        long strOffsetsBase;
        long addrBase;
        long rnglistsBase;
        long lowPc;
        int language;
        String compDir;
        long stmtList = -1;
        int[] fileMap = new int[0];
    }

    private static final class Abbrevs {
        Abbrev[] byCode = new Abbrev[0];
        final Map<Long, Abbrev> sparse = new HashMap<>();

        Abbrev get(long code) {
            return code < byCode.length ? byCode[(int) code] : sparse.get(code);
        }
    }

    /**
     * @param fixedSize the bytes of all attributes in units with 4-byte offsets and 8-byte addresses
     *                  (DWARF 3+), or -1 when a form's size varies
     */
    private record Abbrev(int tag, boolean children, int[] attrs, int[] forms, long[] consts, int fixedSize) {
    }

    /** A form's size in units with 4-byte offsets and 8-byte addresses (DWARF 3+), or -1 when it varies. */
    private static int fixedFormSize(int form) {
        return switch (form) {
            case 0x19, 0x21 -> 0;
            case 0x0b, 0x11, 0x0c, 0x25, 0x29 -> 1;
            case 0x05, 0x12, 0x26, 0x2a -> 2;
            case 0x27, 0x2b -> 3;
            case 0x06, 0x13, 0x28, 0x2c, 0x1c, 0x0e, 0x1f, 0x17, 0x1d, 0x1f20, 0x1f21, 0x10 -> 4;
            case 0x01, 0x07, 0x14, 0x20, 0x24 -> 8;
            case 0x1e -> 16;
            default -> -1;
        };
    }

    private static final class NameHolder {
        String name;
        boolean linkage;
    }

    /** A DIE's attributes as read: names, forms, values (strings and blocks as offsets). */
    private static final class Attrs {
        int count;
        int[] attr = new int[64];
        int[] form = new int[64];
        long[] value = new long[64];

        void add(int a, int f, long v) {
            if (count == attr.length) {
                attr = Arrays.copyOf(attr, count * 2);
                form = Arrays.copyOf(form, count * 2);
                value = Arrays.copyOf(value, count * 2);
            }
            attr[count] = a;
            form[count] = f;
            value[count] = v;
            count++;
        }
    }

    private DwarfIndex(ElfFile elf) {
        source = elf.name;
        info = elf.sectionBytes(".debug_info");
        abbrev = orEmpty(elf.sectionBytes(".debug_abbrev"));
        lineSection = elf.sectionBytes(".debug_line");
        lineStr = elf.sectionBytes(".debug_line_str");
        str = elf.sectionBytes(".debug_str");
        ranges = elf.sectionBytes(".debug_ranges");
        rnglists = elf.sectionBytes(".debug_rnglists");
        addr = elf.sectionBytes(".debug_addr");
        strOffsets = elf.sectionBytes(".debug_str_offsets");
    }

    private static byte[] orEmpty(byte[] b) {
        return b == null ? new byte[0] : b;
    }

    /** Reads the DWARF of {@code elf}; null when it has no .debug_info. */
    static DwarfIndex of(ElfFile elf) {
        if (!elf.hasDebugInfo()) {
            return null;
        }
        DwarfIndex d = new DwarfIndex(elf);
        d.build();
        return d;
    }

    private void build() {
        fileId(UNKNOWN_FILE);
        readUnitHeaders();
        Attrs attrs = new Attrs();
        Map<Long, int[]> lineTables = new HashMap<>();
        for (Unit u : units) {
            if (u.stmtList >= 0 && lineSection != null) {
                int[] map = lineTables.get(u.stmtList);
                if (map == null) {
                    map = readLineProgram(u);
                    lineTables.put(u.stmtList, map);
                }
                u.fileMap = map;
            }
            readFunctions(u, attrs);
        }
        finishLines();
        finishFunctions();
    }

    // ---- units -------------------------------------------------------------------------------

    private void readUnitHeaders() {
        DwarfCursor c = new DwarfCursor(info, source + " .debug_info", 0);
        Attrs attrs = new Attrs();
        while (c.pos + 11 <= info.length) {
            Unit u = new Unit();
            u.offset = c.pos;
            long length = c.u32();
            u.offsetSize = 4;
            if (length == 0xffffffffL) {
                length = c.u64();
                u.offsetSize = 8;
            }
            if (length < 2 || length > info.length - c.pos) {
                throw InputException.atOffset(source + " .debug_info", u.offset, "unit length " + length + " runs past the section");
            }
            u.end = (int) (c.pos + length);
            u.version = c.u16();
            int unitType = 1;
            long abbrevOffset;
            if (u.version >= 5) {
                unitType = c.u8();
                u.addressSize = c.u8();
                abbrevOffset = c.sized(u.offsetSize);
                if (unitType == 4 || unitType == 5) {
                    c.skip(8);
                } else if (unitType == 2 || unitType == 6) {
                    c.skip(8 + u.offsetSize);
                }
            } else {
                abbrevOffset = c.sized(u.offsetSize);
                u.addressSize = c.u8();
            }
            u.dieStart = c.pos;
            c.pos = u.end;
            if (u.version < 2 || u.version > 5 || (unitType != 1 && unitType != 3) || u.addressSize != 8 && u.addressSize != 4) {
                continue;
            }
            u.abbrevs = abbrevs(abbrevOffset);
            readUnitDie(u, attrs);
            units.add(u);
        }
    }

    private void readUnitDie(Unit u, Attrs a) {
        DwarfCursor c = new DwarfCursor(info, source + " .debug_info", u.dieStart);
        long code = c.uleb();
        Abbrev ab = u.abbrevs.get(code);
        if (ab == null || ab.tag != TAG_COMPILE_UNIT && ab.tag != TAG_PARTIAL_UNIT) {
            return;
        }
        readAttrs(c, u, ab, a);
        for (int i = 0; i < a.count; i++) {
            switch (a.attr[i]) {
                case AT_STR_OFFSETS_BASE -> u.strOffsetsBase = a.value[i];
                case AT_ADDR_BASE, AT_GNU_ADDR_BASE -> u.addrBase = a.value[i];
                case AT_RNGLISTS_BASE -> u.rnglistsBase = a.value[i];
                case AT_LANGUAGE -> u.language = (int) a.value[i];
                case AT_STMT_LIST -> u.stmtList = a.value[i];
                default -> {
                }
            }
        }
        for (int i = 0; i < a.count; i++) {
            if (a.attr[i] == AT_LOW_PC) {
                u.lowPc = address(u, a.form[i], a.value[i]);
            } else if (a.attr[i] == AT_COMP_DIR) {
                u.compDir = string(u, a.form[i], a.value[i]);
            }
        }
    }

    private Unit unitAt(long offset) {
        int lo = 0;
        int hi = units.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (units.get(mid).offset <= offset) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Unit u = lo > 0 ? units.get(lo - 1) : null;
        return u != null && offset < u.end ? u : null;
    }

    private Abbrevs abbrevs(long offset) {
        Abbrevs cached = abbrevCache.get(offset);
        if (cached != null) {
            return cached;
        }
        Abbrevs t = new Abbrevs();
        DwarfCursor c = new DwarfCursor(abbrev, source + " .debug_abbrev", (int) Math.min(offset, Integer.MAX_VALUE));
        List<Abbrev> dense = new ArrayList<>();
        while (true) {
            long code = c.uleb();
            if (code == 0) {
                break;
            }
            int tag = (int) c.uleb();
            boolean children = c.u8() != 0;
            int[] at = new int[8];
            int[] fo = new int[8];
            long[] co = new long[8];
            int n = 0;
            while (true) {
                int a = (int) c.uleb();
                int f = (int) c.uleb();
                if (a == 0 && f == 0) {
                    break;
                }
                if (n == at.length) {
                    at = Arrays.copyOf(at, n * 2);
                    fo = Arrays.copyOf(fo, n * 2);
                    co = Arrays.copyOf(co, n * 2);
                }
                at[n] = a;
                fo[n] = f;
                co[n] = f == 0x21 ? c.sleb() : 0;
                n++;
            }
            int fixed = 0;
            for (int i = 0; i < n && fixed >= 0; i++) {
                int size = fixedFormSize(fo[i]);
                fixed = size < 0 ? -1 : fixed + size;
            }
            Abbrev ab = new Abbrev(tag, children, Arrays.copyOf(at, n), Arrays.copyOf(fo, n), Arrays.copyOf(co, n), fixed);
            if (code < 1 << 16) {
                while (dense.size() <= code) {
                    dense.add(null);
                }
                dense.set((int) code, ab);
            } else {
                t.sparse.put(code, ab);
            }
        }
        t.byCode = dense.toArray(Abbrev[]::new);
        abbrevCache.put(offset, t);
        return t;
    }

    // ---- attributes --------------------------------------------------------------------------

    private void readAttrs(DwarfCursor c, Unit u, Abbrev ab, Attrs out) {
        out.count = 0;
        for (int i = 0; i < ab.attrs.length; i++) {
            int form = ab.forms[i];
            long v;
            if (form == 0x21) {
                v = ab.consts[i];
            } else {
                if (form == 0x16) {
                    form = (int) c.uleb();
                }
                v = formValue(c, u, form);
            }
            out.add(ab.attrs[i], form, v);
        }
    }

    /** Moves past a DIE's attributes without keeping them (most DIEs are types and variables). */
    private static void skipAttrs(DwarfCursor c, Unit u, Abbrev ab) {
        if (ab.fixedSize >= 0 && u.offsetSize == 4 && u.addressSize == 8 && u.version >= 3) {
            c.skip(ab.fixedSize);
            return;
        }
        for (int i = 0; i < ab.forms.length; i++) {
            int form = ab.forms[i];
            if (form != 0x21) {
                formValue(c, u, form == 0x16 ? (int) c.uleb() : form);
            }
        }
    }

    private static long formValue(DwarfCursor c, Unit u, int form) {
        return switch (form) {
            case 0x01 -> c.sized(u.addressSize);
            case 0x0b, 0x11, 0x0c, 0x25, 0x29 -> c.u8();
            case 0x05, 0x12, 0x26, 0x2a -> c.u16();
            case 0x27, 0x2b -> c.u24();
            case 0x06, 0x13, 0x28, 0x2c, 0x1c -> c.u32();
            case 0x07, 0x14, 0x20, 0x24 -> c.u64();
            case 0x1e -> {
                c.skip(16);
                yield 0;
            }
            case 0x0d -> c.sleb();
            case 0x0f, 0x15, 0x1a, 0x1b, 0x22, 0x23, 0x1f01, 0x1f02 -> c.uleb();
            case 0x0e, 0x1f, 0x17, 0x1d, 0x1f20, 0x1f21 -> c.sized(u.offsetSize);
            case 0x10 -> c.sized(u.version <= 2 ? u.addressSize : u.offsetSize);
            case 0x08 -> c.skipString();
            case 0x0a -> skipBlock(c, c.u8());
            case 0x03 -> skipBlock(c, c.u16());
            case 0x04 -> skipBlock(c, c.u32());
            case 0x09, 0x18 -> skipBlock(c, c.uleb());
            case 0x19 -> 1;
            default -> throw InputException.atOffset(c.source, c.pos, "unknown DWARF form 0x" + Integer.toHexString(form));
        };
    }

    private static long skipBlock(DwarfCursor c, long length) {
        int at = c.pos;
        c.skip(length);
        return at;
    }

    private String string(Unit u, int form, long v) {
        return switch (form) {
            case 0x08 -> DwarfCursor.stringAt(info, v);
            case 0x0e -> DwarfCursor.stringAt(str, v);
            case 0x1f -> DwarfCursor.stringAt(lineStr, v);
            case 0x1a, 0x25, 0x26, 0x27, 0x28, 0x1f02 -> {
                long at = u.strOffsetsBase + v * u.offsetSize;
                if (strOffsets == null || at < 0 || at + u.offsetSize > strOffsets.length) {
                    yield null;
                }
                yield DwarfCursor.stringAt(str, new DwarfCursor(strOffsets, source, (int) at).sized(u.offsetSize));
            }
            default -> null;
        };
    }

    private long address(Unit u, int form, long v) {
        return switch (form) {
            case 0x1b, 0x29, 0x2a, 0x2b, 0x2c, 0x1f01 -> {
                long at = u.addrBase + v * u.addressSize;
                if (addr == null || at < 0 || at + u.addressSize > addr.length) {
                    yield 0;
                }
                yield new DwarfCursor(addr, source + " .debug_addr", (int) at).sized(u.addressSize);
            }
            default -> v;
        };
    }

    private static boolean isAddressForm(int form) {
        return form == 0x01 || form == 0x1b || form >= 0x29 && form <= 0x2c || form == 0x1f01;
    }

    private static long reference(Unit u, int form, long v) {
        return switch (form) {
            case 0x11, 0x12, 0x13, 0x14, 0x15 -> u.offset + v;
            case 0x10 -> v;
            default -> -1;
        };
    }

    // ---- functions ---------------------------------------------------------------------------

    private void readFunctions(Unit u, Attrs a) {
        DwarfCursor c = new DwarfCursor(info, source + " .debug_info", u.dieStart);
        int[] stackEntry = new int[64];
        int[] stackNearest = new int[64];
        int depth = 0;
        int nearest = -1;
        while (c.pos < u.end) {
            int dieOffset = c.pos;
            long code = c.uleb();
            if (code == 0) {
                if (depth == 0) {
                    break;
                }
                depth--;
                if (stackEntry[depth] >= 0) {
                    subtreeEnd[stackEntry[depth]] = entries;
                }
                nearest = stackNearest[depth];
                if (depth == 0) {
                    break;
                }
                continue;
            }
            Abbrev ab = u.abbrevs.get(code);
            if (ab == null) {
                throw InputException.atOffset(source + " .debug_info", dieOffset, "unknown abbreviation " + code);
            }
            int entry = -1;
            if (ab.tag == TAG_SUBPROGRAM || ab.tag == TAG_INLINED) {
                readAttrs(c, u, ab, a);
                entry = addFunction(u, a, ab.tag == TAG_SUBPROGRAM ? -1 : nearest, dieOffset);
            } else {
                skipAttrs(c, u, ab);
            }
            if (ab.children) {
                if (depth == stackEntry.length) {
                    stackEntry = Arrays.copyOf(stackEntry, depth * 2);
                    stackNearest = Arrays.copyOf(stackNearest, depth * 2);
                }
                stackEntry[depth] = entry;
                stackNearest[depth] = nearest;
                depth++;
                if (entry >= 0) {
                    nearest = entry;
                }
            } else if (entry >= 0) {
                subtreeEnd[entry] = entries;
            }
        }
        while (depth > 0) {
            depth--;
            if (stackEntry[depth] >= 0) {
                subtreeEnd[stackEntry[depth]] = entries;
            }
        }
    }

    private int addFunction(Unit u, Attrs a, int parentEntry, int dieOffset) {
        long low = 0;
        long high = 0;
        boolean hasLow = false;
        boolean highIsOffset = false;
        int rangesForm = -1;
        long rangesValue = 0;
        int file = -1;
        int line = 0;
        for (int i = 0; i < a.count; i++) {
            switch (a.attr[i]) {
                case AT_LOW_PC -> {
                    low = address(u, a.form[i], a.value[i]);
                    hasLow = true;
                }
                case AT_HIGH_PC -> {
                    high = isAddressForm(a.form[i]) ? address(u, a.form[i], a.value[i]) : a.value[i];
                    highIsOffset = !isAddressForm(a.form[i]);
                }
                case AT_RANGES -> {
                    rangesForm = a.form[i];
                    rangesValue = a.value[i];
                }
                case AT_CALL_FILE -> file = (int) a.value[i];
                case AT_CALL_LINE -> line = (int) a.value[i];
                default -> {
                }
            }
        }
        int firstRange = rangeCount;
        if (rangesForm >= 0) {
            readRanges(u, rangesForm, rangesValue);
        } else if (hasLow) {
            addRange(low, highIsOffset ? low + high : high);
        }
        if (rangeCount == firstRange) {
            return -1;
        }
        int e = entries;
        if (e + 1 >= parent.length) {
            int n = parent.length * 2;
            parent = Arrays.copyOf(parent, n);
            subtreeEnd = Arrays.copyOf(subtreeEnd, n);
            rangeFrom = Arrays.copyOf(rangeFrom, n + 1);
            callFile = Arrays.copyOf(callFile, n);
            callLine = Arrays.copyOf(callLine, n);
            name = Arrays.copyOf(name, n);
            linkage = Arrays.copyOf(linkage, n);
            root = Arrays.copyOf(root, n);
        }
        parent[e] = parentEntry;
        subtreeEnd[e] = e + 1;
        rangeFrom[e] = firstRange;
        rangeFrom[e + 1] = rangeCount;
        root[e] = parentEntry < 0;
        callFile[e] = file < 0 ? -1 : localFile(u, file);
        callLine[e] = line;
        NameHolder h = new NameHolder();
        applyNames(u, a, h, 0);
        name[e] = h.name == null ? null : interned.computeIfAbsent(h.name, k -> k);
        linkage[e] = h.linkage;
        entries++;
        return e;
    }

    /** binutils' rules: a linkage name wins, DW_AT_name fills in (and counts as linkage in C-like languages). */
    private void applyNames(Unit u, Attrs a, NameHolder h, int depth) {
        int count = a.count;
        int[] at = a.attr;
        int[] fo = a.form;
        long[] va = a.value;
        for (int i = 0; i < count; i++) {
            switch (at[i]) {
                case AT_NAME -> {
                    if (h.name == null) {
                        String s = string(u, fo[i], va[i]);
                        if (s != null) {
                            h.name = s;
                            if (cLike(u.language)) {
                                h.linkage = true;
                            }
                        }
                    }
                }
                case AT_LINKAGE_NAME, AT_MIPS_LINKAGE_NAME -> {
                    String s = string(u, fo[i], va[i]);
                    if (s != null) {
                        h.name = s;
                        h.linkage = true;
                    }
                }
                case AT_ABSTRACT_ORIGIN, AT_SPECIFICATION -> {
                    long ref = reference(u, fo[i], va[i]);
                    if (ref >= 0 && depth < 16) {
                        NameHolder r = namesAt(ref, depth + 1);
                        if (r != null && r.name != null) {
                            if (r.linkage) {
                                h.name = r.name;
                                h.linkage = true;
                            } else if (h.name == null) {
                                h.name = r.name;
                            }
                        }
                    }
                }
                default -> {
                }
            }
        }
    }

    private NameHolder namesAt(long dieOffset, int depth) {
        NameHolder cached = names.get(dieOffset);
        if (cached != null) {
            return cached;
        }
        Unit u = unitAt(dieOffset);
        if (u == null) {
            return null;
        }
        DwarfCursor c = new DwarfCursor(info, source + " .debug_info", (int) dieOffset);
        Abbrev ab = u.abbrevs.get(c.uleb());
        if (ab == null) {
            return null;
        }
        Attrs a = new Attrs();
        readAttrs(c, u, ab, a);
        NameHolder h = new NameHolder();
        applyNames(u, a, h, depth);
        names.put(dieOffset, h);
        return h;
    }

    /** Languages whose names binutils never demangles (its mangle_style 0): C, assembler, Fortran 77, Pascal, ... */
    private static boolean cLike(int language) {
        return switch (language) {
            case 0x01, 0x02, 0x05, 0x06, 0x07, 0x09, 0x0c, 0x0f, 0x12, 0x1d, 0x8001, 0x8765 -> true;
            default -> false;
        };
    }

    private void readRanges(Unit u, int form, long value) {
        if (u.version >= 5 || form == 0x23) {
            if (rnglists == null) {
                return;
            }
            long offset = value;
            if (form == 0x23) {
                long at = u.rnglistsBase + value * u.offsetSize;
                if (at < 0 || at + u.offsetSize > rnglists.length) {
                    return;
                }
                offset = u.rnglistsBase + new DwarfCursor(rnglists, source, (int) at).sized(u.offsetSize);
            }
            if (offset < 0 || offset >= rnglists.length) {
                return;
            }
            DwarfCursor c = new DwarfCursor(rnglists, source + " .debug_rnglists", (int) offset);
            long base = u.lowPc;
            while (true) {
                int kind = c.u8();
                switch (kind) {
                    case 0 -> {
                        return;
                    }
                    case 1 -> base = address(u, 0x1b, c.uleb());
                    case 2 -> {
                        long s = address(u, 0x1b, c.uleb());
                        addRange(s, address(u, 0x1b, c.uleb()));
                    }
                    case 3 -> {
                        long s = address(u, 0x1b, c.uleb());
                        addRange(s, s + c.uleb());
                    }
                    case 4 -> {
                        long s = c.uleb();
                        addRange(base + s, base + c.uleb());
                    }
                    case 5 -> base = c.sized(u.addressSize);
                    case 6 -> {
                        long s = c.sized(u.addressSize);
                        addRange(s, c.sized(u.addressSize));
                    }
                    case 7 -> {
                        long s = c.sized(u.addressSize);
                        addRange(s, s + c.uleb());
                    }
                    default -> throw InputException.atOffset(c.source, c.pos, "unknown range list entry " + kind);
                }
            }
        }
        if (ranges == null || value < 0 || value >= ranges.length) {
            return;
        }
        DwarfCursor c = new DwarfCursor(ranges, source + " .debug_ranges", (int) value);
        long base = u.lowPc;
        long max = u.addressSize == 8 ? -1L : 0xffffffffL;
        while (true) {
            long s = c.sized(u.addressSize);
            long e = c.sized(u.addressSize);
            if (s == 0 && e == 0) {
                return;
            }
            if (s == max) {
                base = e;
            } else {
                addRange(base + s, base + e);
            }
        }
    }

    private void addRange(long lo, long hi) {
        // code discarded at link time keeps address 0 in the DWARF
        if (lo == 0 || Long.compareUnsigned(lo, hi) >= 0) {
            return;
        }
        if (rangeCount == rangeLo.length) {
            rangeLo = Arrays.copyOf(rangeLo, rangeCount * 2);
            rangeHi = Arrays.copyOf(rangeHi, rangeCount * 2);
        }
        rangeLo[rangeCount] = lo;
        rangeHi[rangeCount] = hi;
        rangeCount++;
    }

    private void finishFunctions() {
        int roots = 0;
        for (int e = 0; e < entries; e++) {
            if (root[e]) {
                roots += rangeFrom[e + 1] - rangeFrom[e];
            }
        }
        long[] lo = new long[roots];
        long[] hi = new long[roots];
        int[] en = new int[roots];
        int k = 0;
        for (int e = 0; e < entries; e++) {
            if (root[e]) {
                for (int r = rangeFrom[e]; r < rangeFrom[e + 1]; r++) {
                    lo[k] = rangeLo[r];
                    hi[k] = rangeHi[r];
                    en[k] = e;
                    k++;
                }
            }
        }
        int[] order = IndexSort.sorted(roots, (x, y) -> Long.compareUnsigned(lo[x], lo[y]));
        rootLo = new long[roots];
        rootHi = new long[roots];
        rootEntry = new int[roots];
        rootMaxHi = new long[roots];
        long max = 0;
        for (int i = 0; i < roots; i++) {
            rootLo[i] = lo[order[i]];
            rootHi[i] = hi[order[i]];
            rootEntry[i] = en[order[i]];
            max = Long.compareUnsigned(rootHi[i], max) > 0 ? rootHi[i] : max;
            rootMaxHi[i] = max;
        }
        rootIndex = new AddressIndex(rootLo);
    }

    // ---- line programs -----------------------------------------------------------------------

    private int fileId(String path) {
        Integer id = fileIds.get(path);
        if (id == null) {
            id = files.size();
            files.add(path);
            fileIds.put(path, id);
        }
        return id;
    }

    private int localFile(Unit u, int index) {
        return index >= 0 && index < u.fileMap.length ? u.fileMap[index] : 0;
    }

    /** Runs the line program of unit {@code u}; returns its file index → file id map. */
    private int[] readLineProgram(Unit u) {
        if (u.stmtList >= lineSection.length) {
            return new int[0];
        }
        DwarfCursor c = new DwarfCursor(lineSection, source + " .debug_line", (int) u.stmtList);
        long length = c.u32();
        int offsetSize = 4;
        if (length == 0xffffffffL) {
            length = c.u64();
            offsetSize = 8;
        }
        if (length > lineSection.length - c.pos) {
            throw InputException.atOffset(c.source, u.stmtList, "line program length " + length + " runs past the section");
        }
        int end = (int) (c.pos + length);
        int version = c.u16();
        if (version < 2 || version > 5) {
            return new int[0];
        }
        int addressSize = u.addressSize;
        if (version >= 5) {
            addressSize = c.u8();
            c.u8();
        }
        long headerLength = c.sized(offsetSize);
        int programStart = (int) Math.min(end, c.pos + headerLength);
        int minInst = c.u8();
        if (version >= 4) {
            c.u8();
        }
        boolean defaultIsStmt = c.u8() != 0;
        int lineBase = (byte) c.u8();
        int lineRange = c.u8();
        int opcodeBase = c.u8();
        if (lineRange == 0) {
            throw InputException.atOffset(c.source, u.stmtList, "line program with line_range 0");
        }
        int[] opLengths = new int[Math.max(opcodeBase, 1)];
        for (int i = 1; i < opcodeBase; i++) {
            opLengths[i] = c.u8();
        }
        List<String> dirs = new ArrayList<>();
        List<String> fileNames = new ArrayList<>();
        List<Integer> fileDirs = new ArrayList<>();
        if (version >= 5) {
            readEntryTable(c, u, offsetSize, dirs, null);
            readEntryTable(c, u, offsetSize, fileNames, fileDirs);
        } else {
            while (true) {
                String d = c.string();
                if (d.isEmpty()) {
                    break;
                }
                dirs.add(d);
            }
            while (true) {
                String f = c.string();
                if (f.isEmpty()) {
                    break;
                }
                fileNames.add(f);
                fileDirs.add((int) c.uleb());
                c.uleb();
                c.uleb();
            }
        }
        c.pos = programStart;
        FileMap map = new FileMap(u, version, dirs, fileNames, fileDirs);
        runProgram(c, end, map, addressSize, minInst, lineBase, lineRange, opcodeBase, opLengths, defaultIsStmt);
        return map.ids();
    }

    /** Lazily built file ids of one line program, growing when DW_LNE_define_file adds files. */
    private final class FileMap {
        final Unit unit;
        final int version;
        final List<String> dirs;
        final List<String> names;
        final List<Integer> dirOf;
        int[] ids = new int[0];

        FileMap(Unit unit, int version, List<String> dirs, List<String> names, List<Integer> dirOf) {
            this.unit = unit;
            this.version = version;
            this.dirs = dirs;
            this.names = names;
            this.dirOf = dirOf;
        }

        int id(long index) {
            if (index < 0 || index > names.size()) {
                return 0;
            }
            int i = (int) index;
            if (i >= ids.length) {
                int old = ids.length;
                ids = Arrays.copyOf(ids, names.size() + 1);
                Arrays.fill(ids, old, ids.length, -1);
            }
            if (ids[i] < 0) {
                ids[i] = fileId(path(i));
            }
            return ids[i];
        }

        int[] ids() {
            for (int i = 0; i <= names.size(); i++) {
                id(i);
            }
            return ids;
        }

        /** binutils' concat_filename. */
        private String path(int index) {
            int i = index;
            if (version < 5) {
                if (i == 0) {
                    return UNKNOWN_FILE;
                }
                i--;
            }
            if (i >= names.size() || names.get(i) == null) {
                return UNKNOWN_FILE;
            }
            String file = names.get(i);
            if (file.startsWith("/")) {
                return file;
            }
            int dir = dirOf.get(i);
            if (version < 5) {
                dir--;
            }
            String sub = dir >= 0 && dir < dirs.size() ? dirs.get(dir) : null;
            String base = sub == null || !sub.startsWith("/") ? unit.compDir : null;
            if (base == null) {
                base = sub;
                sub = null;
            }
            if (base == null) {
                return file;
            }
            return sub != null ? base + "/" + sub + "/" + file : base + "/" + file;
        }
    }

    private void readEntryTable(DwarfCursor c, Unit u, int offsetSize, List<String> out, List<Integer> dirsOut) {
        int formatCount = c.u8();
        int[] types = new int[formatCount];
        int[] forms = new int[formatCount];
        for (int i = 0; i < formatCount; i++) {
            types[i] = (int) c.uleb();
            forms[i] = (int) c.uleb();
        }
        long count = c.uleb();
        if (count > 0 && (formatCount == 0 || count > c.b.length - c.pos)) {
            throw InputException.atOffset(c.source, c.pos, "line table entry count " + count + " does not fit");
        }
        Unit view = new Unit();
        view.offsetSize = offsetSize;
        view.addressSize = u.addressSize;
        view.version = 5;
        view.strOffsetsBase = u.strOffsetsBase;
        for (long k = 0; k < count; k++) {
            String path = null;
            int dir = 0;
            for (int i = 0; i < formatCount; i++) {
                long v = formValue(c, view, forms[i]);
                if (types[i] == 1) {
                    path = forms[i] == 0x08 ? DwarfCursor.stringAt(lineSection, v) : string(view, forms[i], v);
                } else if (types[i] == 2) {
                    dir = (int) v;
                }
            }
            out.add(path);
            if (dirsOut != null) {
                dirsOut.add(dir);
            }
        }
    }

    private void runProgram(DwarfCursor c, int end, FileMap files, int addressSize, int minInst, int lineBase,
                            int lineRange, int opcodeBase, int[] opLengths, boolean defaultIsStmt) {
        long address = 0;
        long file = 1;
        long line = 1;
        int disc = 0;
        boolean inSequence = false;
        // binutils 2.40 starts a DWARF 5 sequence in file 0, not file 1, until the program sets one
        boolean fileSet = files.version < 5;
        while (c.pos < end) {
            int op = c.u8();
            if (op >= opcodeBase) {
                int adj = op - opcodeBase;
                address += (long) (adj / lineRange) * minInst;
                line += lineBase + adj % lineRange;
                inSequence = row(address, files.id(file), fileSet ? -1 : files.id(0), line, disc, inSequence);
                disc = 0;
            } else if (op == 0) {
                long len = c.uleb();
                int next = (int) Math.min(end, c.pos + len);
                if (len == 0) {
                    continue;
                }
                int sub = c.u8();
                switch (sub) {
                    case 1 -> {
                        if (inSequence) {
                            endSequence(address);
                        }
                        inSequence = false;
                        fileSet = files.version < 5;
                        address = 0;
                        file = 1;
                        line = 1;
                        disc = 0;
                    }
                    case 2 -> address = c.sized(len == 5 || len == 9 ? (int) len - 1 : addressSize);
                    case 3 -> {
                        files.names.add(c.string());
                        files.dirOf.add((int) c.uleb());
                    }
                    case 4 -> disc = (int) c.uleb();
                    default -> {
                    }
                }
                c.pos = next;
            } else {
                switch (op) {
                    case 1 -> {
                        inSequence = row(address, files.id(file), fileSet ? -1 : files.id(0), line, disc, inSequence);
                        disc = 0;
                    }
                    case 2 -> address += c.uleb() * minInst;
                    case 3 -> line += c.sleb();
                    case 4 -> {
                        file = c.uleb();
                        fileSet = true;
                    }
                    case 8 -> address += (long) ((255 - opcodeBase) / lineRange) * minInst;
                    case 9 -> address += c.u16();
                    default -> {
                        for (int i = 0; i < opLengths[op]; i++) {
                            c.uleb();
                        }
                    }
                }
            }
        }
        if (inSequence) {
            endSequence(address);
        }
    }

    private boolean row(long address, int file, int bfdFile, long line, int disc, boolean inSequence) {
        if (!inSequence) {
            if (seqCount == seqStart.length) {
                seqStart = Arrays.copyOf(seqStart, seqCount * 2);
                seqFrom = Arrays.copyOf(seqFrom, seqCount * 2);
                seqTo = Arrays.copyOf(seqTo, seqCount * 2);
            }
            seqStart[seqCount] = address;
            seqFrom[seqCount] = tRows;
        }
        addRow(address, file, (int) line, disc);
        tBfd[tRows - 1] = bfdFile < 0 ? file : bfdFile;
        bfdDiffers |= bfdFile >= 0 && bfdFile != file;
        return true;
    }

    private void endSequence(long address) {
        addRow(address, -1, 0, 0);
        tBfd[tRows - 1] = -1;
        seqTo[seqCount] = tRows;
        seqCount++;
    }

    private void addRow(long address, int file, int line, int disc) {
        if (tRows == tAddr.length) {
            int n = tRows * 2;
            tAddr = Arrays.copyOf(tAddr, n);
            tFile = Arrays.copyOf(tFile, n);
            tLine = Arrays.copyOf(tLine, n);
            tDisc = Arrays.copyOf(tDisc, n);
            tBfd = Arrays.copyOf(tBfd, n);
        }
        tAddr[tRows] = address;
        tFile[tRows] = file;
        tLine[tRows] = line;
        tDisc[tRows] = disc;
        tRows++;
    }

    private void finishLines() {
        long[] starts = seqStart;
        int[] order = IndexSort.sorted(seqCount, (x, y) -> Long.compareUnsigned(starts[x], starts[y]));
        int total = 0;
        for (int s = 0; s < seqCount; s++) {
            if (seqStart[s] != 0) {
                total += seqTo[s] - seqFrom[s];
            }
        }
        rowAddr = new long[total];
        rowFile = new int[total];
        rowLine = new int[total];
        rowDisc = new int[total];
        rowBfdFile = bfdDiffers ? new int[total] : null;
        int k = 0;
        for (int i = 0; i < seqCount; i++) {
            int s = order[i];
            // sequences of code discarded at link time start at address 0
            if (seqStart[s] == 0) {
                continue;
            }
            int n = seqTo[s] - seqFrom[s];
            System.arraycopy(tAddr, seqFrom[s], rowAddr, k, n);
            System.arraycopy(tFile, seqFrom[s], rowFile, k, n);
            System.arraycopy(tLine, seqFrom[s], rowLine, k, n);
            System.arraycopy(tDisc, seqFrom[s], rowDisc, k, n);
            if (rowBfdFile != null) {
                System.arraycopy(tBfd, seqFrom[s], rowBfdFile, k, n);
            }
            k += n;
        }
        rowIndex = new AddressIndex(rowAddr);
        tAddr = null;
        tFile = null;
        tLine = null;
        tDisc = null;
        tBfd = null;
        seqStart = null;
        seqFrom = null;
        seqTo = null;
    }

    // ---- queries -----------------------------------------------------------------------------

    /** The line row covering {@code address} (the last row at or below it within a sequence), or -1. */
    int lineRow(long address) {
        int r = rowIndex.upperBound(address) - 1;
        return r >= 0 && rowFile[r] >= 0 ? r : -1;
    }

    String rowFile(int row) {
        return files.get(rowFile[row]);
    }

    /** The file GNU addr2line 2.40 reports for a row (it differs where a DWARF 5 sequence never sets its file). */
    String rowFileAsBinutils(int row) {
        return rowBfdFile == null ? rowFile(row) : files.get(rowBfdFile[row]);
    }

    int rowLine(int row) {
        return rowLine[row];
    }

    int rowDiscriminator(int row) {
        return rowDisc[row];
    }

    /** The innermost function (inlined or not) whose ranges contain {@code address}, or -1. */
    int innermost(long address) {
        int lo = rootIndex.upperBound(address);
        int best = -1;
        long bestLength = -1;
        for (int i = lo - 1, steps = 0; i >= 0 && steps < 32; i--, steps++) {
            if (Long.compareUnsigned(rootMaxHi[i], address) <= 0) {
                break;
            }
            if (Long.compareUnsigned(address, rootHi[i]) < 0) {
                long length = rootHi[i] - rootLo[i];
                if (best < 0 || Long.compareUnsigned(length, bestLength) < 0) {
                    best = rootEntry[i];
                    bestLength = length;
                }
            }
        }
        if (best < 0) {
            return -1;
        }
        int e = best;
        int c = e + 1;
        int end = subtreeEnd[e];
        while (c < end) {
            if (!root[c] && contains(c, address)) {
                e = c;
                end = subtreeEnd[c];
                c = c + 1;
            } else {
                c = subtreeEnd[c];
            }
        }
        return e;
    }

    private boolean contains(int e, long address) {
        for (int r = rangeFrom[e]; r < rangeFrom[e + 1]; r++) {
            if (Long.compareUnsigned(address - rangeLo[r], rangeHi[r] - rangeLo[r]) < 0) {
                return true;
            }
        }
        return false;
    }

    /** The enclosing function of an inlined one, or -1 for a subprogram. */
    int parent(int e) {
        return parent[e];
    }

    /** The function's name (a linkage name where DWARF gives one), or null. */
    String name(int e) {
        return name[e];
    }

    /** True when binutils treats the name as final (linkage name, or a C-like language). */
    boolean isLinkageName(int e) {
        return linkage[e];
    }

    /** The low address of the function's first range. */
    long firstLow(int e) {
        return rangeLo[rangeFrom[e]];
    }

    /** The lowest address of the function. */
    long lowest(int e) {
        long m = rangeLo[rangeFrom[e]];
        for (int r = rangeFrom[e] + 1; r < rangeFrom[e + 1]; r++) {
            if (Long.compareUnsigned(rangeLo[r], m) < 0) {
                m = rangeLo[r];
            }
        }
        return m;
    }

    /** The file of the call site of an inlined function, or null. */
    String callFile(int e) {
        return callFile[e] < 0 ? null : files.get(callFile[e]);
    }

    int callLine(int e) {
        return callLine[e];
    }

    int functionCount() {
        return entries;
    }

    int rowCount() {
        return rowAddr.length;
    }
}
