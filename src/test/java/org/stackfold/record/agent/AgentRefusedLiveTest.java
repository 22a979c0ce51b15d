package org.stackfold.record.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.record.Privileges;

/**
 * The agent when the kernel refuses its BPF programs (after a kernel upgrade, a verifier that rejects
 * them): one line and exit status 3, which the systemd unit does not restart on. The refusal is the
 * kernel's own: a seccomp filter ({@code refuse_prog_load.c}) makes every {@code bpf(BPF_PROG_LOAD)}
 * fail with EINVAL while the maps are created as usual, and the agent runs under it as its own process.
 */
class AgentRefusedLiveTest {
    @TempDir
    Path dir;

    @Test
    void aRefusedProgramIsOneLineAndExitThree() throws Exception {
        String missing = Privileges.missing();
        assumeTrue(missing == null, missing);
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/gcc")), "gcc is not installed");
        Path source = dir.resolve("refuse_prog_load.c");
        try (InputStream in = AgentRefusedLiveTest.class.getResourceAsStream("refuse_prog_load.c")) {
            assertThat(in).as("refuse_prog_load.c").isNotNull();
            Files.copy(in, source);
        }
        Path refuse = dir.resolve("refuse_prog_load");
        Process gcc = new ProcessBuilder("gcc", "-O2", "-o", refuse.toString(), source.toString()).inheritIO().start();
        assertThat(gcc.waitFor()).isZero();

        Path err = dir.resolve("agent.err");
        Path out = dir.resolve("out");
        List<String> command = new ArrayList<>(List.of(refuse.toString()));
        command.addAll(AgentJvm.command("record", "--every", "2", "-o", out.resolve("cpu-%s.folded").toString(),
                "--queue", dir.resolve("queue").toString()));
        Process agent = new ProcessBuilder(command)
                .redirectErrorStream(true).redirectOutput(err.toFile()).start();
        try {
            // It ends by itself (the programs are loaded before the first sample); a hang is the failure.
            assertThat(agent.waitFor(3, TimeUnit.MINUTES)).as("the agent exits").isTrue();
            List<String> lines = Files.readAllLines(err);
            assertThat(agent.exitValue()).as(String.join("\n", lines)).isEqualTo(3);
            assertThat(lines).hasSize(1);
            assertThat(lines.getFirst()).startsWith("stackfold: agent: the kernel refused the BPF program (loading BPF program ")
                    .contains("EINVAL").contains("kernel " + System.getProperty("os.version"))
                    .endsWith("not restarting: 'sudo stackfold record -d 1' prints the verifier's log");
            // Nothing was recorded or written: no interval file.
            if (Files.exists(out)) {
                try (var files = Files.list(out)) {
                    assertThat(files.count()).isZero();
                }
            }
        } finally {
            agent.destroyForcibly().waitFor();
        }
    }
}
