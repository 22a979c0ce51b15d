package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.testing.CliProcess;
import org.stackfold.testing.CliProcess.Result;

/**
 * The launcher and its AOT cache, as real processes: a jar of this build's classes, a cache trained on
 * it by scripts/aot-train (as the Maven build does), and the real ./stackfold and scripts/jdk.sh run
 * from a copy of the project's layout. The cache is used when fresh; when stale (the jar rebuilt after
 * it, another JDK, its marker gone) or unusable (truncated, garbage), it is passed over in silence and
 * the output is byte for byte the same. Whether a class came from the cache is read from the JVM's
 * class-loading log ("source: shared objects file"), written to a file so that stdout stays the result.
 */
class AotCacheTest {
    @TempDir
    static Path trained;

    @TempDir
    Path dir;

    private static final Path PROJECT = Path.of("").toAbsolutePath();

    @BeforeAll
    static void trainACache() throws Exception {
        Path target = Files.createDirectories(trained.resolve("target"));
        writeJar(target.resolve("stackfold.jar"));
        Result linkable = CliProcess.bash(trained, javaHome() + "/bin/java " + PROJECT.resolve("src/build/java/LinkableClasses.java")
                + " target/stackfold.jar"); // as the build does: picocli's Java 5 classes made ones the cache can keep
        assertThat(linkable.code()).as(linkable.err()).isZero();
        Path example = trained.resolve("example.folded");
        try (InputStream in = Main.class.getResourceAsStream("/org/stackfold/examples/vertx.folded")) {
            Files.copy(in, example);
        }
        Result r = CliProcess.bash(trained, "bash " + PROJECT.resolve("scripts/aot-train") + " " + javaHome()
                + " target/stackfold.jar fold example.folded --then info example.folded --then --version");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(target.resolve("stackfold.aot")).isNotEmptyFile();
        assertThat(target.resolve("stackfold.aot.jdk")).content().startsWith(javaHome() + " 25");
        r = CliProcess.bash(trained, "bash " + PROJECT.resolve("scripts/aot-train") + " " + javaHome()
                + " target/stackfold.jar --family folded fold example.folded");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(target.resolve("stackfold-folded.aot")).isNotEmptyFile();
        assertThat(target.resolve("stackfold-folded.aot.jdk")).content().startsWith(javaHome() + " 25");
    }

    /** The project's layout with the trained jar and cache: ./stackfold, scripts/jdk.sh, target/. */
    private Path root() throws IOException {
        Files.createDirectories(dir.resolve("scripts"));
        Files.createDirectories(dir.resolve("target"));
        Files.copy(PROJECT.resolve("stackfold"), dir.resolve("stackfold"), StandardCopyOption.COPY_ATTRIBUTES);
        Files.copy(PROJECT.resolve("scripts/jdk.sh"), dir.resolve("scripts/jdk.sh"), StandardCopyOption.COPY_ATTRIBUTES);
        for (String f : List.of("stackfold.jar", "stackfold.aot", "stackfold.aot.jdk")) { // no family cache: see below
            Files.copy(trained.resolve("target").resolve(f), dir.resolve("target").resolve(f), StandardCopyOption.COPY_ATTRIBUTES);
        }
        Files.copy(trained.resolve("example.folded"), dir.resolve("example.folded"));
        return dir;
    }

    private record Run(Result result, boolean mainFromCache) {
    }

    private Run fold() throws Exception {
        return stackfold("fold example.folded");
    }

    private Run stackfold(String args) throws Exception {
        Path log = dir.resolve("class-load.log");
        Files.deleteIfExists(log);
        Result r = CliProcess.bash(dir, "./stackfold " + args, Map.of(
                "STACKFOLD_JAVA_HOME", javaHome(),
                "STACKFOLD_JAVA_OPTS", "-Xlog:class+load:file=" + log));
        String main = Files.readAllLines(log).stream().filter(l -> l.contains(" org.stackfold.cli.Main source: "))
                .findFirst().orElseThrow();
        return new Run(r, main.contains("source: shared objects file"));
    }

    private String expected() throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.PrintWriter err = new java.io.PrintWriter(new java.io.StringWriter());
        assertThat(Main.run(new String[] {"fold", dir.resolve("example.folded").toString()}, out, err)).isZero();
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    private void assertUnused(Run run) throws IOException {
        assertThat(run.result().code()).as(run.result().err()).isZero();
        assertThat(run.result().err()).isEmpty();
        assertThat(run.result().out()).isEqualTo(expected());
        assertThat(run.mainFromCache()).isFalse();
    }

    @Test
    void aFreshCacheIsUsed() throws Exception {
        root();
        Run run = fold();
        assertThat(run.result().code()).as(run.result().err()).isZero();
        assertThat(run.result().err()).isEmpty();
        assertThat(run.result().out()).isEqualTo(expected());
        assertThat(run.mainFromCache()).isTrue();
    }

    @Test
    void aCommandFromAFreshCacheNeverOpensTheJar() throws Exception {
        // Its classes come from the cache: reading the jar's central directory (for -jar's manifest, a
        // resource, picocli's default factory looking for Groovy) is start-up time for nothing
        // (docs/startup.md, fourth round). The class-initialisation log shows whether Java opened a zip.
        root();
        Path log = dir.resolve("class-init.log");
        Result r = CliProcess.bash(dir, "./stackfold fold example.folded", Map.of("STACKFOLD_JAVA_HOME", javaHome(),
                "STACKFOLD_JAVA_OPTS", "-Xlog:class+init=info:file=" + log));
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo(expected());
        assertThat(Files.readString(log)).contains("Initializing 'org/stackfold/cli/Main'")
                .doesNotContain("Initializing 'java/util/zip/ZipFile$Source'");
    }

    @Test
    void theVersionUsesAFreshCache() throws Exception {
        root();
        Run run = stackfold("--version");
        assertThat(run.result().code()).as(run.result().err()).isZero();
        assertThat(run.result().err()).isEmpty();
        assertThat(run.result().out()).startsWith("stackfold ");
        assertThat(run.mainFromCache()).isTrue();
    }

    @Test
    void aCacheOlderThanTheJarIsNotUsed() throws Exception {
        // JDK 25 would run the cached classes of the jar it was trained on: the launcher must not pass it.
        Path target = root().resolve("target");
        FileTime cache = Files.getLastModifiedTime(target.resolve("stackfold.aot"));
        Files.setLastModifiedTime(target.resolve("stackfold.jar"), FileTime.fromMillis(cache.toMillis() + 10_000));
        assertUnused(fold());
    }

    @Test
    void aCacheOfAnotherJdkIsNotUsed() throws Exception {
        Path marker = root().resolve("target/stackfold.aot.jdk");
        FileTime time = Files.getLastModifiedTime(marker);
        Files.writeString(marker, "/usr/lib/jvm/another-jdk 25.0.0+1\n");
        Files.setLastModifiedTime(marker, time);
        assertUnused(fold());
    }

    @Test
    void aCacheWithoutItsJdkMarkerIsNotUsed() throws Exception {
        Files.delete(root().resolve("target/stackfold.aot.jdk"));
        assertUnused(fold());
    }

    @Test
    void aTruncatedCacheIsSkippedInSilence() throws Exception {
        // Fresh and of this JDK as far as the launcher can tell: the JVM finds it unusable and must say nothing.
        Path cache = root().resolve("target/stackfold.aot");
        FileTime time = Files.getLastModifiedTime(cache);
        byte[] head;
        try (InputStream in = Files.newInputStream(cache)) {
            head = in.readNBytes(4096);
        }
        Files.write(cache, head);
        Files.setLastModifiedTime(cache, time);
        assertUnused(fold());
    }

    @Test
    void theFoldedCommandsUseTheirFamilysCache() throws Exception {
        Path target = root().resolve("target");
        for (String f : List.of("stackfold-folded.aot", "stackfold-folded.aot.jdk")) {
            Files.copy(trained.resolve("target").resolve(f), target.resolve(f), StandardCopyOption.COPY_ATTRIBUTES);
        }
        // The cache of every command made unusable: main can only come from the family's cache.
        Path every = target.resolve("stackfold.aot");
        FileTime time = Files.getLastModifiedTime(every);
        Files.writeString(every, "not an AOT cache\n".repeat(1000));
        Files.setLastModifiedTime(every, time);
        Run run = fold();
        assertThat(run.result().code()).as(run.result().err()).isZero();
        assertThat(run.result().err()).isEmpty();
        assertThat(run.result().out()).isEqualTo(expected());
        assertThat(run.mainFromCache()).isTrue();
        // Another command: the cache of every command, here unusable, passed over in silence.
        Run version = stackfold("--version");
        assertThat(version.result().code()).as(version.result().err()).isZero();
        assertThat(version.result().err()).isEmpty();
        assertThat(version.mainFromCache()).isFalse();
    }

    @Test
    void aCacheOfGarbageIsSkippedInSilence() throws Exception {
        Path cache = root().resolve("target/stackfold.aot");
        FileTime time = Files.getLastModifiedTime(cache);
        Files.writeString(cache, "not an AOT cache\n".repeat(1000));
        Files.setLastModifiedTime(cache, time);
        assertUnused(fold());
    }

    private static String javaHome() {
        return System.getProperty("java.home");
    }

    /**
     * This build's classes as a jar (an AOT cache stores classes from jars only, not from class
     * directories) with those of picocli, Jackson and zstd-jni, as the shaded jar has them, and DuckDB
     * on its manifest's Class-Path.
     */
    private static void writeJar(Path jar) throws IOException, URISyntaxException, ClassNotFoundException {
        Path classes = location(Main.class.getName());
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Main.class.getName());
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, location("org.duckdb.DuckDBDriver").toUri().toString());
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest);
                Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
            for (String c : List.of("picocli.CommandLine", "com.fasterxml.jackson.core.JsonFactory", "com.github.luben.zstd.Zstd")) {
                try (java.util.jar.JarFile lib = new java.util.jar.JarFile(location(c).toFile())) {
                    for (JarEntry e : java.util.Collections.list(lib.entries())) {
                        if (!e.isDirectory() && !e.getName().startsWith("META-INF/")) {
                            out.putNextEntry(new JarEntry(e.getName()));
                            try (InputStream in = lib.getInputStream(e)) {
                                in.transferTo(out);
                            }
                            out.closeEntry();
                        }
                    }
                }
            }
        }
    }

    private static Path location(String className) throws URISyntaxException, ClassNotFoundException {
        Class<?> c = Class.forName(className, false, AotCacheTest.class.getClassLoader());
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
