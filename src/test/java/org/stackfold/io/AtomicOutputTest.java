package org.stackfold.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicOutputTest {
    @TempDir
    Path dir;

    private static void write(Path p, String text) throws IOException {
        try (AtomicOutput out = AtomicOutput.open(p.toString())) {
            out.stream().write(text.getBytes(StandardCharsets.UTF_8));
            out.commit();
        }
    }

    @Test
    void replacesTheFileOnlyOnCommit() throws IOException {
        Path p = dir.resolve("out.txt");
        Files.writeString(p, "old");
        try (AtomicOutput out = AtomicOutput.open(p.toString())) {
            out.stream().write("half".getBytes(StandardCharsets.UTF_8));
        }
        assertThat(Files.readString(p)).isEqualTo("old");
        write(p, "new");
        assertThat(Files.readString(p)).isEqualTo("new");
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(p);
        }
    }

    @Test
    void aSymbolicLinkKeepsPointingAtTheNewContent() throws IOException {
        Path real = dir.resolve("real.txt");
        Files.writeString(real, "old");
        Path link = Files.createSymbolicLink(dir.resolve("link.txt"), real);
        write(link, "new");
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(Files.readString(real)).isEqualTo("new");
    }

    @Test
    void aPipeIsWrittenInPlaceNotReplaced() throws Exception {
        Path fifo = dir.resolve("fifo");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assumeThat(mk.waitFor(10, TimeUnit.SECONDS) && mk.exitValue() == 0).as("mkfifo works here").isTrue();
        CompletableFuture<String> reader = CompletableFuture.supplyAsync(() -> {
            try (InputStream in = Files.newInputStream(fifo)) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        write(fifo, "through the pipe");
        assertThat(reader.get(10, TimeUnit.SECONDS)).isEqualTo("through the pipe");
        assertThat(Files.isRegularFile(fifo)).isFalse();
        assertThat(Files.exists(fifo)).isTrue();
    }

    @Test
    void aDirectoryIsAClearError() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> AtomicOutput.open(dir.toString()))
                .isInstanceOf(InputException.class).hasMessageEndingWith(": is a directory");
    }
}
