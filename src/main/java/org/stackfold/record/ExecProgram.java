package org.stackfold.record;

import static org.stackfold.record.bpf.BpfAssembler.R0;
import static org.stackfold.record.bpf.BpfAssembler.R1;
import static org.stackfold.record.bpf.BpfAssembler.R10;
import static org.stackfold.record.bpf.BpfAssembler.R2;
import static org.stackfold.record.bpf.BpfAssembler.R3;
import static org.stackfold.record.bpf.BpfAssembler.R4;

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
}
