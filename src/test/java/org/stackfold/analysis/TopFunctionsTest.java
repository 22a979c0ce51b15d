package org.stackfold.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.stackfold.testing.Folded;

class TopFunctionsTest {
    @Test
    void selfAndTotalWithRecursionCountedOncePerStack() {
        var p = Folded.read("main;fib;fib;fib 5\nmain;fib 1\nmain;other;fib 2\nmain 2\n").profile();
        TopFunctions.Table t = TopFunctions.of(p, 0);
        assertThat(t.samples()).isEqualTo(10);
        List<TopFunctions.Row> rows = TopFunctions.sorted(t, TopFunctions.Sort.TOTAL, 10);
        assertThat(rows).containsExactly(
                new TopFunctions.Row("main", 2, 10),
                new TopFunctions.Row("fib", 8, 8),
                new TopFunctions.Row("other", 0, 2));
        assertThat(TopFunctions.sorted(t, TopFunctions.Sort.SELF, 1)).containsExactly(new TopFunctions.Row("fib", 8, 8));
    }
}
