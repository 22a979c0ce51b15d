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
 * A raw-tracepoint program on {@code sched_process_exec}: counts each process's execs in
 * {@code execs} (pid → count, an LRU map) and flags the pid in the walker's {@code unknown} map
 * when the walker has its mappings ({@code tracked}), so that its maps
 * are read again at once. The walker puts the count into every key ({@link WalkKey#exec}), and the
 * recorder symbolizes each sample with the maps of the program the process was running then: a
 * process that execs (a shim, {@code sh -c}, a wrapper) is never resolved against the maps of the
 * program it was.
 */
final class ExecProgram {
    private ExecProgram() {
    }

    static long[] assemble(int execsFd, int trackedFd, int unknownFd) {
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
        // Only processes the walker has mappings for are read again (execs elsewhere are not our business).
        a.ldMapFd(R1, trackedFd).mov(R2, R10).addImm(R2, -4);
        a.call(Bpf.FUNC_MAP_LOOKUP_ELEM);
        a.jeqImm(R0, 0, out);
        a.ldMapFd(R1, unknownFd).mov(R2, R10).addImm(R2, -4).mov(R3, R2).movImm(R4, Bpf.ANY);
        a.call(Bpf.FUNC_MAP_UPDATE_ELEM);
        a.bind(out);
        a.movImm(R0, 0).exit();
        return a.build();
    }
}
