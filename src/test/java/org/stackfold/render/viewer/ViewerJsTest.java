package org.stackfold.render.viewer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs the viewer's JavaScript unit tests ({@code src/test/js/*.test.mjs}) with {@code node --test}.
 * Node is required where the browser tests are (STACKFOLD_REQUIRE_BROWSER, as CI sets); elsewhere a
 * missing node skips them.
 */
class ViewerJsTest {
    static final Path NODE = Path.of("/usr/bin/node");

    @Test
    void javascriptUnitTestsPass() throws Exception {
        if (System.getenv("STACKFOLD_REQUIRE_BROWSER") != null && !Files.isExecutable(NODE)) {
            throw new IllegalStateException("STACKFOLD_REQUIRE_BROWSER is set but node is missing (apt-get install nodejs)");
        }
        assumeTrue(Files.isExecutable(NODE), "node is not installed (apt-get install nodejs): JavaScript unit tests skipped");
        Path tests = Path.of("src/test/js");
        try (var files = Files.list(tests)) {
            assertThat(files.filter(f -> f.toString().endsWith(".test.mjs")).count()).isGreaterThanOrEqualTo(3);
        }
        Process p = new ProcessBuilder(NODE.toString(), "--test", tests.toString()).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        String report = new String(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(report).isZero();
        assertThat(report).contains("# fail 0");
    }
}
