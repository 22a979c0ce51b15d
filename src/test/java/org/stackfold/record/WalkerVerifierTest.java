package org.stackfold.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every variant of the walker's programs loads, and the verifier accepts each in well under the
 * 250,000-instruction budget of issue 26 (from {@code verified_insns} of {@code bpf_prog_info}; the
 * load time is only printed: it is a timing on a shared machine). Skipped where eBPF is not allowed.
 */
class WalkerVerifierTest {
    static final long BUDGET = 250_000;

    @Test
    void everyVariantVerifiesUnderTheBudget() throws IOException {
        String missing = Privileges.missing();
        assumeTrue(missing == null, missing);
        assumeTrue(Unwinding.kernelSupports(Unwinding.release()), "Linux " + Unwinding.release() + " < 5.15");
        for (int v = 0; v < 16; v++) {
            boolean idle = (v & 1) != 0, perThread = (v & 2) != 0, filter = (v & 4) != 0, noKernel = (v & 8) != 0;
            RecordOptions o = new RecordOptions(99, 1, filter ? List.of(1, 2) : List.of(), List.of(), !noKernel, true,
                    idle, perThread, false, false, 1024, 0, RecordOptions.Unwind.DWARF);
            try (Sampler s = new Sampler(o, 1024)) {
                assertThat(s.walks()).isTrue();
                Sampler.WalkerStats w = s.walkerStats();
                System.out.printf("walker variant %d: entry %,d, continuation %,d verified insns, loaded in %.2f s%n",
                        v, w.entryVerified(), w.continuationVerified(), w.loadSeconds());
                assertThat(w.entryVerified()).isBetween(1L, BUDGET);
                assertThat(w.continuationVerified()).isBetween(1L, BUDGET);
            }
        }
    }
}
