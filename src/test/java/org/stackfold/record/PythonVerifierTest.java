package org.stackfold.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The walker with its Python hook and {@link PythonProgram} (line- and function-level) loads, and
 * the verifier accepts each program well under the 250,000-instruction budget ({@code verified_insns}
 * of {@code bpf_prog_info}). Skipped where eBPF is not allowed or the kernel is older than 5.15.
 */
class PythonVerifierTest {
    @Test
    void pythonProgramVerifiesUnderTheBudget() throws IOException {
        String missing = Privileges.missing();
        assumeTrue(missing == null, missing);
        assumeTrue(Unwinding.kernelSupports(Unwinding.release()), "Linux " + Unwinding.release() + " < 5.15");
        for (boolean lines : new boolean[] {true, false}) {
            for (boolean perThread : new boolean[] {true, false}) {
                RecordOptions o = new RecordOptions(99, 1, List.of(), List.of(), true, true, false, perThread, false,
                        false, 1024, 0, RecordOptions.Unwind.DWARF);
                try (Sampler s = new Sampler(o, 1024, UnwindRowSource.NONE, lines)) {
                    Sampler.WalkerStats w = s.walkerStats();
                    long py = s.python().verifiedInstructions();
                    System.out.printf("lines %s, per-thread %s: entry %,d, continuation %,d, python %,d verified insns%n",
                            lines, perThread, w.entryVerified(), w.continuationVerified(), py);
                    assertThat(s.python().notes()).isEmpty();
                    assertThat(py).isBetween(1L, WalkerVerifierTest.BUDGET / 2);
                    assertThat(w.entryVerified()).isBetween(1L, WalkerVerifierTest.BUDGET);
                    assertThat(w.continuationVerified()).isBetween(1L, WalkerVerifierTest.BUDGET);
                }
            }
        }
    }
}
