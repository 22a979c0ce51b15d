package org.stackfold.record.python;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The reference walk of a live CPython process's Python stacks, reading {@code /proc/PID/mem}: the
 * same reads, in the same order, that the BPF program will make, so that its output can be checked
 * against this one. From {@code _PyRuntime}: {@code interpreters.head} → each interpreter's
 * {@code threads.head} → {@code next} …, a thread matched by {@code native_thread_id}; its current
 * frame (3.11/3.12 through {@code cframe}); then one read of {@link PythonOffsets#frameSize()}
 * bytes per frame along {@code previous}, skipping the entry frames each eval-loop activation
 * pushes (owner ≥ {@link PythonOffsets#ownerNotPython()}) and noting where each activation ends.
 * Reading a running process races with it: a walk may see a half-updated stack or fail a read; it
 * then stops there and says so ({@link PythonThread#truncated()}), as the BPF walk will.
 */
public final class PythonWalker {
    /** Frames followed at most per thread (BPF: the per-sample frame budget). */
    public static final int MAX_FRAMES = 512;
    /** Interpreters and thread states followed at most (guards against a cycle in a racing read). */
    public static final int MAX_THREADS = 4096;

    private final PythonProcess process;
    private final PythonOffsets o;
    private final ProcessMemory mem;

    public PythonWalker(PythonProcess process, ProcessMemory mem) {
        this.process = process;
        this.o = process.offsets();
        this.mem = mem;
    }

    public PythonProcess process() {
        return process;
    }

    /** Every thread state of every interpreter, with its stack. */
    public List<PythonThread> threads() throws ProcessMemory.MemoryFault {
        List<PythonThread> out = new ArrayList<>();
        eachThreadState(ts -> out.add(thread(ts)));
        return out;
    }

    private interface ThreadStateVisitor {
        void visit(long threadState) throws ProcessMemory.MemoryFault;
    }

    /** Each thread state of each interpreter, at most {@link #MAX_THREADS} list steps in all. */
    private void eachThreadState(ThreadStateVisitor visitor) throws ProcessMemory.MemoryFault {
        int seen = 0;
        for (long interp = mem.u64(process.runtime() + o.interpretersHead()); interp != 0 && seen < MAX_THREADS;
                interp = mem.u64(interp + o.interpNext())) {
            seen++;
            for (long ts = mem.u64(interp + o.interpThreadsHead()); ts != 0 && seen < MAX_THREADS;
                    ts = mem.u64(ts + o.tstateNext())) {
                seen++;
                visitor.visit(ts);
            }
        }
    }

    /**
     * Every thread state of every interpreter as {@code {native_thread_id, address}} pairs, without
     * their stacks (2 reads a thread): what the recorder puts into the kernel's thread-state cache.
     */
    public List<long[]> threadStates() throws ProcessMemory.MemoryFault {
        List<long[]> out = new ArrayList<>();
        eachThreadState(ts -> out.add(new long[] {(int) mem.u64(ts + o.tstateNativeThreadId()), ts}));
        return out;
    }

    /** The thread state whose {@code native_thread_id} is {@code tid}, or 0: the BPF program's lookup. */
    public long threadState(int tid) throws ProcessMemory.MemoryFault {
        int seen = 0;
        for (long interp = mem.u64(process.runtime() + o.interpretersHead()); interp != 0 && seen < MAX_THREADS;
                interp = mem.u64(interp + o.interpNext())) {
            seen++;
            for (long ts = mem.u64(interp + o.interpThreadsHead()); ts != 0 && seen < MAX_THREADS;
                    ts = mem.u64(ts + o.tstateNext())) {
                seen++;
                if ((int) mem.u64(ts + o.tstateNativeThreadId()) == tid) {
                    return ts;
                }
            }
        }
        return 0;
    }

    /** One thread state's ids and stack. */
    public PythonThread thread(long ts) throws ProcessMemory.MemoryFault {
        int nativeId = (int) mem.u64(ts + o.tstateNativeThreadId());
        long threadId = mem.u64(ts + o.tstateThreadId());
        List<PythonFrame> frames = new ArrayList<>();
        boolean truncated = frames(ts, frames);
        return new PythonThread(ts, nativeId, threadId, List.copyOf(frames), truncated);
    }

    /**
     * Appends the thread's Python frames, innermost first; true if the walk was cut short (depth
     * limit or a failed read), false if it reached the bottom of the stack.
     */
    public boolean frames(long ts, List<PythonFrame> into) {
        long frame;
        try {
            if (o.tstateCframe() >= 0) {
                long cframe = mem.u64(ts + o.tstateCframe());
                frame = cframe == 0 ? 0 : mem.u64(cframe + o.currentFrame());
            } else {
                frame = mem.u64(ts + o.currentFrame());
            }
        } catch (ProcessMemory.MemoryFault e) {
            return true;
        }
        int steps = 0;
        while (frame != 0) {
            if (++steps > MAX_FRAMES) {
                return true;
            }
            ByteBuffer f;
            try {
                f = ByteBuffer.wrap(mem.read(frame, o.frameSize())).order(ByteOrder.LITTLE_ENDIAN);
            } catch (ProcessMemory.MemoryFault e) {
                return true;
            }
            long previous = f.getLong(o.framePrevious());
            int owner = f.get(o.frameOwner()) & 0xff;
            if (owner >= o.ownerNotPython()) {
                // The entry frame of one eval-loop activation: the Python frame before it was that
                // activation's outermost.
                if (!into.isEmpty()) {
                    PythonFrame last = into.getLast();
                    into.set(into.size() - 1, new PythonFrame(last.code(), last.instruction(), true));
                }
            } else if ((f.getLong(o.frameExecutable()) & ~o.executableTagMask()) == 0) {
                // A frame being pushed whose code is not set yet (seen on 3.15): not a frame yet,
                // emit nothing and go on to its caller.
                frame = previous;
                continue;
            } else {
                long code = f.getLong(o.frameExecutable()) & ~o.executableTagMask();
                long ip = f.getLong(o.frameInstrPtr());
                long units = (ip - (code + o.codeAdaptive())) >> 1;
                int instruction = units < Integer.MIN_VALUE || units > Integer.MAX_VALUE ? -1 : (int) units;
                boolean entry = o.frameIsEntry() >= 0 && f.get(o.frameIsEntry()) != 0;
                into.add(new PythonFrame(code, instruction, entry));
            }
            frame = previous;
        }
        return false;
    }
}
