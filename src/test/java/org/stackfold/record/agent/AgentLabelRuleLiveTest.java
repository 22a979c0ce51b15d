package org.stackfold.record.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.record.Privileges;

/**
 * A {@code --label} rule on a live agent: a CPU-bound workload whose command line the rule matches
 * gets its own profile named after the rule's service, not after its process name. Waits for states
 * (the rule's file written with the workload's frames), never for durations.
 */
class AgentLabelRuleLiveTest {
    @TempDir
    Path dir;

    @Test
    void aRuleNamesTheServiceOfTheProcessesItMatches() throws Exception {
        String missing = Privileges.missing();
        assumeTrue(missing == null, missing);
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/gcc")), "gcc is not installed");
        Path source = dir.resolve("workload.c");
        try (InputStream in = Privileges.class.getResourceAsStream("workload.c")) {
            assertThat(in).as("workload.c").isNotNull();
            Files.copy(in, source);
        }
        Path workload = dir.resolve("sfworkload");
        Process gcc = new ProcessBuilder("gcc", "-O2", "-o", workload.toString(), source.toString()).inheritIO().start();
        assertThat(gcc.waitFor()).isZero();
        Path out = dir.resolve("out");
        Files.createDirectories(out);
        Process busy = new ProcessBuilder(workload.toString(), "1000000").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Process agent = null;
        try {
            Path err = dir.resolve("agent.err");
            agent = new ProcessBuilder(AgentJvm.command("record",
                    "--every", "2", "-F", "99", "-o", out.resolve("%n-%s.folded").toString(),
                    "--queue", dir.resolve("queue").toString(),
                    "--label", "service=busy-$1:cmdline~/(sfworkload) 1000000$",
                    "--label", "team=test:comm=sfworkload"))
                    .redirectErrorStream(true).redirectOutput(err.toFile()).start();
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            while (!ruleFileWritten(out) && agent.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertThat(ruleFileWritten(out)).as(Files.readString(err)).isTrue();
            agent.destroy(); // SIGTERM: the last interval is flushed
            assertThat(agent.waitFor(2, TimeUnit.MINUTES)).isTrue();
            assertThat(agent.exitValue()).as(Files.readString(err)).isZero();
            // The workload's samples are all under the rule's service: none under its process name.
            try (Stream<Path> files = Files.list(out)) {
                List<String> names = files.map(p -> p.getFileName().toString()).toList();
                assertThat(names).anyMatch(n -> n.startsWith("busy-sfworkload-"));
                assertThat(names).noneMatch(n -> n.startsWith("sfworkload-"));
            }
        } finally {
            busy.destroyForcibly().waitFor();
            if (agent != null) {
                agent.destroyForcibly().waitFor();
            }
        }
    }

    /** Whether an interval of the rule's service was written, holding the workload's frames. */
    private static boolean ruleFileWritten(Path out) throws IOException {
        try (Stream<Path> files = Files.list(out)) {
            for (Path p : files.filter(p -> p.getFileName().toString().startsWith("busy-sfworkload-")
                    && p.getFileName().toString().endsWith(".folded")).toList()) {
                try {
                    if (Files.readString(p).contains("sfworkload;")) {
                        return true;
                    }
                } catch (java.nio.file.NoSuchFileException e) {
                    // renamed or replaced meanwhile: looked at again next time
                }
            }
        }
        return false;
    }
}
