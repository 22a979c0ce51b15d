package org.stackfold.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.stackfold.record.bpf.BpfAssembler;

/** The parts of a recording that need no kernel: sizing, CPU lists, the program's shape, accounting. */
class RecordUnitsTest {
    @Test
    void onlineCpuListsWithRangesAndSingles() {
        assertThat(OnlineCpus.parse("0-3,5,7-8\n")).containsExactly(0, 1, 2, 3, 5, 7, 8);
        assertThat(OnlineCpus.parse("0\n")).containsExactly(0);
    }

    @Test
    void stackMapsHaveBccsSizeUnlessGiven() {
        assertThat(Recorder.stackEntries(RecordOptions.defaults())).isEqualTo(16384);
        RecordOptions fixed = new RecordOptions(99, 1, List.of(), List.of(), true, true, false, false, false, false,
                4096, 0);
        assertThat(Recorder.stackEntries(fixed)).isEqualTo(4096);
    }

    @Test
    void drainsHoldAboutFiftySamples() {
        RecordOptions o = RecordOptions.defaults();
        assertThat(Recorder.drainMillis(o, 2)).isEqualTo(250); // 99 Hz x 2 CPUs: ~50 samples in 250 ms
        assertThat(Recorder.drainMillis(new RecordOptions(999, 1, List.of(), List.of(), true, true, false, false,
                false, false, 0, 0), 2)).isEqualTo(50);
        assertThat(Recorder.drainMillis(new RecordOptions(99, 1, List.of(), List.of(), true, true, false, false,
                false, false, 0, 120), 2)).isEqualTo(120);
    }

    @Test
    void optionsRefuseContradictions() {
        assertThatThrownBy(() -> new RecordOptions(99, 1, List.of(), List.of(), false, false, false, false, false,
                false, 0, 250)).hasMessageContaining("user-only and kernel-only");
        assertThatThrownBy(() -> RecordOptions.defaults().withPids(List.of(1)).withCommand(List.of("true")))
                .hasMessageContaining("not both");
    }

    private static SamplingProgram.Spec spec(int pidFilter, boolean idle, boolean perThread, boolean kernel, boolean user) {
        return new SamplingProgram.Spec(3, 4, 6, 5, pidFilter, idle, perThread, kernel, user);
    }

    private static boolean contains(long[] insns, long word) {
        for (long w : insns) {
            if (w == word) {
                return true;
            }
        }
        return false;
    }

    @Test
    void idleFilterIsAJumpOnPidZero() {
        long idleJump = 0x15L | BpfAssembler.R8 << 8; // if r8 == 0 goto ..., offset masked below
        long[] filtered = SamplingProgram.assemble(spec(-1, false, false, true, true));
        long[] withIdle = SamplingProgram.assemble(spec(-1, true, false, true, true));
        assertThat(countMasked(filtered, idleJump)).isEqualTo(1);
        assertThat(countMasked(withIdle, idleJump)).isZero();
        assertThat(filtered.length).isEqualTo(withIdle.length + 1);
    }

    private static long countMasked(long[] insns, long word) {
        long n = 0;
        for (long w : insns) {
            if ((w & ~(0xffffL << 16)) == word) {
                n++;
            }
        }
        return n;
    }

    @Test
    void pidFilterLooksUpTheFilterMap() {
        long[] insns = SamplingProgram.assemble(spec(9, false, false, true, true));
        assertThat(contains(insns, BpfAssembler.encode(0x18, BpfAssembler.R1, BpfAssembler.PSEUDO_MAP_FD, 0, 9))).isTrue();
        assertThat(contains(SamplingProgram.assemble(spec(-1, false, false, true, true)),
                BpfAssembler.encode(0x18, BpfAssembler.R1, BpfAssembler.PSEUDO_MAP_FD, 0, 9))).isFalse();
    }

    @Test
    void userOnlyStoresNoKernelStackAndPerThreadStoresTheTid() {
        long[] userOnly = SamplingProgram.assemble(spec(-1, false, false, false, true));
        // *(u32 *)(r10 - 32) = -EFAULT: the kernel stack slot (key at -40, +8) says "no stack"
        assertThat(contains(userOnly, BpfAssembler.encode(0x62, BpfAssembler.R10, 0, -32, -14))).isTrue();
        long[] perThread = SamplingProgram.assemble(spec(-1, false, true, true, true));
        // *(u32 *)(r10 - 36) = r7: the low half of pid_tgid
        assertThat(contains(perThread, BpfAssembler.encode(0x63, BpfAssembler.R10, BpfAssembler.R7, -36, 0))).isTrue();
    }

    @Test
    void stacksGoToTheMapTheGenerationNames() {
        long[] insns = SamplingProgram.assemble(spec(-1, false, false, true, true));
        long map0 = BpfAssembler.encode(0x18, BpfAssembler.R2, BpfAssembler.PSEUDO_MAP_FD, 0, 4);
        long map1 = BpfAssembler.encode(0x18, BpfAssembler.R2, BpfAssembler.PSEUDO_MAP_FD, 0, 6);
        assertThat(java.util.Arrays.stream(insns).filter(w -> w == map0).count()).isEqualTo(2); // kernel and user
        assertThat(java.util.Arrays.stream(insns).filter(w -> w == map1).count()).isEqualTo(2);
        // *(u32 *)(r10 - 8) = r9: the generation read from the stats map goes into the key
        assertThat(contains(insns, BpfAssembler.encode(0x63, BpfAssembler.R10, BpfAssembler.R9, -8, 0))).isTrue();
    }

    @Test
    void everyProgramEndsWithReturnZero() {
        long[] insns = SamplingProgram.assemble(spec(9, true, true, true, true));
        assertThat(insns[insns.length - 2]).isEqualTo(BpfAssembler.encode(0xb7, 0, 0, 0, 0));
        assertThat(insns[insns.length - 1]).isEqualTo(BpfAssembler.encode(0x95, 0, 0, 0, 0));
    }

    @Test
    void accountingSeparatesCollisionsFromAbsentStacks() {
        Accounting.Builder b = new Accounting.Builder();
        b.samples(100);
        b.stackError(true, -14, 60); // user-mode sample: no kernel stack, nothing lost
        b.stackError(true, -17, 2);
        b.stackError(false, -17, 3);
        b.stackError(false, -12, 1);
        b.stackError(false, 5, 30);
        b.lostToFullCountMap(4);
        b.truncatedUser(7);
        Accounting a = b.build();
        assertThat(a.kernelCollisions()).isEqualTo(2);
        assertThat(a.userCollisions()).isEqualTo(3);
        assertThat(a.otherStackErrors()).isEqualTo(1);
        assertThat(a.taken()).isEqualTo(104);
        assertThat(a.truncatedUser()).isEqualTo(7);
    }
}
