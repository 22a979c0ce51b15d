package org.stackfold.unwind;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The walker's rules on a stack written by hand: rsp and rbp CFAs, saved rbp, PLT, signal frames, the FP step, the ends. */
class ReferenceUnwinderTest {
    private static final long BIAS = 0x5555_0000_0000L;
    private static final long JIT = 0x7000_0000L;

    /** A table: leaf [0x1000, 0x1100) rsp+24 rbp=c-16; mid [0x1100, 0x1200) rbp+16 rbp=c-16; PLT at 0x1200; _start stop at 0x1300; signal trampoline at 0x1400. */
    private static final UnwindTable TABLE = new UnwindTable("t", null, new long[] {
            UnwindRow.of(0x1000, UnwindRow.cfa(UnwindRow.RSP, 24), -2),
            UnwindRow.of(0x1100, UnwindRow.cfa(UnwindRow.RBP, 16), -2),
            UnwindRow.of(0x1200, UnwindRow.CFA_PLT, 0),
            UnwindRow.of(0x1210, UnwindRow.CFA_NO_INFO, 0),
            UnwindRow.of(0x1300, UnwindRow.CFA_STOP, 0),
            UnwindRow.of(0x1310, UnwindRow.CFA_NO_INFO, 0),
            UnwindRow.of(0x13ff, UnwindRow.CFA_SIGNAL, 0),
            UnwindRow.of(0x1410, UnwindRow.CFA_UNSUPPORTED, 0)}, 5);

    private final Map<Long, Long> stack = new HashMap<>();
    private final ReferenceUnwinder.Memory memory = (a, out) -> {
        Long v = stack.get(a);
        if (v == null) {
            return false;
        }
        out[0] = v;
        return true;
    };
    private final ReferenceUnwinder.Modules modules = a -> {
        if (a >= BIAS + 0x1000 && a < BIAS + 0x2000) {
            return new ReferenceUnwinder.Module(TABLE, BIAS, false);
        }
        if (a >= JIT && a < JIT + 0x1000) {
            return new ReferenceUnwinder.Module(null, 0, true);
        }
        return null;
    };

    @Test
    void leafThroughRbpFrameToTheRoot() {
        long sp = 0x7ff0_0000L;
        long bp = 0x1234; // whatever the leaf left in rbp
        // leaf at 0x1010: CFA = sp + 24; RA at CFA-8 -> mid; rbp saved at CFA-16
        long midFrame = 0x7ff0_0100L;
        stack.put(sp + 16, BIAS + 0x1150);
        stack.put(sp + 8, midFrame);
        // mid: CFA = rbp + 16 = midFrame + 16; RA at midFrame + 8 -> _start; rbp at midFrame
        stack.put(midFrame + 8, BIAS + 0x1305);
        stack.put(midFrame, 0L);
        ReferenceUnwinder w = new ReferenceUnwinder(128);
        assertThat(w.unwind(BIAS + 0x1010, sp, bp, memory, modules)).isEqualTo(3);
        assertThat(w.frame(0)).isEqualTo(BIAS + 0x1010);
        assertThat(w.exact(0)).isTrue();
        assertThat(w.frame(1)).isEqualTo(BIAS + 0x1150);
        assertThat(w.exact(1)).isFalse();
        assertThat(w.frame(2)).isEqualTo(BIAS + 0x1305);
        assertThat(w.end()).isEqualTo(ReferenceUnwinder.End.ROOT);
    }

    @Test
    void callersAreLookedUpOneByteBack() {
        // a return address right after a call that ends the leaf's range: pc - 1 is still in it
        long sp = 0x7ff0_0000L;
        stack.put(sp + 16, BIAS + 0x1100); // returns to 0x1100 (mid's first byte); lookup 0x10ff: leaf's rule
        stack.put(sp + 8, 0x99L);
        stack.put(sp + 24 + 16, BIAS + 0x1305); // leaf's rule again: RA at CFA + 24 - 8
        stack.put(sp + 24 + 8, 0L);
        ReferenceUnwinder w = new ReferenceUnwinder(128);
        w.unwind(BIAS + 0x1000, sp, 0, memory, modules);
        assertThat(w.count()).isEqualTo(3);
        assertThat(w.end()).isEqualTo(ReferenceUnwinder.End.ROOT);
    }

    @Test
    void pltRuleDependsOnTheOffsetInTheStub() {
        long sp = 0x7ff0_0000L;
        stack.put(sp, BIAS + 0x1305); // at +0..10 of a PLT entry: CFA = sp + 8
        stack.put(sp + 8, BIAS + 0x1305); // at +11..15 (after the push): CFA = sp + 16
        ReferenceUnwinder w = new ReferenceUnwinder(128);
        w.unwind(BIAS + 0x1204, sp, 0, memory, modules);
        assertThat(w.count()).isEqualTo(2);
        w.unwind(BIAS + 0x120b, sp, 0, memory, modules);
        assertThat(w.count()).isEqualTo(2);
        assertThat(w.end()).isEqualTo(ReferenceUnwinder.End.ROOT);
    }

    @Test
    void signalFrameRestoresRegistersFromTheUcontext() {
        long sp = 0x7ff0_0000L;
        // the handler (a leaf at 0x1010) returns into the trampoline at 0x1400 (looked up at 0x13ff)
        stack.put(sp + 16, BIAS + 0x1400);
        stack.put(sp + 8, 0L);
        long tramp = sp + 24;
        long interruptedSp = 0x7ff1_0000L;
        stack.put(tramp + 40 + 8 * 10, interruptedSp + 0x100); // rbp
        stack.put(tramp + 40 + 8 * 15, interruptedSp); // rsp
        stack.put(tramp + 40 + 8 * 16, BIAS + 0x1300); // rip: exact, inside _start's stop row
        ReferenceUnwinder w = new ReferenceUnwinder(128);
        w.unwind(BIAS + 0x1010, sp, 0, memory, modules);
        assertThat(w.count()).isEqualTo(3);
        assertThat(w.frame(2)).isEqualTo(BIAS + 0x1300);
        assertThat(w.exact(2)).isTrue(); // looked up as is: 0x12ff would be no-info
        assertThat(w.end()).isEqualTo(ReferenceUnwinder.End.ROOT);
        assertThat(w.signalFrames()).isEqualTo(1);
    }

    @Test
    void oneFramePointerStepThroughCodeNoFileCovers() {
        long sp = 0x7ff0_0000L;
        long bp = sp + 0x40;
        stack.put(bp, 0L);
        stack.put(bp + 8, BIAS + 0x1305);
        ReferenceUnwinder w = new ReferenceUnwinder(128);
        w.unwind(JIT + 0x10, sp, bp, memory, modules);
        assertThat(w.count()).isEqualTo(2);
        assertThat(w.end()).isEqualTo(ReferenceUnwinder.End.ROOT);
        assertThat(w.fpSteps()).isEqualTo(1);
        // rbp below sp is no frame
        w.unwind(0x10, sp, sp - 16, memory, modules);
        assertThat(w.end()).isEqualTo(ReferenceUnwinder.End.NO_MAPPING);
    }

    @Test
    void endings() {
        ReferenceUnwinder w = new ReferenceUnwinder(128);
        long sp = 0x7ff0_0000L;
        w.unwind(BIAS + 0x1010, sp, 0, memory, modules);
        assertThat(w.end()).isEqualTo(ReferenceUnwinder.End.READ_FAULT);
        w.unwind(BIAS + 0x1250, sp, 0, memory, modules);
        assertThat(w.end()).isEqualTo(ReferenceUnwinder.End.NO_INFO);
        w.unwind(BIAS + 0x1500, sp, 0, memory, modules);
        assertThat(w.end()).isEqualTo(ReferenceUnwinder.End.UNSUPPORTED);
        w.unwind(0, sp, 0, memory, modules);
        assertThat(w.end()).isEqualTo(ReferenceUnwinder.End.ZERO_PC);
        assertThat(w.count()).isZero();
        // a loop of frames ends at the limit
        stack.put(sp + 16, BIAS + 0x1011);
        stack.put(sp + 8, 0L);
        ReferenceUnwinder small = new ReferenceUnwinder(4);
        ReferenceUnwinder.Memory same = (a, out) -> {
            out[0] = a == sp + 16 || (a - sp) % 24 == 16 ? BIAS + 0x1011 : 0;
            return true;
        };
        small.unwind(BIAS + 0x1010, sp, 0, same, modules);
        assertThat(small.count()).isEqualTo(4);
        assertThat(small.end()).isEqualTo(ReferenceUnwinder.End.DEPTH);
    }
}
