package org.stackfold.record.python;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The numbers a reader of a CPython process needs, for one minor version: field offsets of the
 * runtime, interpreter, thread state, interpreter frame, code, bytes and unicode objects, and how
 * frames are told apart (owner values, tag bits). CPython 3.13+ publishes them itself in
 * {@code _Py_DebugOffsets} at the start of {@code _PyRuntime} ({@link #fromDebugOffsets}); 3.11
 * and 3.12 come from the built-in table ({@link #builtIn}), taken from CPython's headers of those
 * versions and checked with gdb against pyenv's 3.11.7 and 3.12.1 and by walks of Debian's 3.11.2
 * (docs/python.md has the table). Offsets are in bytes; -1 where a field does not exist in that
 * version.
 *
 * @param version              {@code PY_VERSION_HEX} (e.g. 0x030d00f0 for 3.13.0)
 * @param source               where the numbers came from
 * @param interpretersHead     {@code _PyRuntimeState.interpreters.head}
 * @param interpNext           {@code PyInterpreterState.next}
 * @param interpThreadsHead    {@code PyInterpreterState.threads.head}
 * @param tstateNext           {@code PyThreadState.next}
 * @param tstateThreadId       {@code PyThreadState.thread_id} (pthread_t)
 * @param tstateNativeThreadId {@code PyThreadState.native_thread_id} (the kernel's tid)
 * @param tstateCframe         {@code PyThreadState.cframe} (3.11, 3.12) or -1: current frame in the state itself
 * @param currentFrame         {@code _PyCFrame.current_frame} (3.11, 3.12) or {@code PyThreadState.current_frame}
 * @param frameSize            bytes of {@code _PyInterpreterFrame} before {@code localsplus} (one read per frame)
 * @param framePrevious        {@code _PyInterpreterFrame.previous}
 * @param frameExecutable      {@code f_code} (3.11, 3.12) / {@code f_executable} (3.13+)
 * @param frameInstrPtr        {@code prev_instr} (3.11, 3.12: last instruction begun) / {@code instr_ptr} (3.13+)
 * @param frameOwner           {@code _PyInterpreterFrame.owner} (a char)
 * @param frameIsEntry         {@code _PyInterpreterFrame.is_entry} (3.11 only) or -1
 * @param ownerNotPython       owner values at or above this are not Python frames: the entry frame
 *                             each {@code _PyEval_EvalFrameDefault} activation pushes (3 from 3.12
 *                             on), 256 where there is none (3.11)
 * @param executableTagMask    low bits of {@code f_executable} that are tags, not address (3.14+: a {@code _PyStackRef})
 * @param codeFilename         {@code PyCodeObject.co_filename}
 * @param codeName             {@code co_name}
 * @param codeQualname         {@code co_qualname}
 * @param codeLinetable        {@code co_linetable} (a bytes object, 3.11+ location table)
 * @param codeFirstlineno      {@code co_firstlineno} (int)
 * @param codeArgcount         {@code co_argcount} (int)
 * @param codeAdaptive         {@code co_code_adaptive}: the first instruction
 * @param bytesObSize          {@code PyBytesObject.ob_size}
 * @param bytesObSval          {@code PyBytesObject.ob_sval}
 * @param unicodeState         {@code PyASCIIObject.state} (bit field: kind bits 2-4, compact 5, ascii 6)
 * @param unicodeLength        {@code PyASCIIObject.length}
 * @param asciiObjectSize      {@code sizeof(PyASCIIObject)}: where compact ASCII text starts
 * @param compactObjectSize    {@code sizeof(PyCompactUnicodeObject)}: where other compact text starts
 */
public record PythonOffsets(int version, Source source, int interpretersHead, int interpNext, int interpThreadsHead,
                            int tstateNext, int tstateThreadId, int tstateNativeThreadId, int tstateCframe,
                            int currentFrame, int frameSize, int framePrevious, int frameExecutable,
                            int frameInstrPtr, int frameOwner, int frameIsEntry, int ownerNotPython,
                            long executableTagMask, int codeFilename, int codeName, int codeQualname,
                            int codeLinetable, int codeFirstlineno, int codeArgcount, int codeAdaptive,
                            int bytesObSize, int bytesObSval, int unicodeState, int unicodeLength,
                            int asciiObjectSize, int compactObjectSize) {

    /** Where the offsets came from. */
    public enum Source {
        /** Stackfold's table for 3.11 and 3.12. */
        BUILT_IN,
        /** The process's own {@code _Py_DebugOffsets} (3.13+). */
        DEBUG_OFFSETS
    }

    /** Offset of {@code ob_type} in every object (and of {@code tp_name} in a type: 24). */
    public static final int OB_TYPE = 8;
    public static final int TP_NAME = 24;

    /** Size of {@link #mapValue()}: the value of the BPF map {@code pyprocs[pid]}. */
    public static final int MAP_VALUE_SIZE = 80;
    /** First field of the map value; bumped when the layout changes. */
    public static final int MAP_VALUE_LAYOUT = 1;

    public int major() {
        return version >>> 24;
    }

    public int minor() {
        return (version >>> 16) & 0xff;
    }

    /** {@code 3.13.0}, {@code 3.14.0rc2}: the version as CPython prints it. */
    public String versionString() {
        return versionString(version);
    }

    static String versionString(int hex) {
        int level = (hex >>> 4) & 0xf;
        int serial = hex & 0xf;
        String base = (hex >>> 24) + "." + ((hex >>> 16) & 0xff) + "." + ((hex >>> 8) & 0xff);
        return switch (level) {
            case 0xa -> base + "a" + serial;
            case 0xb -> base + "b" + serial;
            case 0xc -> base + "rc" + serial;
            default -> base;
        };
    }

    /** The built-in table for 3.11 and 3.12, or null for any other version. */
    public static PythonOffsets builtIn(int versionHex) {
        int minor = (versionHex >>> 16) & 0xff;
        if (versionHex >>> 24 != 3) {
            return null;
        }
        return switch (minor) {
            // Include/internal/pycore_runtime.h, pycore_interp.h, pycore_frame.h, cpython/pystate.h,
            // cpython/code.h, cpython/unicodeobject.h of v3.11.x; gdb on pyenv 3.11.7 gives the same.
            case 11 -> new PythonOffsets(versionHex, Source.BUILT_IN, 40, 0, 16,
                    8, 152, 160, 56, 8,
                    72, 48, 32, 56, 69, 68, 256, 0,
                    112, 120, 128, 136, 72, 56, 184,
                    16, 32, 32, 16, 48, 72);
            // The same headers of v3.12.x; gdb on pyenv 3.12.1.
            case 12 -> new PythonOffsets(versionHex, Source.BUILT_IN, 40, 0, 72,
                    8, 136, 144, 56, 0,
                    72, 8, 0, 56, 70, -1, 3, 0,
                    112, 120, 128, 136, 68, 52, 192,
                    16, 32, 32, 16, 40, 56);
            default -> null;
        };
    }

    // ---- _Py_DebugOffsets (3.13+) ----

    /** One group of {@code _Py_DebugOffsets}: its fields in order, every one a u64. */
    private record Group(String name, String... fields) {
    }

    private static final Group RUNTIME = new Group("runtime_state", "size", "finalizing", "interpreters_head");
    private static final Group INTERP_13 = new Group("interpreter_state", "size", "id", "next", "threads_head", "gc",
            "imports_modules", "sysdict", "builtins", "ceval_gil", "gil_runtime_state", "gil_runtime_state_enabled",
            "gil_runtime_state_locked", "gil_runtime_state_holder");
    private static final Group INTERP_14 = new Group("interpreter_state", "size", "id", "next", "threads_head",
            "threads_main", "gc", "imports_modules", "sysdict", "builtins", "ceval_gil", "gil_runtime_state",
            "gil_runtime_state_enabled", "gil_runtime_state_locked", "gil_runtime_state_holder",
            "code_object_generation", "tlbc_generation");
    private static final Group TSTATE_13 = new Group("thread_state", "size", "prev", "next", "interp", "current_frame",
            "thread_id", "native_thread_id", "datastack_chunk", "status");
    /**
     * 3.15 adds base_frame and last_profiled_frame after current_frame, one more field (offset 96 in
     * 3.15.2, not read here), and GIL and exception fields after status; read from Debian's 3.15.2.
     */
    private static final Group TSTATE_15 = new Group("thread_state", "size", "prev", "next", "interp", "current_frame",
            "base_frame", "last_profiled_frame", "unread_7", "thread_id", "native_thread_id", "datastack_chunk",
            "status", "unread_12", "unread_13", "unread_14", "unread_15");
    private static final Group ERR_STACKITEM = new Group("err_stackitem", "exc_value");
    private static final Group FRAME_13 = new Group("interpreter_frame", "size", "previous", "executable",
            "instr_ptr", "localsplus", "owner");
    private static final Group FRAME_14 = new Group("interpreter_frame", "size", "previous", "executable",
            "instr_ptr", "localsplus", "owner", "stackpointer", "tlbc_index");
    private static final Group CODE_13 = new Group("code_object", "size", "filename", "name", "qualname", "linetable",
            "firstlineno", "argcount", "localsplusnames", "localspluskinds", "co_code_adaptive");
    private static final Group CODE_14 = new Group("code_object", "size", "filename", "name", "qualname", "linetable",
            "firstlineno", "argcount", "localsplusnames", "localspluskinds", "co_code_adaptive", "co_tlbc");
    private static final Group PYOBJECT = new Group("pyobject", "size", "ob_type");
    private static final Group TYPE = new Group("type_object", "size", "tp_name", "tp_repr", "tp_flags");
    /** Four values 3.15 has between the type and tuple groups (32, 288, 944, 888 in 3.15.2); not read. */
    private static final Group UNREAD_15 = new Group("unread_15", "a", "b", "c", "d");
    private static final Group TUPLE = new Group("tuple_object", "size", "ob_item", "ob_size");
    private static final Group LIST = new Group("list_object", "size", "ob_item", "ob_size");
    private static final Group SET = new Group("set_object", "size", "used", "table", "mask");
    private static final Group DICT = new Group("dict_object", "size", "ma_keys", "ma_values");
    private static final Group FLOAT = new Group("float_object", "size", "ob_fval");
    private static final Group LONG = new Group("long_object", "size", "lv_tag", "ob_digit");
    private static final Group BYTES = new Group("bytes_object", "size", "ob_size", "ob_sval");
    private static final Group UNICODE = new Group("unicode_object", "size", "state", "length", "asciiobject_size");

    /**
     * The layouts of {@code _Py_DebugOffsets} itself, per minor version, up to the unicode group
     * (all a reader needs): from CPython's headers and checked against the values in real builds
     * (3.13: pyenv 3.13.0; 3.14: Debian's 3.14.10; 3.15: Debian's 3.15.2; docs/python.md). A
     * layout is accepted only if the values it decodes pass {@link #anchored}: one that is off by a
     * field fails those checks, so an unexpected layout (a pre-release, a later patch that changed
     * it) is refused in one line rather than misread.
     */
    private static final Map<Integer, List<List<Group>>> LAYOUTS = Map.of(
            13, List.of(List.of(RUNTIME, INTERP_13, TSTATE_13, FRAME_13, CODE_13, PYOBJECT, TYPE, TUPLE, LIST, DICT,
                    FLOAT, LONG, BYTES, UNICODE)),
            14, List.of(List.of(RUNTIME, INTERP_14, TSTATE_13, FRAME_14, CODE_14, PYOBJECT, TYPE, TUPLE, LIST, SET,
                    DICT, FLOAT, LONG, BYTES, UNICODE)),
            15, List.of(List.of(RUNTIME, INTERP_14, TSTATE_15, ERR_STACKITEM, FRAME_14, CODE_14, PYOBJECT, TYPE,
                    UNREAD_15, TUPLE, LIST, SET, DICT, FLOAT, LONG, BYTES, UNICODE)));

    /** Bytes of {@code _Py_DebugOffsets} to read: more than any known layout's groups a reader decodes. */
    public static final int DEBUG_OFFSETS_READ = 1024;

    /** Minor versions whose {@code _Py_DebugOffsets} layout is known. */
    public static boolean knowsDebugOffsets(int minor) {
        return LAYOUTS.containsKey(minor);
    }

    /**
     * Decodes {@code _Py_DebugOffsets} (the bytes at {@code _PyRuntime}, starting with the cookie).
     *
     * @throws IllegalArgumentException with a one-line reason if the build is free-threaded, the
     *                                  version is not known or no known layout of it checks out
     */
    public static PythonOffsets fromDebugOffsets(byte[] raw) {
        ByteBuffer b = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
        int version = (int) b.getLong(8);
        int minor = (version >>> 16) & 0xff;
        if (b.getLong(16) != 0) {
            throw new IllegalArgumentException("CPython " + versionString(version)
                    + "t: free-threaded builds are not supported yet");
        }
        List<List<Group>> candidates = LAYOUTS.get(minor);
        if (version >>> 24 != 3 || candidates == null) {
            throw new IllegalArgumentException("CPython " + versionString(version)
                    + ": the layout of its _Py_DebugOffsets is not known (3.13, 3.14 and 3.15 are)");
        }
        for (List<Group> layout : candidates) {
            Map<String, Long> f = decode(b, layout);
            if (f != null && anchored(f)) {
                return of(version, minor, f);
            }
        }
        throw new IllegalArgumentException("CPython " + versionString(version)
                + ": its _Py_DebugOffsets do not match any known layout of 3." + minor);
    }

    private static Map<String, Long> decode(ByteBuffer b, List<Group> layout) {
        Map<String, Long> f = new HashMap<>();
        int at = 24;
        for (Group g : layout) {
            for (String field : g.fields) {
                if (at + 8 > b.limit()) {
                    return null;
                }
                f.put(g.name + "." + field, b.getLong(at));
                at += 8;
            }
        }
        return f;
    }

    /** Values every CPython 3.11+ build on a 64-bit machine has: a misaligned layout fails them. */
    private static boolean anchored(Map<String, Long> f) {
        long frameSize = f.get("interpreter_frame.size");
        long codeSize = f.get("code_object.size");
        return f.get("pyobject.size") == 16 && f.get("pyobject.ob_type") == OB_TYPE
                && f.get("type_object.tp_name") == TP_NAME
                && f.get("tuple_object.ob_size") == 16
                && f.get("list_object.ob_size") == 16
                && f.get("bytes_object.ob_size") == 16 && f.get("bytes_object.ob_sval") == 32
                && f.get("unicode_object.length") == 16 && f.get("unicode_object.state") == 32
                && f.get("unicode_object.asciiobject_size") == 40
                && f.get("thread_state.prev") == 0 && f.get("thread_state.next") == 8
                && f.get("thread_state.interp") == 16
                && f.get("thread_state.native_thread_id") == f.get("thread_state.thread_id") + 8
                && frameSize >= 48 && frameSize <= 256
                && f.get("interpreter_frame.previous") < frameSize && f.get("interpreter_frame.owner") < frameSize
                && f.get("interpreter_frame.instr_ptr") < frameSize
                && f.get("interpreter_frame.executable") < frameSize
                && codeSize >= 128 && codeSize <= 1024
                && f.get("code_object.co_code_adaptive") < codeSize && f.get("code_object.qualname") < codeSize
                && f.get("code_object.linetable") < codeSize && f.get("code_object.filename") < codeSize;
    }

    private static PythonOffsets of(int version, int minor, Map<String, Long> f) {
        int ascii = i(f, "unicode_object.asciiobject_size");
        long frameSize = f.get("interpreter_frame.size");
        return new PythonOffsets(version, Source.DEBUG_OFFSETS, i(f, "runtime_state.interpreters_head"),
                i(f, "interpreter_state.next"), i(f, "interpreter_state.threads_head"),
                i(f, "thread_state.next"), i(f, "thread_state.thread_id"), i(f, "thread_state.native_thread_id"),
                -1, i(f, "thread_state.current_frame"),
                // Up to localsplus: the fields of the frame itself, not its locals.
                (int) Math.min(frameSize, f.get("interpreter_frame.localsplus")),
                i(f, "interpreter_frame.previous"), i(f, "interpreter_frame.executable"),
                i(f, "interpreter_frame.instr_ptr"), i(f, "interpreter_frame.owner"), -1,
                // 3.13: FRAME_OWNED_BY_CSTACK = 3; 3.14: FRAME_OWNED_BY_INTERPRETER = 3; 3.15 adds 4.
                3,
                // 3.14+: f_executable is a _PyStackRef whose low bits are tags; objects are 8-aligned.
                minor >= 14 ? 7 : 0,
                i(f, "code_object.filename"), i(f, "code_object.name"), i(f, "code_object.qualname"),
                i(f, "code_object.linetable"), i(f, "code_object.firstlineno"), i(f, "code_object.argcount"),
                i(f, "code_object.co_code_adaptive"),
                i(f, "bytes_object.ob_size"), i(f, "bytes_object.ob_sval"),
                i(f, "unicode_object.state"), i(f, "unicode_object.length"), ascii,
                // PyCompactUnicodeObject adds utf8_length and utf8 (3.12+, no wstr).
                ascii + 16);
    }

    private static int i(Map<String, Long> f, String key) {
        long v = f.get(key);
        if (v < 0 || v > 1 << 20) {
            throw new IllegalArgumentException("_Py_DebugOffsets: " + key + " = " + v + " is not an offset");
        }
        return (int) v;
    }

    /**
     * The value of the BPF map {@code pyprocs[pid]} for a process using these offsets: what the
     * in-kernel walk reads, all little-endian, {@link #MAP_VALUE_SIZE} bytes (layout in
     * docs/python.md, "BPF map value"):
     *
     * <pre>
     *  0 u32 layout (1)            4 u32 PY_VERSION_HEX
     *  8 u64 _PyRuntime address   16 u64 eval loop start   24 u64 eval loop end
     * 32 u64 .cold start          40 u64 .cold end (0, 0 when unknown)
     * 48 u16 interpreters_head    50 u16 interp.next       52 u16 interp.threads_head
     * 54 u16 tstate.next          56 u16 tstate.native_thread_id
     * 58 u16 tstate.cframe (0xffff: none)                  60 u16 current_frame
     * 62 u16 frame read size      64 u16 frame.previous    66 u16 frame.executable
     * 68 u16 frame.instr_ptr      70 u16 frame.owner       72 u16 frame.is_entry (0xffff: none)
     * 74 u16 code.co_code_adaptive
     * 76 u8  first owner value that is not a Python frame (0xff: none)
     * 77 u8  tag bits of executable to clear
     * 78 u8  flags: bit 0 instr_ptr is the last instruction begun (3.11, 3.12)
     * 79 u8  reserved (0)
     * </pre>
     */
    public byte[] mapValue(long runtime, long evalStart, long evalEnd, long coldStart, long coldEnd) {
        ByteBuffer b = ByteBuffer.allocate(MAP_VALUE_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAP_VALUE_LAYOUT).putInt(version);
        b.putLong(runtime).putLong(evalStart).putLong(evalEnd).putLong(coldStart).putLong(coldEnd);
        b.putShort(u16(interpretersHead)).putShort(u16(interpNext)).putShort(u16(interpThreadsHead));
        b.putShort(u16(tstateNext)).putShort(u16(tstateNativeThreadId)).putShort(u16(tstateCframe));
        b.putShort(u16(currentFrame)).putShort(u16(frameSize)).putShort(u16(framePrevious));
        b.putShort(u16(frameExecutable)).putShort(u16(frameInstrPtr)).putShort(u16(frameOwner));
        b.putShort(u16(frameIsEntry)).putShort(u16(codeAdaptive));
        b.put((byte) Math.min(ownerNotPython, 0xff)).put((byte) executableTagMask);
        b.put((byte) (source == Source.BUILT_IN ? 1 : 0)).put((byte) 0);
        return b.array();
    }

    private static short u16(int offset) {
        if (offset < 0) {
            return (short) 0xffff;
        }
        if (offset >= 0xffff) {
            throw new IllegalStateException("offset " + offset + " does not fit the map value's u16");
        }
        return (short) offset;
    }
}
