package org.stackfold.record.bpf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.stackfold.record.bpf.BpfAssembler.R0;
import static org.stackfold.record.bpf.BpfAssembler.R1;
import static org.stackfold.record.bpf.BpfAssembler.R10;
import static org.stackfold.record.bpf.BpfAssembler.R2;
import static org.stackfold.record.bpf.BpfAssembler.R3;
import static org.stackfold.record.bpf.BpfAssembler.R4;
import static org.stackfold.record.bpf.BpfAssembler.R6;
import static org.stackfold.record.bpf.BpfAssembler.R7;
import static org.stackfold.record.bpf.BpfAssembler.R8;

import java.util.HexFormat;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Each instruction's encoding against the bytes {@code llvm-mc -triple bpfel -show-encoding} (LLVM 14)
 * prints for the same assembly, quoted in each test. The store-immediate and map-fd forms, which
 * that assembler cannot write, are checked against the kernel's BPF_ST_MEM and BPF_LD_MAP_FD macros.
 */
class BpfAssemblerTest {
    private static String bytes(Consumer<BpfAssembler> program) {
        BpfAssembler a = new BpfAssembler();
        program.accept(a);
        long[] words = a.build();
        StringBuilder sb = new StringBuilder();
        for (long w : words) {
            sb.append(HexFormat.of().toHexDigits(Long.reverseBytes(w)));
        }
        return sb.toString();
    }

    @Test
    void movReg() { // r6 = r1
        assertThat(bytes(a -> a.mov(R6, R1))).isEqualTo("bf16000000000000");
    }

    @Test
    void movImm() { // r3 = 256
        assertThat(bytes(a -> a.movImm(R3, 256))).isEqualTo("b703000000010000");
    }

    @Test
    void addImmNegative() { // r2 += -44
        assertThat(bytes(a -> a.addImm(R2, -44))).isEqualTo("07020000d4ffffff");
    }

    @Test
    void rshImm() { // r8 >>= 32
        assertThat(bytes(a -> a.rshImm(R8, 32))).isEqualTo("7708000020000000");
    }

    @Test
    void andImm() { // r1 &= 255
        assertThat(bytes(a -> a.andImm(R1, 255))).isEqualTo("57010000ff000000");
    }

    @Test
    void storeWordFromRegister() { // *(u32 *)(r10 - 32) = r8
        assertThat(bytes(a -> a.stxW(R10, -32, R8))).isEqualTo("638ae0ff00000000");
    }

    @Test
    void storeDoubleWordFromRegister() { // *(u64 *)(r10 - 8) = r7
        assertThat(bytes(a -> a.stxDW(R10, -8, R7))).isEqualTo("7b7af8ff00000000");
    }

    @Test
    void storeWordImmediate() { // BPF_ST_MEM(BPF_W, BPF_REG_10, -28, 0)
        assertThat(bytes(a -> a.stW(R10, -28, 0))).isEqualTo("620ae4ff00000000");
    }

    @Test
    void storeDoubleWordImmediate() { // BPF_ST_MEM(BPF_DW, BPF_REG_10, -40, 1)
        assertThat(bytes(a -> a.stDW(R10, -40, 1))).isEqualTo("7a0ad8ff01000000");
    }

    @Test
    void loadWord() { // r1 = *(u32 *)(r6 + 4)
        assertThat(bytes(a -> a.ldxW(R1, R6, 4))).isEqualTo("6161040000000000");
    }

    @Test
    void loadDoubleWord() { // r1 = *(u64 *)(r6 + 8)
        assertThat(bytes(a -> a.ldxDW(R1, R6, 8))).isEqualTo("7961080000000000");
    }

    @Test
    void atomicAdd() { // lock *(u64 *)(r0 + 0) += r1
        assertThat(bytes(a -> a.atomicAddDW(R0, 0, R1))).isEqualTo("db10000000000000");
    }

    @Test
    void loadImmediate64TakesTwoSlots() { // r1 = 0x123456789abcdef0 ll
        assertThat(bytes(a -> a.ldImm64(R1, 0x123456789abcdef0L)))
                .isEqualTo("18010000f0debc9a" + "0000000078563412");
    }

    @Test
    void loadMapFd() { // BPF_LD_MAP_FD(BPF_REG_2, 5): ld_imm64 with src = BPF_PSEUDO_MAP_FD
        assertThat(bytes(a -> a.ldMapFd(R2, 5))).isEqualTo("1812000005000000" + "0000000000000000");
    }

    @Test
    void call() { // call 14
        assertThat(bytes(a -> a.call(14))).isEqualTo("850000000e000000");
    }

    @Test
    void exit() { // exit
        assertThat(bytes(BpfAssembler::exit)).isEqualTo("9500000000000000");
    }

    @Test
    void jumpIfEqualImmediateForward() { // if r0 == 0 goto +2
        assertThat(bytes(a -> {
            BpfAssembler.Label l = a.label("l");
            a.jeqImm(R0, 0, l).exit().exit().bind(l).exit();
        })).startsWith("1500020000000000");
    }

    @Test
    void jumpIfNotEqualImmediateBackward() { // if r0 != -17 goto -3
        assertThat(bytes(a -> {
            BpfAssembler.Label l = a.label("l");
            a.bind(l).exit().exit().jneImm(R0, -17, l);
        })).endsWith("5500fdffefffffff");
    }

    @Test
    void jumpIfRegistersEqual() { // if r1 == r2 goto +1
        assertThat(bytes(a -> {
            BpfAssembler.Label l = a.label("l");
            a.jeq(R1, R2, l).exit().bind(l).exit();
        })).startsWith("1d21010000000000");
    }

    @Test
    void jumpIfRegistersDiffer() { // if r1 != r2 goto +1
        assertThat(bytes(a -> {
            BpfAssembler.Label l = a.label("l");
            a.jne(R1, R2, l).exit().bind(l).exit();
        })).startsWith("5d21010000000000");
    }

    @Test
    void jumpAlwaysOverTwoSlotInstruction() { // goto +2 (over one ld_imm64)
        assertThat(bytes(a -> {
            BpfAssembler.Label l = a.label("l");
            a.ja(l).ldImm64(R1, 7).bind(l).exit();
        })).startsWith("0500020000000000");
    }

    @Test
    void unboundLabelIsAnError() {
        BpfAssembler a = new BpfAssembler();
        a.ja(a.label("nowhere"));
        assertThatThrownBy(a::build).hasMessageContaining("nowhere");
    }

    @Test
    void labelBoundTwiceIsAnError() {
        BpfAssembler a = new BpfAssembler();
        BpfAssembler.Label l = a.label("twice");
        a.bind(l).exit();
        assertThatThrownBy(() -> a.bind(l)).hasMessageContaining("twice");
    }

    // The walker's instructions (issue 26), each against llvm-mc -triple bpfel -show-encoding (LLVM 14).

    @Test
    void aluRegisterForms() { // r1 += r2; r1 -= r2; r3 *= r4; r1 ^= r2; r1 |= r2; r1 &= r2; r1 >>= r2
        assertThat(bytes(a -> a.add(R1, R2))).isEqualTo("0f21000000000000");
        assertThat(bytes(a -> a.sub(R1, R2))).isEqualTo("1f21000000000000");
        assertThat(bytes(a -> a.mul(R3, R4))).isEqualTo("2f43000000000000");
        assertThat(bytes(a -> a.xor(R1, R2))).isEqualTo("af21000000000000");
        assertThat(bytes(a -> a.or(R1, R2))).isEqualTo("4f21000000000000");
        assertThat(bytes(a -> a.and(R1, R2))).isEqualTo("5f21000000000000");
        assertThat(bytes(a -> a.rsh(R1, R2))).isEqualTo("7f21000000000000");
    }

    @Test
    void aluImmediateForms() { // r1 -= 8; r1 *= 7; r1 ^= 7; r1 <<= 3; r1 s>>= 48
        assertThat(bytes(a -> a.subImm(R1, 8))).isEqualTo("1701000008000000");
        assertThat(bytes(a -> a.mulImm(R1, 7))).isEqualTo("2701000007000000");
        assertThat(bytes(a -> a.xorImm(R1, 7))).isEqualTo("a701000007000000");
        assertThat(bytes(a -> a.lshImm(R1, 3))).isEqualTo("6701000003000000");
        assertThat(bytes(a -> a.arshImm(R1, 48))).isEqualTo("c701000030000000");
    }

    @Test
    void mov32ZeroExtends() { // w1 = w2
        assertThat(bytes(a -> a.mov32(R1, R2))).isEqualTo("bc21000000000000");
    }

    @Test
    void byteSwapsToBigEndian() { // r1 = be16 r1; r1 = be32 r1; r1 = be64 r1
        assertThat(bytes(a -> a.toBigEndian(R1, 16))).isEqualTo("dc01000010000000");
        assertThat(bytes(a -> a.toBigEndian(R1, 32))).isEqualTo("dc01000020000000");
        assertThat(bytes(a -> a.toBigEndian(R1, 64))).isEqualTo("dc01000040000000");
        assertThatThrownBy(() -> new BpfAssembler().toBigEndian(R1, 8)).hasMessageContaining("8 bits");
    }

    @Test
    void narrowLoadsAndStores() { // r1 = *(u16 *)(r2 + 4); r1 = *(u8 *)(r2 + 4); *(u16 *)(r1 + 6) = r2
        assertThat(bytes(a -> a.ldxH(R1, R2, 4))).isEqualTo("6921040000000000");
        assertThat(bytes(a -> a.ldxB(R1, R2, 4))).isEqualTo("7121040000000000");
        assertThat(bytes(a -> a.stxH(R1, 6, R2))).isEqualTo("6b21060000000000");
    }

    private static String jumpOverOne(java.util.function.BiConsumer<BpfAssembler, BpfAssembler.Label> jump) {
        return bytes(a -> {
            BpfAssembler.Label l = a.label("l");
            jump.accept(a, l);
            a.exit().bind(l).exit();
        }).substring(0, 16);
    }

    @Test
    void unsignedAndSignedComparisons() { // if r1 > 5 goto +1; if r1 > r2 goto +1; ... if r1 s> 5 goto +1
        assertThat(jumpOverOne((a, l) -> a.jgtImm(R1, 5, l))).isEqualTo("2501010005000000");
        assertThat(jumpOverOne((a, l) -> a.jgt(R1, R2, l))).isEqualTo("2d21010000000000");
        assertThat(jumpOverOne((a, l) -> a.jgeImm(R1, 5, l))).isEqualTo("3501010005000000");
        assertThat(jumpOverOne((a, l) -> a.jge(R1, R2, l))).isEqualTo("3d21010000000000");
        assertThat(jumpOverOne((a, l) -> a.jltImm(R1, 5, l))).isEqualTo("a501010005000000");
        assertThat(jumpOverOne((a, l) -> a.jlt(R1, R2, l))).isEqualTo("ad21010000000000");
        assertThat(jumpOverOne((a, l) -> a.jleImm(R1, 5, l))).isEqualTo("b501010005000000");
        assertThat(jumpOverOne((a, l) -> a.jle(R1, R2, l))).isEqualTo("bd21010000000000");
        assertThat(jumpOverOne((a, l) -> a.jsgtImm(R1, 5, l))).isEqualTo("6501010005000000");
    }

    @Test
    void tailCallIsHelperTwelve() { // call 12 (bpf_tail_call)
        assertThat(bytes(BpfAssembler::tailCall)).isEqualTo("850000000c000000");
    }
}
