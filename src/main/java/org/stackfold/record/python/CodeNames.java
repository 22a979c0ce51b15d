package org.stackfold.record.python;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.stackfold.format.tachyon.TachyonOptions;

/**
 * Names Python frames of one process: code object → {@code co_qualname} (or {@code co_name}),
 * {@code co_filename}, {@code co_firstlineno} and the line of an instruction from
 * {@code co_linetable}, read from the process's memory. Each code object is read once and cached
 * by its address; a cached entry is validated on each use by two reads: the code object's head
 * ({@code ob_type}, {@code co_argcount}, {@code co_firstlineno} and the addresses of its file name,
 * name, qualified name and line table) and the text of its qualified name, so a code object that
 * died and whose memory was reused is read again (or reported dead) rather than misnamed. The text
 * is read again because a function redefined from the same source (a generated or {@code exec}'d
 * function: same lines, same arguments, a new name) is allocated where the old one was, and so is
 * its name's string: CPython's allocator hands the freed blocks straight back. Strings are read
 * compactly: ASCII, latin-1, UCS-2 and UCS-4 kinds, at most {@link #MAX_CHARS} characters.
 */
public final class CodeNames {
    /** Longest string read from a process (names and file names longer are cut). */
    public static final int MAX_CHARS = 4096;
    /** Largest line table read. */
    public static final int MAX_LINETABLE = 1 << 20;

    /** A code object's names and line table. */
    public record Code(long address, String qualname, String name, String filename, int firstLine, int argcount,
                       byte[] linetable, Check check) {
        /** The function as CPython's sampler names it: the qualified name where there is one. */
        public String function() {
            return qualname != null && !qualname.isEmpty() ? qualname : name;
        }

        public int line(int instruction) {
            return LineTable.line(linetable, firstLine, instruction);
        }
    }

    /**
     * What a cached code object is validated by: its head's bytes from {@code ob_type} to the last of
     * the fields named above (the fields in between that change as the code runs are masked out by
     * comparing only the named ones), and its qualified name's bytes from its {@code length} field to
     * the end of its text as read then ({@code nameBytes} at {@code nameAt}, null if it was not a
     * compact string); of those, the length and the text ({@code nameBytes} from {@code textFrom}) are
     * compared, not the hash and state between them.
     */
    public record Check(byte[] head, long nameAt, byte[] nameBytes, int textFrom) {
    }

    private final ProcessMemory mem;
    private final PythonOffsets o;
    private final Map<Long, Code> cache = new HashMap<>();
    /** Address of {@code PyCode_Type} in this process, once one code object was checked by its type's name. */
    private long codeType;
    private long misses;
    private long stale;

    public CodeNames(ProcessMemory mem, PythonOffsets offsets) {
        this.mem = mem;
        this.o = offsets;
    }

    /** Code objects read from memory (not served from the cache). */
    public long misses() {
        return misses;
    }

    /** Cached entries found stale (the code object died and its memory now holds something else). */
    public long stale() {
        return stale;
    }

    /** The code object at {@code address}, or null if it is not one (dead, or a racing read). */
    public Code code(long address) {
        try {
            Code c = cache.get(address);
            if (c != null) {
                if (same(address, c.check())) {
                    return c;
                }
                stale++;
                cache.remove(address);
            }
            misses++;
            c = read(address);
            if (c != null) {
                cache.put(address, c);
            }
            return c;
        } catch (ProcessMemory.MemoryFault e) {
            return null;
        }
    }

    private Code read(long address) throws ProcessMemory.MemoryFault {
        long type = mem.u64(address + PythonOffsets.OB_TYPE);
        if (codeType == 0) {
            long tpName = mem.u64(type + PythonOffsets.TP_NAME);
            if (!"code".equals(cString(tpName, 16))) {
                return null;
            }
            codeType = type;
        } else if (type != codeType) {
            return null;
        }
        int size = Math.max(o.codeAdaptive(), Math.max(o.codeLinetable(), o.codeQualname()) + 8);
        ByteBuffer c = ByteBuffer.wrap(mem.read(address, size)).order(ByteOrder.LITTLE_ENDIAN);
        String qualname = unicode(c.getLong(o.codeQualname()));
        String name = unicode(c.getLong(o.codeName()));
        String filename = unicode(c.getLong(o.codeFilename()));
        byte[] linetable = bytes(c.getLong(o.codeLinetable()));
        byte[] head = java.util.Arrays.copyOfRange(c.array(), PythonOffsets.OB_TYPE, headEnd());
        long nameAt = c.getLong(o.codeQualname());
        return new Code(address, qualname, name, filename, c.getInt(o.codeFirstlineno()), c.getInt(o.codeArgcount()),
                linetable, check(head, nameAt));
    }

    /** Where the fields a cached code object is validated by end. */
    private int headEnd() {
        return Math.max(Math.max(Math.max(o.codeArgcount(), o.codeFirstlineno()) + 4, o.codeLinetable() + 8),
                Math.max(Math.max(o.codeFilename(), o.codeName()), o.codeQualname()) + 8);
    }

    /** Whether the code object at {@code address} is still the one {@code check} was taken of (two reads). */
    private boolean same(long address, Check check) throws ProcessMemory.MemoryFault {
        ByteBuffer now = ByteBuffer.wrap(mem.read(address + PythonOffsets.OB_TYPE, check.head().length))
                .order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer then = ByteBuffer.wrap(check.head()).order(ByteOrder.LITTLE_ENDIAN);
        int base = PythonOffsets.OB_TYPE;
        if (now.getLong(0) != codeType || now.getLong(0) != then.getLong(0)) {
            return false;
        }
        for (int field : new int[] {o.codeArgcount(), o.codeFirstlineno()}) {
            if (now.getInt(field - base) != then.getInt(field - base)) {
                return false;
            }
        }
        for (int field : new int[] {o.codeFilename(), o.codeName(), o.codeQualname(), o.codeLinetable()}) {
            if (now.getLong(field - base) != then.getLong(field - base)) {
                return false;
            }
        }
        if (check.nameBytes() == null) {
            return true;
        }
        // The name's string may have died with the code and its block been reused by the new name's string.
        byte[] name = mem.read(check.nameAt() + o.unicodeLength(), check.nameBytes().length);
        byte[] old = check.nameBytes();
        return java.util.Arrays.equals(name, 0, 8, old, 0, 8)
                && java.util.Arrays.equals(name, check.textFrom(), name.length, old, check.textFrom(), old.length);
    }

    /**
     * The check of a code object: its head, and its qualified name's bytes from the string's
     * {@code length} field to the end of its text where it is a compact string of at most
     * {@link #MAX_CHARS} characters (else no text check).
     */
    private Check check(byte[] head, long obj) throws ProcessMemory.MemoryFault {
        if (obj == 0) {
            return new Check(head, 0, null, 0);
        }
        long length = mem.u64(obj + o.unicodeLength());
        int state = mem.u32(obj + o.unicodeState());
        int kind = (state >>> 2) & 7;
        boolean compact = (state & (1 << 5)) != 0;
        boolean ascii = (state & (1 << 6)) != 0;
        if (!compact || length < 0 || length > MAX_CHARS || kind != 1 && kind != 2 && kind != 4) {
            return new Check(head, obj, null, 0);
        }
        int textFrom = (ascii ? o.asciiObjectSize() : o.compactObjectSize()) - o.unicodeLength();
        return new Check(head, obj, mem.read(obj + o.unicodeLength(), textFrom + (int) length * kind), textFrom);
    }

    /** A {@code str} object's text, or {@code "?"} if it cannot be read. */
    String unicode(long obj) throws ProcessMemory.MemoryFault {
        if (obj == 0) {
            return "?";
        }
        long length = mem.u64(obj + o.unicodeLength());
        int state = mem.u32(obj + o.unicodeState());
        int kind = (state >>> 2) & 7;
        boolean compact = (state & (1 << 5)) != 0;
        boolean ascii = (state & (1 << 6)) != 0;
        if (length < 0 || kind != 1 && kind != 2 && kind != 4) {
            return "?";
        }
        int n = (int) Math.min(length, MAX_CHARS);
        long data;
        if (compact) {
            data = obj + (ascii ? o.asciiObjectSize() : o.compactObjectSize());
        } else {
            // A legacy string: its text is behind the pointer that follows PyCompactUnicodeObject.
            data = mem.u64(obj + o.compactObjectSize());
        }
        if (n == 0) {
            return "";
        }
        byte[] raw = mem.read(data, n * kind);
        return switch (kind) {
            case 1 -> new String(raw, ascii ? StandardCharsets.US_ASCII : StandardCharsets.ISO_8859_1);
            case 2 -> new String(raw, StandardCharsets.UTF_16LE);
            default -> {
                StringBuilder s = new StringBuilder(n);
                ByteBuffer b = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
                for (int i = 0; i < n; i++) {
                    int cp = b.getInt(i * 4);
                    s.appendCodePoint(Character.isValidCodePoint(cp) ? cp : 0xfffd);
                }
                yield s.toString();
            }
        };
    }

    private byte[] bytes(long obj) throws ProcessMemory.MemoryFault {
        if (obj == 0) {
            return new byte[0];
        }
        long size = mem.u64(obj + o.bytesObSize());
        if (size <= 0 || size > MAX_LINETABLE) {
            return new byte[0];
        }
        return mem.read(obj + o.bytesObSval(), (int) size);
    }

    private String cString(long address, int max) throws ProcessMemory.MemoryFault {
        byte[] b = mem.read(address, max);
        int end = 0;
        while (end < max && b[end] != 0) {
            end++;
        }
        return new String(b, 0, end, StandardCharsets.ISO_8859_1);
    }

    /**
     * A frame's text as CPython's sampler's collapsed output names it ({@code --tachyon-naming}):
     * {@code cpython} {@code basename:function:line}, {@code function}, {@code file}
     * {@code path:function}, {@code line} {@code path:function:line}; line 0 where unknown.
     */
    public static String label(TachyonOptions.Naming naming, Code code, int line) {
        String function = code.function();
        return switch (naming) {
            case FUNCTION, RAW -> function;
            case FILE -> code.filename() + ":" + function;
            case LINE -> code.filename() + ":" + function + ":" + line;
            case CPYTHON -> code.filename().substring(code.filename().lastIndexOf('/') + 1) + ":" + function + ":"
                    + line;
        };
    }

    /** The text of one frame: {@link #label} of its code object, or {@code <dead code 0x…>}. */
    public String label(TachyonOptions.Naming naming, PythonFrame frame) {
        Code c = code(frame.code());
        if (c == null) {
            return String.format("<dead code 0x%x>", frame.code());
        }
        return label(naming, c, c.line(frame.instruction()));
    }
}
