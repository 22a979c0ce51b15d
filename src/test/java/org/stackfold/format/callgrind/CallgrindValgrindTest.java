package org.stackfold.format.callgrind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.SpeedscopeOracle;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * A C program recorded here with {@code valgrind --tool=callgrind}: its functions called from one
 * place without recursion have the self and inclusive costs {@code callgrind_annotate} prints.
 * (Functions under recursion or called from several places get speedscope's even split instead.)
 */
class CallgrindValgrindTest {
    @TempDir
    Path dir;

    @Test
    void singleContextFunctionsHaveCallgrindAnnotatesCosts() throws Exception {
        assumeTrue(Annotate.installed("valgrind") && Annotate.installed("callgrind_annotate"),
                "valgrind (apt package valgrind) is not installed");
        assumeTrue(Annotate.installed("gcc"), "gcc is not installed");
        Files.copy(SpeedscopeOracle.resource("callgrind/prog.c"), dir.resolve("prog.c"));
        Annotate.run(dir, "gcc", "-O0", "-g", "-o", "prog", "prog.c");
        Annotate.run(dir, "valgrind", "--tool=callgrind", "--callgrind-out-file=callgrind.out.prog", "./prog", "12");
        Path out = dir.resolve("callgrind.out.prog");
        Profile p;
        java.util.List<String> warnings = new java.util.ArrayList<>();
        try (Input in = Input.open(out.toString())) {
            p = new CallgrindFormat().read(in, FormatOptions.none().withWarnings(warnings::add));
        }
        Map<String, long[]> ours = CallgrindWriterTest.selfAndInclusive(p);
        Map<String, Long> self = Annotate.costs(out, false);
        Map<String, Long> inclusive = Annotate.costs(out, true);
        if (warnings.stream().anyMatch(w -> w.contains("read as a flat profile"))) {
            // fib's recursion makes speedscope's unfolding exceed the file's totals: line, and a
            // conversion never reports more than the file holds: flat, each function its self cost
            for (String fn : new String[] {"main", "middle", "leaf"}) {
                assertThat(ours.get(fn)[0]).as("self of %s", fn).isEqualTo(self.get(fn)).isPositive();
            }
            return;
        }
        for (String fn : new String[] {"main", "middle", "leaf"}) {
            assertThat(ours.get(fn)[0]).as("self of %s", fn).isEqualTo(self.get(fn)).isPositive();
            assertThat(ours.get(fn)[1]).as("inclusive of %s", fn).isEqualTo(inclusive.get(fn)).isPositive();
        }
        // middle calls leaf 20 times: leaf's cost is all under middle
        assertThat(CallgrindFormatTest.inclusive(SpeedscopeOracle.stacks(p), "leaf")).isEqualTo(inclusive.get("leaf"));
    }
}
