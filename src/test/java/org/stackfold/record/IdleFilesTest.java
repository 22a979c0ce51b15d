package org.stackfold.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The walker's files that no process maps any more ({@link IdleFiles}): kept for the next process
 * that maps them, least recently released out first, within their limits of files, bytes and age;
 * and the identity that tells a file rewritten in place from the one a table was built from.
 */
class IdleFilesTest {
    private static final IdleFiles.Identity A = new IdleFiles.Identity(100, 1, 1);

    @Test
    void keptUntilTakenBackOnce() {
        IdleFiles<String> idle = new IdleFiles<>(4, 1000, 1_000);
        assertThat(idle.put("08:01:12", "sh", 100, A, 0)).isEmpty();
        assertThat(idle.contains("08:01:12")).isTrue();
        assertThat(idle.identity("08:01:12")).isEqualTo(A);
        assertThat(idle.bytes()).isEqualTo(100);
        assertThat(idle.take("08:01:12")).isEqualTo("sh");
        assertThat(idle.take("08:01:12")).as("taken: a second process maps it through the first").isNull();
        assertThat(idle.contains("08:01:12")).isFalse();
        assertThat(idle.size()).isZero();
        assertThat(idle.bytes()).isZero();
    }

    @Test
    void theOldestGoFirstPastTheLimitOfFiles() {
        IdleFiles<String> idle = new IdleFiles<>(2, 1000, 1_000);
        idle.put("a", "A", 10, A, 0);
        idle.put("b", "B", 10, A, 1);
        assertThat(idle.put("c", "C", 10, A, 2)).containsExactly("A");
        assertThat(idle.oldestKey()).isEqualTo("b");
        assertThat(idle.takeOldest()).isEqualTo("B");
        assertThat(idle.takeOldest()).isEqualTo("C");
        assertThat(idle.takeOldest()).isNull();
    }

    @Test
    void theOldestGoFirstPastTheLimitOfBytes() {
        IdleFiles<String> idle = new IdleFiles<>(100, 250, 1_000);
        idle.put("a", "A", 100, A, 0);
        idle.put("b", "B", 100, A, 1);
        assertThat(idle.put("c", "C", 100, A, 2)).containsExactly("A");
        assertThat(idle.bytes()).isEqualTo(200);
        assertThat(idle.put("big", "BIG", 251, A, 3)).as("larger than the limit: never kept").containsExactly("BIG");
        assertThat(idle.size()).isEqualTo(2);
    }

    @Test
    void agedOutAndNeverKeptWithoutIdentityOrRoom() {
        IdleFiles<String> idle = new IdleFiles<>(10, 1000, 100);
        idle.put("a", "A", 1, A, 0);
        idle.put("b", "B", 1, A, 50);
        assertThat(idle.expire(99)).isEmpty();
        assertThat(idle.expire(120)).containsExactly("A");
        assertThat(idle.expire(150)).containsExactly("B");
        assertThat(idle.put("c", "C", 1, null, 200)).as("no identity: cannot be checked later").containsExactly("C");
        assertThat(new IdleFiles<String>(0, 1000, 100).put("d", "D", 1, A, 0)).as("keeping none").containsExactly("D");
    }

    @Test
    void putAgainReplacesAndHandsBackTheOld() {
        IdleFiles<String> idle = new IdleFiles<>(10, 1000, 100);
        idle.put("a", "A1", 10, A, 0);
        assertThat(idle.put("a", "A2", 20, A, 1)).containsExactly("A1");
        assertThat(idle.bytes()).isEqualTo(20);
        assertThat(idle.take("a")).isEqualTo("A2");
    }

    @Test
    void identityChangesWhenTheFileIsRewrittenInPlace(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("tool");
        Files.write(f, new byte[] {1, 2, 3});
        IdleFiles.Identity first = IdleFiles.Identity.of(f);
        assertThat(first).isNotNull().isEqualTo(IdleFiles.Identity.of(f));
        Object inode = Files.getAttribute(f, "unix:ino");
        // The same inode, the same size, new bytes (as cp over an existing file): mtime and ctime say so.
        Files.setLastModifiedTime(f, FileTime.fromMillis(Files.getLastModifiedTime(f).toMillis() - 5_000));
        IdleFiles.Identity touched = IdleFiles.Identity.of(f);
        Files.write(f, new byte[] {4, 5, 6});
        assertThat(Files.getAttribute(f, "unix:ino")).isEqualTo(inode);
        assertThat(touched).isNotEqualTo(first);
        assertThat(IdleFiles.Identity.of(f)).isNotEqualTo(touched);
        assertThat(IdleFiles.Identity.of(dir.resolve("gone"))).isNull();
        assertThat(List.of(first.size(), touched.size())).containsOnly(3L);
    }
}
