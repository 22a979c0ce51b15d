package org.stackfold.record;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.stackfold.model.FrameKind;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;
import org.stackfold.record.bpf.ErrnoException;
import org.stackfold.symbolize.AddressSymbolizer;
import org.stackfold.symbolize.SymbolFrame;
import org.stackfold.symbolize.Symbolizer;

/**
 * Turns drained counts into a profile, BCC {@code profile -f}'s way: {@code comm;user frames root to
 * leaf;kernel frames root to leaf}, with {@code [Missed User Stack]}/{@code [Missed Kernel Stack]}
 * where the kernel could not store a stack, an optional {@code -} between the two parts and
 * {@code _[k]} on kernel frames. Each distinct stack is symbolized once (kernel stacks by id, user
 * stacks by process and id). The profile gets a timeline at drain resolution: the kernel only
 * counts, so samples of one drain window are spread evenly over it.
 */
public final class StackFolder {
    static final String MISSED_USER = "[Missed User Stack]";
    static final String MISSED_KERNEL = "[Missed Kernel Stack]";
    static final String DELIMITER = "-";
    static final String KERNEL_SUFFIX = "_[k]";
    /** Functions where a complete user stack begins: program and thread entry points. */
    static final Set<String> STACK_ROOTS = Set.of("_start", "__libc_start_main", "__libc_start_call_main",
            "__libc_start_main_impl", "start_thread", "clone", "clone3", "__clone", "__clone3", "thread_start");

    private final RecordOptions options;
    private final Symbolizer symbolizer;
    private final ProcessSnapshots processes;
    private final Drained drained;
    private final int maxDepth;
    private final Profile profile = new Profile();
    private final Map<Integer, int[]> kernelStacks = new HashMap<>();
    private final Map<UserKey, UserStack> userStacks = new HashMap<>();
    /** ELF entry points by module path, as file offsets (-1: none): the walker names an unnamed entry "_start". */
    private final Map<String, Long> entries = new HashMap<>();
    private final Accounting.Builder accounting = new Accounting.Builder();
    private AddressSymbolizer kernel;
    private boolean kernelTried;
    private org.stackfold.format.tachyon.TachyonOptions.Naming pythonNaming =
            org.stackfold.format.tachyon.TachyonOptions.Naming.CPYTHON;

    private record UserStack(int[] frames, boolean truncated) {
    }

    private record UserKey(int pid, int exec, int stack) {
        @Override
        public int hashCode() {
            return (pid * 31 + exec) * 31 + stack;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof UserKey k && stack == k.stack && pid == k.pid && exec == k.exec;
        }

    }

    /**
     * Symbolized addresses shared by the folds of an always-on recording's intervals, so that each
     * interval symbolizes only addresses it is the first to see: by (pid, exec count, address), the
     * kernel's under pid -1. Bounded (least recently used dropped); addresses in JIT code and
     * unnamed ones are not kept (a JVM's perf map is read again later and may name them).
     */
    public static final class SymbolCache {
        private final int max;
        private final java.util.LinkedHashMap<Address, List<SymbolFrame>> entries;
        private long hits, misses;

        public SymbolCache(int max) {
            this.max = max;
            this.entries = new java.util.LinkedHashMap<>(1024, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Address, List<SymbolFrame>> eldest) {
                    return size() > SymbolCache.this.max;
                }
            };
        }

        public int size() {
            return entries.size();
        }

        /** Lookups answered from the cache and lookups that symbolized. */
        public long[] hitsAndMisses() {
            return new long[] {hits, misses};
        }

        /** Drops the addresses of processes that have exited (their pids may be reused). */
        public void forget(java.util.Collection<Integer> pids) {
            if (!pids.isEmpty()) {
                entries.keySet().removeIf(a -> pids.contains(a.pid()));
            }
        }

        List<SymbolFrame> get(Address a) {
            List<SymbolFrame> f = entries.get(a);
            if (f == null) {
                misses++;
            } else {
                hits++;
            }
            return f;
        }

        void put(Address a, List<SymbolFrame> frames) {
            for (SymbolFrame f : frames) {
                if (f.kind() == FrameKind.JIT || f.function().equals(Symbolizer.UNKNOWN) || f.function().startsWith("[")) {
                    return;
                }
            }
            entries.put(a, frames);
        }
    }

    /** Hashed and compared by hand: C1 does not inline a record's generated methods (method handles). */
    record Address(int pid, int exec, long ip) {
        @Override
        public int hashCode() {
            return (pid * 31 + exec) * 31 + Long.hashCode(ip * 0x9E3779B97F4A7C15L);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Address a && ip == a.ip && pid == a.pid && exec == a.exec;
        }
    }

    private SymbolCache cache;

    /** Shares symbolized addresses with other folds (the agent's intervals). */
    public StackFolder cache(SymbolCache c) {
        cache = c;
        return this;
    }

    /** The frames of an address, from the cache where it has them. */
    private List<SymbolFrame> cached(int pid, int exec, long ip, java.util.function.Supplier<List<SymbolFrame>> symbolize) {
        if (cache == null) {
            return symbolize.get();
        }
        Address a = new Address(pid, exec, ip);
        List<SymbolFrame> f = cache.get(a);
        if (f == null) {
            f = symbolize.get();
            cache.put(a, f);
        }
        return f;
    }

    public StackFolder(RecordOptions options, Symbolizer symbolizer, ProcessSnapshots processes, Drained drained,
                       int maxDepth) {
        this.options = options;
        this.symbolizer = symbolizer;
        this.processes = processes;
        this.drained = drained;
        this.maxDepth = maxDepth;
    }

    private boolean threadRoots;

    /**
     * How Python frames are named ({@code --tachyon-naming}; CPython's {@code file.py:function:line}
     * by default); {@code RAW}: the function as the name, the file and line as the frame's location
     * (what a Tachyon file stores).
     */
    public StackFolder pythonNaming(org.stackfold.format.tachyon.TachyonOptions.Naming naming) {
        pythonNaming = naming;
        return this;
    }

    /** Roots {@code tid:N} (per thread) instead of the thread's name: what the Tachyon writer takes as the thread. */
    public StackFolder threadRoots(boolean yes) {
        threadRoots = yes;
        return this;
    }

    /** The folded profile (with its timeline) and what the recording lost or could not trust. */
    public record Folded(Profile profile, Accounting accounting) {
    }

    public Folded fold() {
        Timeline timeline = new Timeline("microseconds");
        Map<SampleKey, Integer> nodes = new HashMap<>();
        for (Drained.Window w : drained.windows()) {
            List<long[]> samples = new ArrayList<>(); // {time, thread, node}
            for (Map.Entry<SampleKey, Long> e : w.counts().entrySet()) {
                SampleKey key = e.getKey();
                long count = e.getValue();
                Integer node = nodes.get(key);
                if (node == null) {
                    int[] stack = frames(key, count);
                    node = profile.tree().path(stack, 0, stack.length);
                    nodes.put(key, node);
                } else {
                    account(key, count);
                }
                profile.tree().addSelf(node, count);
                long thread = options.perThread() ? key.tid() : key.pid();
                for (long i = 0; i < count; i++) {
                    long t = w.fromMicros() + (w.toMicros() - w.fromMicros()) * (2 * i + 1) / (2 * count);
                    samples.add(new long[] {t, thread, node});
                }
            }
            samples.sort((a, b) -> Long.compare(a[0], b[0]));
            for (long[] s : samples) {
                timeline.add(s[1], 0, s[0], 0, (int) s[2]);
            }
        }
        profile.setTimeline(timeline);
        accounting.lostToFullCountMap(drained.lostToFullCountMap());
        return new Folded(profile, accounting.build());
    }

    /** The frame ids of a key's stack, root first. */
    private int[] frames(SampleKey key, long count) {
        int n = 0;
        String root = threadRoots ? "tid:" + (options.perThread() ? key.tid() : key.pid())
                : options.perThread() ? key.comm() + "-" + key.pid() + "/" + key.tid() : key.comm();
        int[] user = userFrames(key);
        int[] kernel = kernelFrames(key.kernelStack());
        int[] out = new int[2 + user.length + kernel.length];
        out[n++] = profile.frames().frame(root.isEmpty() ? "[unknown]" : root, FrameKind.SYNTHETIC);
        for (int f : user) {
            out[n++] = f;
        }
        if (options.delimited() && key.userStack() >= 0 && key.kernelStack() >= 0) {
            out[n++] = profile.frames().frame(DELIMITER, FrameKind.SYNTHETIC);
        }
        for (int f : kernel) {
            out[n++] = f;
        }
        account(key, count);
        return Arrays.copyOf(out, n);
    }

    private void account(SampleKey key, long count) {
        accounting.samples(count);
        accounting.stackError(true, key.kernelStack(), count);
        accounting.stackError(false, key.userStack(), count);
        if (key.status() != SampleKey.NO_STATUS) {
            accounting.ended(key.status(), count); // the walker says exactly how each stack ended
            return;
        }
        if (key.userStack() >= 0) {
            UserStack u = userStacks.get(userKey(key));
            long[] ips = drained.stack(key.userStack());
            if (u != null && u.truncated()) {
                accounting.truncatedUser(count);
            }
            if (ips != null && ips.length >= maxDepth) {
                accounting.atDepthLimit(count);
            }
        }
    }

    private static UserKey userKey(SampleKey key) {
        return new UserKey(key.pid(), key.exec(), key.userStack());
    }

    private int[] userFrames(SampleKey key) {
        int id = key.userStack();
        if (id < 0) {
            return missed(id, MISSED_USER, FrameKind.NATIVE);
        }
        UserStack cached = userStacks.get(userKey(key));
        if (cached != null) {
            return cached.frames();
        }
        long[] ips = drained.stack(id);
        AddressSymbolizer process = processes.of(key.pid(), key.exec());
        List<Integer> frames = new ArrayList<>();
        boolean truncated = true;
        boolean walked = key.status() != SampleKey.NO_STATUS;
        if (ips != null) {
            for (int i = ips.length - 1; i >= 0; i--) {
                if (PythonProgram.isPython(ips[i])) {
                    // Python frames stand in place of the eval-loop frame they follow (leaf first).
                    frames.add(pythonFrame(ips[i]));
                    continue;
                }
                if (i + 1 < ips.length && PythonProgram.isPython(ips[i + 1])) {
                    continue; // the eval-loop frame whose Python frames were just added
                }
                // The walker's callers are return addresses: the call is the byte before (it may end a function).
                long at = walked && i > 0 ? ips[i] - 1 : ips[i];
                List<SymbolFrame> symbols = process == null ? named(symbolize(null, at, FrameKind.NATIVE), walked)
                        : cached(key.pid(), key.exec(), at, () -> named(symbolize(process, at, FrameKind.NATIVE), walked));
                if (i == ips.length - 1) {
                    truncated = !startsStack(symbols.getLast());
                }
                addRootFirst(symbols, frames, false);
            }
        } else {
            frames.add(profile.frames().frame(MISSED_USER, FrameKind.SYNTHETIC));
        }
        UserStack u = new UserStack(toArray(frames), truncated);
        userStacks.put(userKey(key), u);
        return u.frames();
    }

    /**
     * Frames nothing names carry their file as perf prints them ({@code [liblzma.so.5.4.1]}), JIT code
     * without a perf map is {@code [JIT]}, and an unnamed ELF entry point is {@code _start} (stripped
     * executables). Only for the walker's stacks, whose addresses are all trustworthy.
     */
    private List<SymbolFrame> named(List<SymbolFrame> symbols, boolean walked) {
        SymbolFrame s = symbols.getLast();
        if (!walked || !s.function().equals(org.stackfold.symbolize.Symbolizer.UNKNOWN)) {
            return symbols;
        }
        String name;
        if (s.kind() == FrameKind.JIT) {
            name = "[JIT]";
        } else if (s.module() == null) {
            return symbols;
        } else if (isEntry(s.module(), s.offset())) {
            name = "_start";
        } else {
            name = "[" + s.module().substring(s.module().lastIndexOf('/') + 1) + "]";
        }
        return List.of(new SymbolFrame(name, s.offset(), null, 0, s.kind(), s.module(), false));
    }

    private int pythonFrame(long value) {
        PythonFrames.Names python = drained.pythonNames();
        if (python == null || PythonProgram.kind(value) != PythonFrames.KIND_NAMED) {
            return profile.frames().frame("[python]", FrameKind.PYTHON);
        }
        if (pythonNaming == org.stackfold.format.tachyon.TachyonOptions.Naming.RAW) {
            PythonFrames.Named n = python.named(value);
            if (n != null && n.code() != null) {
                int none = org.stackfold.model.FrameTable.NONE;
                return profile.frames().frame(n.code().function(), FrameKind.PYTHON, n.code().filename(),
                        PythonFrames.line(n), none, none, none, none);
            }
        }
        return profile.frames().frame(python.label(value, pythonNaming), FrameKind.PYTHON);
    }

    private boolean isEntry(String module, long fileOffset) {
        long entry = entries.computeIfAbsent(module, m -> {
            try {
                return ElfHeaders.read(java.nio.file.Path.of(m)).entryFileOffset();
            } catch (java.io.IOException | RuntimeException e) {
                return -1L;
            }
        });
        return entry >= 0 && fileOffset >= entry && fileOffset < entry + 0x30;
    }

    private static boolean startsStack(SymbolFrame outermost) {
        String module = outermost.module() == null ? "" : outermost.module();
        return STACK_ROOTS.contains(outermost.function()) || module.contains("/libc.so") || module.contains("/ld-linux");
    }

    private int[] kernelFrames(int id) {
        if (id < 0) {
            return missed(id, MISSED_KERNEL, FrameKind.KERNEL);
        }
        int[] cached = kernelStacks.get(id);
        if (cached != null) {
            return cached;
        }
        long[] ips = drained.stack(id);
        List<Integer> frames = new ArrayList<>();
        if (ips == null) {
            frames.add(profile.frames().frame(MISSED_KERNEL, FrameKind.SYNTHETIC));
        } else {
            AddressSymbolizer k = kernel();
            for (int i = ips.length - 1; i >= 0; i--) {
                long ip = ips[i];
                addRootFirst(k == null ? symbolize(null, ip, FrameKind.KERNEL)
                        : cached(-1, 0, ip, () -> symbolize(k, ip, FrameKind.KERNEL)), frames, options.annotate());
            }
        }
        int[] f = toArray(frames);
        kernelStacks.put(id, f);
        return f;
    }

    /** No frames for "no such stack" (-EFAULT: a user-mode sample's kernel stack, a kernel thread's user stack). */
    private int[] missed(int id, String name, FrameKind kind) {
        if (id == -ErrnoException.EFAULT) {
            return new int[0];
        }
        return new int[] {profile.frames().frame(name, FrameKind.SYNTHETIC)};
    }

    private AddressSymbolizer kernel() {
        if (!kernelTried) {
            kernelTried = true;
            try {
                kernel = symbolizer.kernel();
            } catch (IOException | RuntimeException e) {
                kernel = null; // no /proc/kallsyms to read: kernel frames stay [unknown]
            }
        }
        return kernel;
    }

    private static List<SymbolFrame> symbolize(AddressSymbolizer s, long ip, FrameKind kind) {
        if (s != null) {
            try {
                return s.symbolize(ip);
            } catch (RuntimeException e) {
                // a damaged file behind one mapping: this frame stays [unknown]
            }
        }
        return List.of(new SymbolFrame("[unknown]", 0, null, 0, kind, null, false));
    }

    /**
     * The frame ids of symbol lists this fold has added, by the list's identity: the agent's symbol
     * cache hands out the same list for an address each time, so each is interned once a fold.
     */
    private final java.util.IdentityHashMap<List<SymbolFrame>, int[]> frameIds = new java.util.IdentityHashMap<>();

    /** One address's frames are innermost first (inlined ones before their container): add them reversed. */
    private void addRootFirst(List<SymbolFrame> symbols, List<Integer> out, boolean annotate) {
        int[] ids = frameIds.get(symbols);
        if (ids == null) {
            ids = new int[symbols.size()];
            for (int j = symbols.size() - 1, i = 0; j >= 0; j--, i++) {
                SymbolFrame s = symbols.get(j);
                String name = annotate && s.kind() == FrameKind.KERNEL ? s.function() + KERNEL_SUFFIX : s.function();
                ids[i] = profile.frames().frame(name, s.inlined() ? FrameKind.INLINED : s.kind());
            }
            if (cache != null) {
                frameIds.put(symbols, ids);
            }
        }
        for (int id : ids) {
            out.add(id);
        }
    }

    private static int[] toArray(List<Integer> frames) {
        int[] a = new int[frames.size()];
        Arrays.setAll(a, frames::get);
        return a;
    }
}
