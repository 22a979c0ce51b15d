package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * A command that succeeds ends the JVM by returning from main (System.exit costs a logger lookup that
 * rereads the jar); that is only safe where no other live thread would keep the JVM running.
 */
class MainExitTest {
    @Test
    void aLiveNonDaemonThreadKeepsMainFromReturning() throws InterruptedException {
        assertThat(whileAThreadWaits(false)).isFalse();
    }

    @Test
    void daemonThreadsDoNotCount() throws InterruptedException {
        boolean before = Main.aloneInTheJvm(); // whatever the test runner keeps running
        assertThat(whileAThreadWaits(true)).isEqualTo(before);
    }

    /** {@link Main#aloneInTheJvm} while another thread, a daemon or not, is alive and waiting. */
    private static boolean whileAThreadWaits(boolean daemon) throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        Thread waiting = new Thread(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "waiting worker");
        waiting.setDaemon(daemon);
        waiting.start();
        try {
            return Main.aloneInTheJvm();
        } finally {
            release.countDown();
            waiting.join();
        }
    }
}
