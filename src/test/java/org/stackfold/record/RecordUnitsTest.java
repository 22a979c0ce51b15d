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
    void stackMapHoldsEightEntriesPerExpectedSampleWithinBounds() {
        RecordOptions o = RecordOptions.defaults();
        assertThat(Recorder.stackEntries(o.withSeconds(2), 2)).isEqualTo(16384); // 396 samples: the floor
        assertThat(Recorder.stackEntries(o.withSeconds(20), 2)).isEqualTo(32768); // 3960 x 8, a power of two
        assertThat(Recorder.stackEntries(o.withSeconds(3600), 64)).isEqualTo(32768); // the ceiling
        assertThat(Recorder.stackEntries(o, 2)).isEqualTo(32768); // until stopped: sized for a minute
        RecordOptions fixed = new RecordOptions(99, 1, List.of(), List.of(), true, true, false, false, false, false,
                4096, 250);
        assertThat(Recorder.stackEntries(fixed, 2)).isEqualTo(4096);
    }

    @Test
    void optionsRefuseContradictions() {
        assertThatThrownBy(() -> new RecordOptions(99, 1, List.of(), List.of(), false, false, false, false, false,
                false, 0, 250)).hasMessageContaining("user-only and kernel-only");
        assertThatThrownBy(() -> RecordOptions.defaults().withPids(List.of(1)).withCommand(List.of("true")))
                .hasMessageContaining("not both");
    }

    private static SamplingProgram.Spec spec(int pidFilter, boolean idle, boolean perThread, boolean kernel, boolean user) {
        return new SamplingProgram.Spec(3, 4, 5, pidFilter, idle, perThread, kernel, user);
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
        // *(u32 *)(r10 - 24) = -EFAULT: the kernel stack slot says "no stack"
        assertThat(contains(userOnly, BpfAssembler.encode(0x62, BpfAssembler.R10, 0, -24, -14))).isTrue();
        long[] perThread = SamplingProgram.assemble(spec(-1, false, true, true, true));
        // *(u32 *)(r10 - 28) = r7: the low half of pid_tgid
        assertThat(contains(perThread, BpfAssembler.encode(0x63, BpfAssembler.R10, BpfAssembler.R7, -28, 0))).isTrue();
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
