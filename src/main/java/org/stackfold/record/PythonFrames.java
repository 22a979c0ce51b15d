package org.stackfold.record;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.stackfold.format.tachyon.TachyonOptions;
import org.stackfold.record.bpf.Bpf;
import org.stackfold.record.bpf.BpfMap;
import org.stackfold.record.bpf.BpfProgram;
import org.stackfold.record.bpf.ErrnoException;
import org.stackfold.record.python.CodeNames;
import org.stackfold.record.python.ProcessMemory;
import org.stackfold.record.python.PythonDetector;
import org.stackfold.record.python.PythonOffsets;
import org.stackfold.record.python.PythonProcess;

/**
 * The Java side of the walker's Python frames (issue 27): the {@code pyprocs} and {@code pythreads}
 * maps and {@link PythonProgram}; detection of CPython in each process the walker asks about (the
 * same moments it reads the process's maps: first sample, exec, a new mapping), and naming of the
 * frames at each drain, while the process and its code objects live.
 *
 * <p>At a drain each Python frame value (pid, code address, instruction) is named from the
 * process's memory with {@link CodeNames} (cached per process and code address and validated on
 * each drain, so a code object freed and reused is read again, never misnamed) and replaced by a
 * value that names an entry of the current table of {@link Names} ({@link #KIND_NAMED}): stacks
 * drained later keep the names they had when drained, whatever happens to the code objects
 * afterwards. An always-on recording starts a new table each interval ({@link #newNames}): the
 * interval's table goes with it once folded, so the names of exited processes and of code objects
 * long gone do not pile up for the life of the agent.
 */
public final class PythonFrames implements AutoCloseable {
    static final int PROCESSES = 4096;
    static final int THREADS = 65536;
    /** Kind of a drained Python frame value: {@code payload} is an index into {@link #named}. */
    public static final int KIND_NAMED = 3;

    /** A named Python frame: the code object (null if it could not be read) and the instruction (-2: none). */
    public record Named(CodeNames.Code code, long address, int instruction) {
    }

    private record Key(int pid, long value) {
    }

    /** The names the values of one recording or interval index ({@link #resolve} adds to the current table). */
    public static final class Names {
        private final Map<String, Integer> ids = new HashMap<>();
        private final List<Named> named = new ArrayList<>();

        /** The frame a named value stands for. */
        synchronized Named named(long v) {
            int i = (int) (v & 0xffffffffL);
            return i < named.size() ? named.get(i) : null;
        }

        synchronized int add(String id, Named n) {
            return ids.computeIfAbsent(id, s -> {
                named.add(n);
                return named.size() - 1;
            });
        }

        /** A named value's text in {@code naming}'s style: CPython's {@code file.py:function:line} by default. */
        String label(long v, TachyonOptions.Naming naming) {
            Named n = named(v);
            if (n == null || n.code() == null) {
                return String.format("<dead code 0x%x>", n == null ? 0 : n.address());
            }
            return CodeNames.label(naming, n.code(), line(n));
        }

        /** How many names the table holds. */
        synchronized int size() {
            return named.size();
        }
    }

    private record Known(PythonProcess process, ProcessMemory memory, CodeNames names) {
    }

    private final boolean lines;
    private final Arena arena = Arena.ofShared();
    private final BpfMap procs;
    private final BpfMap threads;
    private BpfProgram program;
    private boolean enabled;
    private final Map<Integer, Known> known = new HashMap<>();
    private final Map<Integer, String> refused = new HashMap<>();
    private Names names = new Names();
    /** Values named in the current drain (each named once a drain, and its cache entry validated then). */
    private final Map<Key, Long> thisDrain = new HashMap<>();
    private final List<String> notes = new ArrayList<>();
    private final MemorySegment key;
    private final MemorySegment value;
    private final MemorySegment state;
    private long verified;

    PythonFrames(boolean lines) throws ErrnoException {
        this.lines = lines;
        procs = BpfMap.create("sf_pyprocs", Bpf.MAP_TYPE_HASH, 4, PythonOffsets.MAP_VALUE_SIZE, PROCESSES);
        BpfMap t;
        try {
            t = BpfMap.create("sf_pythreads", Bpf.MAP_TYPE_LRU_HASH, 4, 8, THREADS);
        } catch (ErrnoException e) {
            procs.close();
            throw e;
        }
        threads = t;
        key = arena.allocate(8, 8);
        value = arena.allocate(PythonOffsets.MAP_VALUE_SIZE, 8);
        state = arena.allocate(8, 8);
    }

    int procsFd() {
        return procs.fd();
    }

    int threadsFd() {
        return threads.fd();
    }

    boolean lines() {
        return lines;
    }

    /** Loads the program into its slot; if the kernel refuses it, one note and native frames only. */
    void load(WalkerProgram.Spec spec, BpfMap progs) {
        if ("off".equals(System.getenv("STACKFOLD_PYTHON"))) {
            return; // scripts/python-overhead: the same walker without Python frames, for the cost per frame
        }
        try {
            program = BpfProgram.load("sf_python", Bpf.PROG_TYPE_PERF_EVENT, PythonProgram.assemble(spec));
            MemorySegment slot = arena.allocate(4, 4);
            MemorySegment fd = arena.allocate(4, 4);
            slot.set(ValueLayout.JAVA_INT, 0, WalkerProgram.PROG_PYTHON);
            fd.set(ValueLayout.JAVA_INT, 0, program.fd());
            progs.update(slot, fd, Bpf.ANY);
            verified = program.verifiedInstructions();
            enabled = true;
        } catch (ErrnoException e) {
            synchronized (this) {
                notes.add("Python frames: the kernel refused the Python walker (" + e.getMessage()
                        + "): Python processes keep their native frames");
            }
        }
    }

    /** Instructions the verifier went through for the Python program (0 if not loaded). */
    long verifiedInstructions() {
        return verified;
    }

    /**
     * Looks for CPython in {@code pid} (again: it may have exec'd or mapped libpython since) and
     * puts its offsets into {@code pyprocs}; a version it does not know is noted once for that process.
     */
    synchronized void refresh(int pid) {
        refresh(pid, null);
    }

    /** As {@link #refresh(int)}, from the text of its {@code /proc/PID/maps} just read (null: read it). */
    synchronized void refresh(int pid, String maps) {
        if (!enabled) {
            return;
        }
        PythonDetector.Detection d;
        try {
            d = PythonDetector.detect(pid, maps);
        } catch (IOException | RuntimeException e) {
            return; // gone, or its maps unreadable: native frames
        }
        Known before = known.get(pid);
        switch (d) {
            case PythonDetector.Found f -> {
                PythonProcess p = f.process();
                if (before != null && before.process().equals(p) && sameProcess(before)) {
                    return;
                }
                try {
                    byte[] v = p.mapValue();
                    MemorySegment.copy(v, 0, value, ValueLayout.JAVA_BYTE, 0, v.length);
                    key.set(ValueLayout.JAVA_INT, 0, pid);
                    procs.update(key, value, Bpf.ANY);
                    ProcessMemory mem = ProcessMemory.open(pid);
                    known.put(pid, new Known(p, mem, new CodeNames(mem, p.offsets())));
                    closeMemory(before);
                } catch (IOException e) {
                    // The process is gone.
                }
            }
            case PythonDetector.Unsupported u -> {
                forget(pid);
                if (refused.putIfAbsent(pid, u.reason()) == null) {
                    notes.add(u.reason() + "; its native frames are kept");
                }
            }
            case PythonDetector.NotPython n -> forget(pid);
        }
    }

    /**
     * Whether {@code k}'s memory file still reads the process it was opened for. A process that exec'd
     * the same interpreter, or a new process given the same pid, is detected with the same numbers
     * when the binary is not position-independent (Debian's python3.11: same {@code _PyRuntime}, same
     * eval loop), but the file opened before reads nothing any more (its memory went with the old
     * program): every frame was {@code <dead code 0x…>} until the recording ended.
     */
    private static boolean sameProcess(Known k) {
        try {
            k.memory().u64(k.process().runtime());
            return true;
        } catch (ProcessMemory.MemoryFault e) {
            return false;
        }
    }

    private void forget(int pid) {
        Known k = known.remove(pid);
        if (k != null) {
            try {
                key.set(ValueLayout.JAVA_INT, 0, pid);
                procs.delete(key);
            } catch (ErrnoException ignored) {
                // already gone
            }
            closeMemory(k);
        }
    }

    private static void closeMemory(Known k) {
        if (k != null) {
            try {
                k.memory().close();
            } catch (IOException ignored) {
                // a /proc file
            }
        }
    }

    /**
     * Before a drain's stacks are named: each code object is validated once a drain. Processes with
     * more Python threads than the program's scan reaches get their threads' states put into
     * {@code pythreads} from the reference walk (validated in the kernel like its own entries).
     */
    synchronized void beginDrain() {
        thisDrain.clear();
        // Processes that have exited: their memory files (one descriptor each) and name caches were kept for
        // the life of the recording, which for the agent is the life of the machine's Python processes.
        List<Integer> gone = new ArrayList<>();
        for (int pid : known.keySet()) {
            if (!java.nio.file.Files.exists(java.nio.file.Path.of("/proc/" + pid))) {
                gone.add(pid);
            }
        }
        gone.forEach(this::forget);
        refused.keySet().removeIf(pid -> !java.nio.file.Files.exists(java.nio.file.Path.of("/proc/" + pid)));
        for (Known k : known.values()) {
            try {
                List<long[]> ts = new org.stackfold.record.python.PythonWalker(k.process(), k.memory())
                        .threadStates();
                if (ts.size() < PythonProgram.MAX_SCAN / 2) {
                    continue;
                }
                for (long[] t : ts) {
                    key.set(ValueLayout.JAVA_INT, 0, (int) t[0]);
                    state.set(ValueLayout.JAVA_LONG, 0, t[1]);
                    threads.update(key, state, Bpf.ANY);
                }
            } catch (IOException | RuntimeException e) {
                // The process is gone or changing: the kernel's scan still finds the first threads.
            }
        }
    }

    /**
     * A drained stack of {@code pid} with each Python frame value replaced by a named one
     * ({@link #KIND_NAMED}); the same array if it has none.
     */
    synchronized long[] resolve(int pid, long[] frames) {
        if (frames == null) {
            return null;
        }
        long[] out = frames;
        for (int i = 0; i < frames.length; i++) {
            long v = frames[i];
            if (!PythonProgram.isPython(v) || PythonProgram.kind(v) == KIND_NAMED) {
                continue;
            }
            if (out == frames) {
                out = Arrays.copyOf(frames, frames.length);
            }
            out[i] = thisDrain.computeIfAbsent(new Key(pid, v), k -> name(pid, v));
        }
        return out;
    }

    private long name(int pid, long v) {
        long address = PythonProgram.code(v);
        int instruction = PythonProgram.instruction(v);
        Known k = known.get(pid);
        CodeNames.Code code = k == null ? null : k.names().code(address);
        String id = pid + ":" + address + ":" + instruction + ":" + (code == null ? "" : code.filename() + "\0"
                + code.function() + "\0" + code.firstLine());
        int n = names.add(id, new Named(code, address, instruction));
        return PythonProgram.TAG | (long) KIND_NAMED << 56 | n;
    }

    /** The table the values {@link #resolve} makes now index. */
    synchronized Names names() {
        return names;
    }

    /**
     * Starts a new table of names for the stacks drained from now on (the agent's next interval, on
     * the drain thread between two drains); the previous one stays with the stacks that index it.
     */
    synchronized Names newNames() {
        names = new Names();
        thisDrain.clear();
        return names;
    }

    /** A named frame's line: the instruction's, or the function's first with function-level aggregation. */
    static int line(Named n) {
        return n.instruction() == -2 ? n.code().firstLine() : n.code().line(n.instruction());
    }

    /** One line per process whose CPython is not supported, or if the kernel refused the program. */
    synchronized List<String> notes() {
        return List.copyOf(notes);
    }

    /** Processes found running CPython, with their one-line description. */
    synchronized Map<Integer, String> processes() {
        Map<Integer, String> m = new LinkedHashMap<>();
        known.forEach((pid, k) -> m.put(pid, k.process().describe()));
        return m;
    }

    @Override
    public synchronized void close() {
        for (Known k : known.values()) {
            closeMemory(k);
        }
        known.clear();
        if (program != null) {
            program.close();
        }
        threads.close();
        procs.close();
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
