package org.stackfold.record.bpf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Assembles eBPF instructions by name, the way clang would emit them, with forward and backward
 * labels for jumps. Each instruction is one 64-bit little-endian word
 * {@code opcode | dst<<8 | src<<12 | off<<16 | imm<<32}; {@code ld_imm64} takes two.
 *
 * <p>Only the instructions the recorder's programs use are here, each with a unit test of its
 * encoding against clang's (llvm-objdump) output.
 */
public final class BpfAssembler {
    public static final int R0 = 0, R1 = 1, R2 = 2, R3 = 3, R4 = 4, R5 = 5, R6 = 6, R7 = 7, R8 = 8, R9 = 9;
    /** The read-only frame pointer; the program's 512-byte stack lies below it. */
    public static final int R10 = 10;

    /** BPF_PSEUDO_MAP_FD: the src field of ld_imm64 saying its immediate is a map's file descriptor. */
    public static final int PSEUDO_MAP_FD = 1;

    // Opcodes: class | size/op | source. Names follow the kernel's and llvm-objdump's.
    static final int MOV64_IMM = 0xb7, MOV64_REG = 0xbf, ADD64_IMM = 0x07, RSH64_IMM = 0x77, AND64_IMM = 0x57;
    static final int STX_W = 0x63, STX_DW = 0x7b, ST_W = 0x62, ST_DW = 0x7a, LDX_W = 0x61, LDX_DW = 0x79;
    static final int ATOMIC_DW = 0xdb, LD_IMM64 = 0x18;
    static final int JA = 0x05, JEQ_IMM = 0x15, JNE_IMM = 0x55, JEQ_REG = 0x1d, JNE_REG = 0x5d, CALL = 0x85, EXIT = 0x95;
    static final int ADD64_REG = 0x0f, SUB64_REG = 0x1f, SUB64_IMM = 0x17, MUL64_REG = 0x2f, MUL64_IMM = 0x27;
    static final int OR64_REG = 0x4f, AND64_REG = 0x5f, LSH64_IMM = 0x67, RSH64_REG = 0x7f, XOR64_REG = 0xaf;
    static final int XOR64_IMM = 0xa7, ARSH64_IMM = 0xc7, MOV32_REG = 0xbc, END_TO_BE = 0xdc;
    static final int LDX_H = 0x69, LDX_B = 0x71, STX_H = 0x6b;
    static final int JGT_IMM = 0x25, JGT_REG = 0x2d, JGE_IMM = 0x35, JGE_REG = 0x3d, JLT_IMM = 0xa5, JLT_REG = 0xad;
    static final int JLE_IMM = 0xb5, JLE_REG = 0xbd, JSGT_IMM = 0x65, JSLT_IMM = 0xc5;
    /** The atomic operation code for a plain fetch-less add (immediate field of ATOMIC_DW). */
    static final int ATOMIC_ADD = 0x00;

    /** A jump target; bind it with {@link #bind} before or after the jumps that use it. */
    public static final class Label {
        private final String name;
        private int at = -1;

        private Label(String name) {
            this.name = name;
        }
    }

    private record Fixup(int insn, Label target) {
    }

    private long[] code = new long[64];
    private int size;
    private final List<Fixup> fixups = new ArrayList<>();

    public Label label(String name) {
        return new Label(name);
    }

    /** Makes the next instruction the target of {@code l}. */
    public BpfAssembler bind(Label l) {
        if (l.at >= 0) {
            throw new IllegalStateException("label " + l.name + " bound twice");
        }
        l.at = size;
        return this;
    }

    /** The encoding of one instruction word. */
    public static long encode(int opcode, int dst, int src, int off, int imm) {
        return (opcode & 0xffL) | (long) (dst & 0xf) << 8 | (long) (src & 0xf) << 12
                | (long) (off & 0xffff) << 16 | (long) imm << 32;
    }

    private BpfAssembler emit(int opcode, int dst, int src, int off, int imm) {
        if (size == code.length) {
            code = Arrays.copyOf(code, size * 2);
        }
        code[size++] = encode(opcode, dst, src, off, imm);
        return this;
    }

    /** dst = imm (sign-extended to 64 bits). */
    public BpfAssembler movImm(int dst, int imm) {
        return emit(MOV64_IMM, dst, 0, 0, imm);
    }

    /** dst = src. */
    public BpfAssembler mov(int dst, int src) {
        return emit(MOV64_REG, dst, src, 0, 0);
    }

    public BpfAssembler addImm(int dst, int imm) {
        return emit(ADD64_IMM, dst, 0, 0, imm);
    }

    /** dst >>= imm, logical. */
    public BpfAssembler rshImm(int dst, int imm) {
        return emit(RSH64_IMM, dst, 0, 0, imm);
    }

    public BpfAssembler andImm(int dst, int imm) {
        return emit(AND64_IMM, dst, 0, 0, imm);
    }

    /** dst += src. */
    public BpfAssembler add(int dst, int src) {
        return emit(ADD64_REG, dst, src, 0, 0);
    }

    /** dst -= src. */
    public BpfAssembler sub(int dst, int src) {
        return emit(SUB64_REG, dst, src, 0, 0);
    }

    public BpfAssembler subImm(int dst, int imm) {
        return emit(SUB64_IMM, dst, 0, 0, imm);
    }

    /** dst *= src (the low 64 bits). */
    public BpfAssembler mul(int dst, int src) {
        return emit(MUL64_REG, dst, src, 0, 0);
    }

    public BpfAssembler mulImm(int dst, int imm) {
        return emit(MUL64_IMM, dst, 0, 0, imm);
    }

    public BpfAssembler or(int dst, int src) {
        return emit(OR64_REG, dst, src, 0, 0);
    }

    public BpfAssembler and(int dst, int src) {
        return emit(AND64_REG, dst, src, 0, 0);
    }

    public BpfAssembler xor(int dst, int src) {
        return emit(XOR64_REG, dst, src, 0, 0);
    }

    public BpfAssembler xorImm(int dst, int imm) {
        return emit(XOR64_IMM, dst, 0, 0, imm);
    }

    /** dst <<= imm. */
    public BpfAssembler lshImm(int dst, int imm) {
        return emit(LSH64_IMM, dst, 0, 0, imm);
    }

    /** dst >>= src, logical. */
    public BpfAssembler rsh(int dst, int src) {
        return emit(RSH64_REG, dst, src, 0, 0);
    }

    /** dst >>= imm, arithmetic (sign-filling). */
    public BpfAssembler arshImm(int dst, int imm) {
        return emit(ARSH64_IMM, dst, 0, 0, imm);
    }

    /** dst = (u32) src: the 32-bit move, which zeroes the upper half. */
    public BpfAssembler mov32(int dst, int src) {
        return emit(MOV32_REG, dst, src, 0, 0);
    }

    /** dst = the low {@code bits} (16, 32 or 64) of dst in big-endian byte order (BPF_END, to BE). */
    public BpfAssembler toBigEndian(int dst, int bits) {
        if (bits != 16 && bits != 32 && bits != 64) {
            throw new IllegalArgumentException("byte swap of " + bits + " bits");
        }
        return emit(END_TO_BE, dst, 0, 0, bits);
    }

    /** dst = *(u16 *)(src + off). */
    public BpfAssembler ldxH(int dst, int src, int off) {
        return emit(LDX_H, dst, src, off, 0);
    }

    /** dst = *(u8 *)(src + off). */
    public BpfAssembler ldxB(int dst, int src, int off) {
        return emit(LDX_B, dst, src, off, 0);
    }

    /** *(u16 *)(dst + off) = src. */
    public BpfAssembler stxH(int dst, int off, int src) {
        return emit(STX_H, dst, src, off, 0);
    }

    /** *(u32 *)(dst + off) = src. */
    public BpfAssembler stxW(int dst, int off, int src) {
        return emit(STX_W, dst, src, off, 0);
    }

    /** *(u64 *)(dst + off) = src. */
    public BpfAssembler stxDW(int dst, int off, int src) {
        return emit(STX_DW, dst, src, off, 0);
    }

    /** *(u32 *)(dst + off) = imm. */
    public BpfAssembler stW(int dst, int off, int imm) {
        return emit(ST_W, dst, 0, off, imm);
    }

    /** *(u64 *)(dst + off) = imm (sign-extended). */
    public BpfAssembler stDW(int dst, int off, int imm) {
        return emit(ST_DW, dst, 0, off, imm);
    }

    /** dst = *(u32 *)(src + off). */
    public BpfAssembler ldxW(int dst, int src, int off) {
        return emit(LDX_W, dst, src, off, 0);
    }

    /** dst = *(u64 *)(src + off). */
    public BpfAssembler ldxDW(int dst, int src, int off) {
        return emit(LDX_DW, dst, src, off, 0);
    }

    /** lock *(u64 *)(dst + off) += src. */
    public BpfAssembler atomicAddDW(int dst, int off, int src) {
        return emit(ATOMIC_DW, dst, src, off, ATOMIC_ADD);
    }

    /** dst = a 64-bit immediate (two instruction slots). */
    public BpfAssembler ldImm64(int dst, long imm) {
        emit(LD_IMM64, dst, 0, 0, (int) imm);
        return emit(0, 0, 0, 0, (int) (imm >>> 32));
    }

    /** dst = the map with this file descriptor (ld_imm64 with src = BPF_PSEUDO_MAP_FD). */
    public BpfAssembler ldMapFd(int dst, int mapFd) {
        emit(LD_IMM64, dst, PSEUDO_MAP_FD, 0, mapFd);
        return emit(0, 0, 0, 0, 0);
    }

    /** Calls a helper by its id (arguments in R1..R5, result in R0, R1..R5 clobbered). */
    public BpfAssembler call(int helper) {
        return emit(CALL, 0, 0, 0, helper);
    }

    public BpfAssembler exit() {
        return emit(EXIT, 0, 0, 0, 0);
    }

    public BpfAssembler ja(Label target) {
        return jump(JA, 0, 0, 0, target);
    }

    /** if dst == imm goto target. */
    public BpfAssembler jeqImm(int dst, int imm, Label target) {
        return jump(JEQ_IMM, dst, 0, imm, target);
    }

    /** if dst != imm goto target. */
    public BpfAssembler jneImm(int dst, int imm, Label target) {
        return jump(JNE_IMM, dst, 0, imm, target);
    }

    /** if dst == src goto target. */
    public BpfAssembler jeq(int dst, int src, Label target) {
        return jump(JEQ_REG, dst, src, 0, target);
    }

    /** if dst != src goto target. */
    public BpfAssembler jne(int dst, int src, Label target) {
        return jump(JNE_REG, dst, src, 0, target);
    }

    /** if dst &gt; imm goto target (unsigned). */
    public BpfAssembler jgtImm(int dst, int imm, Label target) {
        return jump(JGT_IMM, dst, 0, imm, target);
    }

    /** if dst &gt; src goto target (unsigned). */
    public BpfAssembler jgt(int dst, int src, Label target) {
        return jump(JGT_REG, dst, src, 0, target);
    }

    /** if dst &gt;= imm goto target (unsigned). */
    public BpfAssembler jgeImm(int dst, int imm, Label target) {
        return jump(JGE_IMM, dst, 0, imm, target);
    }

    /** if dst &gt;= src goto target (unsigned). */
    public BpfAssembler jge(int dst, int src, Label target) {
        return jump(JGE_REG, dst, src, 0, target);
    }

    /** if dst &lt; imm goto target (unsigned). */
    public BpfAssembler jltImm(int dst, int imm, Label target) {
        return jump(JLT_IMM, dst, 0, imm, target);
    }

    /** if dst &lt; src goto target (unsigned). */
    public BpfAssembler jlt(int dst, int src, Label target) {
        return jump(JLT_REG, dst, src, 0, target);
    }

    /** if dst &lt;= imm goto target (unsigned). */
    public BpfAssembler jleImm(int dst, int imm, Label target) {
        return jump(JLE_IMM, dst, 0, imm, target);
    }

    /** if dst &lt;= src goto target (unsigned). */
    public BpfAssembler jle(int dst, int src, Label target) {
        return jump(JLE_REG, dst, src, 0, target);
    }

    /** if dst &gt; imm goto target (signed). */
    public BpfAssembler jsgtImm(int dst, int imm, Label target) {
        return jump(JSGT_IMM, dst, 0, imm, target);
    }

    /** Jumps when {@code dst < imm}, both signed. */
    public BpfAssembler jsltImm(int dst, int imm, Label target) {
        return jump(JSLT_IMM, dst, 0, imm, target);
    }

    /**
     * bpf_tail_call(ctx = R1, prog_array = R2, index = R3): on success the program ends and the one at
     * that index runs with the same context; on failure (empty slot, 33 calls deep) execution goes on.
     */
    public BpfAssembler tailCall() {
        return call(Bpf.FUNC_TAIL_CALL);
    }

    /** The number of instruction slots emitted so far. */
    public int size() {
        return size;
    }

    private BpfAssembler jump(int opcode, int dst, int src, int imm, Label target) {
        fixups.add(new Fixup(size, target));
        return emit(opcode, dst, src, 0, imm);
    }

    /** The instructions, with every jump's offset resolved (relative to the next instruction). */
    public long[] build() {
        long[] out = Arrays.copyOf(code, size);
        for (Fixup f : fixups) {
            if (f.target.at < 0) {
                throw new IllegalStateException("label " + f.target.name + " never bound");
            }
            int off = f.target.at - (f.insn + 1);
            out[f.insn] = (out[f.insn] & ~(0xffffL << 16)) | (long) (off & 0xffff) << 16;
        }
        return out;
    }
}
