package org.stackfold.io;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Runs range parsers on one thread each and rethrows the first failure as it was thrown. */
public final class Parallel {
    private Parallel() {
    }

    public static void runAll(List<? extends Runnable> tasks) throws IOException {
        if (tasks.size() == 1) {
            tasks.getFirst().run();
            return;
        }
        try (ExecutorService pool = Executors.newFixedThreadPool(tasks.size())) {
            List<Future<?>> fs = new ArrayList<>();
            for (Runnable t : tasks) {
                fs.add(pool.submit(t));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IOException(e.getCause());
        }
    }
}
