package org.stackfold.symbolize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The heap bound on symbol tables ({@link Symbolizer#symbolTableBudget}): past it the least recently
 * used tables are dropped and built again from the mapped file, and every name stays what it was.
 */
class SymbolTableBudgetTest {
    private static final SymbolizerOptions DEMANGLED = new SymbolizerOptions(true, false, false, false);

    /** Real files with symbol tables of different sizes: the test program, libc, libstdc++ (gcc's). */
    private static List<Path> files() throws IOException {
        List<Path> files = new ArrayList<>(List.of(NativeTools.program()));
        for (String f : List.of("/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
                "/usr/lib/x86_64-linux-gnu/libm.so.6")) {
            if (Files.isRegularFile(Path.of(f))) {
                files.add(Path.of(f));
            }
        }
        assumeThat(files.size()).as("libc and libstdc++ on this machine").isGreaterThanOrEqualTo(3);
        return files;
    }

    /** Addresses spread over each file's functions, visited file after file, several rounds. */
    private static List<String> names(Symbolizer s, List<Path> files, int rounds) throws IOException {
        List<String> out = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            for (Path f : files) {
                SymbolTable t = s.image(f).symbols();
                AddressSymbolizer a = s.elf(f);
                for (int i = round; i < t.count(); i += Math.max(1, t.count() / 50)) {
                    out.add(f.getFileName() + " " + a.symbolize(t.start[i] + 1));
                }
            }
        }
        return out;
    }

    /** {@link #names} without a budget: what every budget must give too. */
    private static List<String> unboundedNames(List<Path> files, int rounds) throws IOException {
        try (Symbolizer s = new Symbolizer(DEMANGLED)) {
            List<String> names = names(s, files, rounds);
            assertThat(s.symbolTableStats()[1]).as("nothing dropped without a budget").isZero();
            return names;
        }
    }

    @Test
    void aTinyBudgetDropsTablesButNamesStayTheSame() throws IOException {
        List<Path> files = files();
        List<String> unbounded = unboundedNames(files, 3);
        try (Symbolizer s = new Symbolizer(DEMANGLED).symbolTableBudget(1)) {
            assertThat(names(s, files, 3)).isEqualTo(unbounded);
            long[] stats = s.symbolTableStats();
            // Each file's table dropped the one before it: one table is left at a time.
            assertThat(stats[1]).isGreaterThanOrEqualTo(3L * files.size() - 1);
            assertThat(stats[0]).isEqualTo(s.image(files.getLast()).symbols().bytes());
        }
    }

    @Test
    void theTablesTakeNoMoreThanTheBudgetAndTheMostRecentlyUsedStay() throws IOException {
        List<Path> files = files();
        long libc, stdcxx;
        try (Symbolizer s = new Symbolizer(DEMANGLED)) {
            libc = s.image(files.get(1)).symbols().bytes();
            stdcxx = s.image(files.get(2)).symbols().bytes();
        }
        try (Symbolizer s = new Symbolizer(DEMANGLED).symbolTableBudget(libc + stdcxx)) {
            names(s, files, 1);
            long[] stats = s.symbolTableStats();
            assertThat(stats[0]).isLessThanOrEqualTo(libc + stdcxx);
            // The last file named is kept; naming the first again builds its table again and the total stays bounded.
            SymbolTable last = s.image(files.getLast()).symbols();
            s.elf(files.getFirst()).symbolize(s.image(files.getFirst()).symbols().start[0]);
            assertThat(s.symbolTableStats()[0]).isLessThanOrEqualTo(libc + stdcxx + s.image(files.getFirst()).symbols().bytes());
            assertThat(s.image(files.getLast()).symbols()).isSameAs(last);
        }
    }

    @Test
    void threadsNamingFilesWhileTablesAreDroppedGetTheSameNames() throws Exception {
        List<Path> files = files();
        List<String> unbounded = unboundedNames(files, 2);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (Symbolizer s = new Symbolizer(DEMANGLED).symbolTableBudget(1)) {
            List<Future<List<String>>> runs = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                runs.add(pool.submit(() -> names(s, files, 2)));
            }
            for (Future<List<String>> f : runs) {
                assertThat(f.get()).isEqualTo(unbounded);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
