package org.stackfold.record;

import static org.stackfold.record.bpf.BpfAssembler.R0;
import static org.stackfold.record.bpf.BpfAssembler.R1;
import static org.stackfold.record.bpf.BpfAssembler.R10;
import static org.stackfold.record.bpf.BpfAssembler.R2;
import static org.stackfold.record.bpf.BpfAssembler.R3;
import static org.stackfold.record.bpf.BpfAssembler.R4;
import static org.stackfold.record.bpf.BpfAssembler.R6;
import static org.stackfold.record.bpf.BpfAssembler.R7;

import org.stackfold.record.bpf.Bpf;
import org.stackfold.record.bpf.BpfAssembler;

/**
 * Raw-tracepoint programs that keep the walker's view of processes current. On
 * {@code sched_process_exec}: counts each process's execs in {@code execs} (pid → count, an LRU map)
 * and, when the walker has its mappings ({@code tracked}), flags the pid in {@code unknown} and wakes
 * the unwind worker ({@link UnwindDoorbell}), so that its maps are read again at once. The walker
 * puts the count into every key ({@link WalkKey#exec}) and treats a mapping read before the last exec
 * as no mapping, and the recorder symbolizes each sample with the maps of the program the process was
 * running then: a process that execs (a shim, {@code sh -c}, a wrapper) is never walked or resolved
 * against the maps of the program it was. On {@code sched_process_exit} of a tracked process's main
 * thread: flags the pid in {@code exited} and wakes the worker, which frees its mappings and the
 * tables no process maps any more.
 */
final class ExecProgram {
    private ExecProgram() {
    }

    static long[] assemble(int execsFd, int trackedFd, int unknownFd, int wakeFd) {
        return assemble(execsFd, trackedFd, unknownFd, wakeFd, -1, -1);
    }

    /**
     * As {@link #assemble(int, int, int, int)}; a process in {@code held} (the command the recorder
     * started) is also stopped at its exec until the worker has read the maps of the program it became.
     */
    static long[] assemble(int execsFd, int trackedFd, int unknownFd, int wakeFd, int heldFd, int stoppedFd) {
        BpfAssembler a = new BpfAssembler();
        BpfAssembler.Label insert = a.label("insert");
        BpfAssembler.Label flag = a.label("flag");
        BpfAssembler.Label out = a.label("out");
        a.call(Bpf.FUNC_GET_CURRENT_PID_TGID);
        a.rshImm(R0, 32);
        a.stxW(R10, -4, R0);
        a.ldMapFd(R1, execsFd).mov(R2, R10).addImm(R2, -4);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, insert);
        a.movImm(R1, 1).atomicAddDW(R0, 0, R1);
        a.ja(flag);
        a.bind(insert);
        a.stDW(R10, -16, 1);
        a.ldMapFd(R1, execsFd).mov(R2, R10).addImm(R2, -4).mov(R3, R10).addImm(R3, -16).movImm(R4, Bpf.ANY);
        a.call(Bpf.FUNC_MAP_UPDATE_ELEM);
        a.bind(flag);
        if (heldFd >= 0) {
            BpfAssembler.Label held = a.label("held");
            WalkerProgram.hold(a, heldFd, stoppedFd, wakeFd, R10, -4, false, held);
            a.bind(held);
        }
        // Only processes the walker has mappings for are read again (execs elsewhere are not our business).
        a.ldMapFd(R1, trackedFd).mov(R2, R10).addImm(R2, -4);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, out);
        WalkerProgram.ringOnce(a, unknownFd, wakeFd, R10, -4, out);
        a.bind(out);
        a.movImm(R0, 0).exit();
        return a.build();
    }

    /** {@code sched_process_exit}: a tracked process's main thread ends → {@code exited} and a wake-up. */
    static long[] exit(int trackedFd, int exitedFd, int wakeFd) {
        BpfAssembler a = new BpfAssembler();
        BpfAssembler.Label out = a.label("out");
        a.call(Bpf.FUNC_GET_CURRENT_PID_TGID);
        a.mov(R1, R0).rshImm(R1, 32);
        a.stxW(R10, -4, R1);
        a.stxW(R10, -8, R0); // the tid: the low half
        a.ldxW(R2, R10, -8);
        a.jne(R1, R2, out); // another thread: the process lives on
        a.ldMapFd(R1, trackedFd).mov(R2, R10).addImm(R2, -4);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, out);
        WalkerProgram.ringOnce(a, exitedFd, wakeFd, R10, -4, out);
        a.bind(out);
        a.movImm(R0, 0).exit();
        return a.build();
    }

    /**
     * R1 = the saved register at {@code offset} of the pt_regs in R7, read through the stack at -16;
     * goes to {@code out} where it cannot be read.
     */
    private static BpfAssembler register(BpfAssembler a, int offset, BpfAssembler.Label out) {
        a.mov(R1, R10).addImm(R1, -16).movImm(R2, 8).mov(R3, R7).addImm(R3, offset);
        a.call(Bpf.FUNC_PROBE_READ_KERNEL);
        a.jneImm(R0, 0, out);
        return a.ldxDW(R1, R10, -16);
    }

    /** x86-64 {@code __NR_mmap}. */
    static final int NR_MMAP = 9;
    /** {@code struct pt_regs} offsets (x86-64): the third and fifth arguments of a system call. */
    static final int REGS_DX = 96, REGS_R8 = 72;
    static final int PROT_EXEC = 4;

    /**
     * Raw tracepoint {@code sys_enter}, attached only while the recorder holds a command it started:
     * an {@code mmap} of a file with {@code PROT_EXEC} by a held process (ld.so loading a library,
     * {@code dlopen}) stops it, as {@link WalkerProgram#hold} does, so that the library's code never
     * runs before the unwind worker has read the new mapping. The signal is acted on when the call
     * returns, after the mapping exists; the worker waits for the stop before it reads the maps. Any
     * other system call leaves after two loads and a compare: no helper runs for them.
     */
    static long[] mmap(int heldFd, int stoppedFd, int wakeFd) {
        BpfAssembler a = new BpfAssembler();
        BpfAssembler.Label out = a.label("out");
        a.mov(R6, R1);
        a.ldxDW(R2, R6, 8); // args[1]: the system call's number
        a.jneImm(R2, NR_MMAP, out);
        a.ldxDW(R7, R6, 0); // args[0]: its struct pt_regs
        register(a, REGS_DX, out).andImm(R1, PROT_EXEC);
        a.jeqImm(R1, 0, out);
        register(a, REGS_R8, out).lshImm(R1, 32).arshImm(R1, 32);
        a.jsltImm(R1, 0, out); // anonymous (fd -1): JIT code, walked by frame pointers
        a.call(Bpf.FUNC_GET_CURRENT_PID_TGID);
        a.rshImm(R0, 32);
        a.stxW(R10, -4, R0);
        WalkerProgram.hold(a, heldFd, stoppedFd, wakeFd, R10, -4, true, out);
        a.bind(out);
        a.movImm(R0, 0).exit();
        return a.build();
    }
}
