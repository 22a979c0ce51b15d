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
        CountDownLatch release = new CountDownLatch(1);
        Thread worker = new Thread(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "non-daemon worker");
        worker.start();
        try {
            assertThat(Main.aloneInTheJvm()).isFalse();
        } finally {
            release.countDown();
            worker.join();
        }
    }

    @Test
    void daemonThreadsDoNotCount() throws InterruptedException {
        boolean before = Main.aloneInTheJvm(); // whatever the test runner keeps running
        CountDownLatch release = new CountDownLatch(1);
        Thread daemon = new Thread(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "daemon worker");
        daemon.setDaemon(true);
        daemon.start();
        try {
            assertThat(Main.aloneInTheJvm()).isEqualTo(before);
        } finally {
            release.countDown();
            daemon.join();
        }
    }
}
