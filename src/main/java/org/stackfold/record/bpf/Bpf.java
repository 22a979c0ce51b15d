package org.stackfold.record.bpf;

/** bpf(2) command numbers, map and program types, helper ids and flags (include/uapi/linux/bpf.h). */
public final class Bpf {
    public static final int MAP_CREATE = 0;
    public static final int MAP_LOOKUP_ELEM = 1;
    public static final int MAP_UPDATE_ELEM = 2;
    public static final int MAP_DELETE_ELEM = 3;
    public static final int MAP_GET_NEXT_KEY = 4;
    public static final int PROG_LOAD = 5;
    public static final int OBJ_GET_INFO_BY_FD = 15;
    public static final int MAP_LOOKUP_AND_DELETE_ELEM = 21;
    public static final int ENABLE_STATS = 32;
    /** Batch commands (Linux 5.6; hash maps): {@code in_batch@0 out_batch@8 keys@16 values@24 count@32 map_fd@36 elem_flags@40 flags@48}. */
    public static final int MAP_LOOKUP_BATCH = 24;
    public static final int MAP_LOOKUP_AND_DELETE_BATCH = 25;
    public static final int MAP_UPDATE_BATCH = 26;
    public static final int MAP_DELETE_BATCH = 27;

    /** The size of {@code union bpf_attr} passed; the kernel accepts it as long as unknown tails are zero. */
    public static final int ATTR_SIZE = 144;

    public static final int MAP_TYPE_HASH = 1;
    public static final int MAP_TYPE_ARRAY = 2;
    public static final int MAP_TYPE_STACK_TRACE = 7;
    public static final int MAP_TYPE_PROG_ARRAY = 3;
    public static final int MAP_TYPE_LRU_HASH = 9;
    public static final int MAP_TYPE_PERCPU_ARRAY = 6;
    public static final int MAP_TYPE_LPM_TRIE = 11;
    public static final int MAP_TYPE_ARRAY_OF_MAPS = 12;
    /** A ring buffer the kernel writes and user space polls and reads through mmap (Linux 5.8). */
    public static final int MAP_TYPE_RINGBUF = 27;

    /** map_flags: LPM tries must not preallocate. */
    public static final int F_NO_PREALLOC = 1;
    /** map_flags: an array user space can mmap (Linux 5.5). */
    public static final int F_MMAPABLE = 1 << 10;
    /** map_flags: an inner map whose size may differ from the template's (Linux 5.10). */
    public static final int F_INNER_MAP = 1 << 12;
    public static final int PROG_TYPE_PERF_EVENT = 7;
    public static final int PROG_TYPE_RAW_TRACEPOINT = 17;
    public static final int RAW_TRACEPOINT_OPEN = 17;

    public static final int FUNC_MAP_LOOKUP_ELEM = 1;
    public static final int FUNC_MAP_UPDATE_ELEM = 2;
    public static final int FUNC_GET_CURRENT_PID_TGID = 14;
    public static final int FUNC_GET_CURRENT_COMM = 16;
    /** GPL-only: the program's licence must be "GPL". */
    public static final int FUNC_GET_STACKID = 27;
    public static final int FUNC_TAIL_CALL = 12;
    public static final int FUNC_PROBE_READ_USER = 112;
    public static final int FUNC_PROBE_READ_KERNEL = 113;
    public static final int FUNC_GET_CURRENT_TASK_BTF = 158;
    public static final int FUNC_TASK_PT_REGS = 175;
    public static final int FUNC_RINGBUF_OUTPUT = 130;
    /** Sends a signal to the current process (Linux 5.3). */
    public static final int FUNC_SEND_SIGNAL = 109;
    /** bpf_ringbuf_output: wake the reader whatever its position. */
    public static final int RB_FORCE_WAKEUP = 2;

    /** bpf_get_stackid: walk the user stack instead of the kernel's. */
    public static final int F_USER_STACK = 0x100;
    /** map_update_elem: only insert, fail with EEXIST when the key is there. */
    public static final int NOEXIST = 1;
    /** map_update_elem: insert or replace. */
    public static final int ANY = 0;

    /** BPF_STATS_RUN_TIME for ENABLE_STATS. */
    public static final int STATS_RUN_TIME = 0;

    private Bpf() {
    }
}
