package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code stackfold completion bash|zsh|fish} and {@code --version}: the scripts complete every command and
 * every visible option of the models the commands have (not a copy that could drift); the chroot test
 * of the release (scripts/release-test) runs bash's in a real shell.
 */
class CompletionCommandTest {
    @Test
    void fishCompletesEveryCommandAndEveryVisibleOption() {
        CliRun r = CliRun.run("completion", "fish");
        assertThat(r.code()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        CommandLine all = Main.commandLine();
        for (String name : CommandSpecs.NAMES) {
            assertThat(lines).as(name).anyMatch(l -> l.startsWith("complete -c stackfold -f -n '__fish_use_subcommand' -a '" + name + "' -d '"));
            for (OptionSpec o : all.getSubcommands().get(name).getCommandSpec().options()) {
                if (o.hidden()) {
                    continue;
                }
                String when = "-n '__fish_seen_subcommand_from " + name + "'";
                String longest = o.longestName();
                String flag = longest.startsWith("--") ? "-l '" + longest.substring(2) + "'"
                        : longest.length() == 2 ? "-s '" + longest.substring(1) + "'" : "-o '" + longest.substring(1) + "'";
                assertThat(lines).as(name + " " + longest).anyMatch(l -> l.contains(when) && l.contains(flag));
            }
        }
        // A value from a fixed set is offered (the shells of this very command), a file otherwise.
        assertThat(lines).contains("complete -c stackfold -f -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'");
        assertThat(lines).anyMatch(l -> l.contains("from fold'") && l.contains("-l 'output' -r"));
        // Quotes in descriptions are escaped for fish.
        assertThat(lines).allMatch(l -> l.startsWith("#") || l.matches("complete -c stackfold( .*)?"));
        assertThat(r.out()).doesNotContain("${", "%n");
    }

    @Test
    void bashAndZshArePicocliScriptsOfEveryCommand() {
        CliRun bash = CliRun.run("completion", "bash");
        assertThat(bash.code()).as(bash.err()).isZero();
        assertThat(bash.out()).contains("complete -F _complete_stackfold");
        for (String name : CommandSpecs.NAMES) {
            assertThat(bash.out()).contains(name);
        }
        CliRun zsh = CliRun.run("completion", "zsh");
        assertThat(zsh.code()).as(zsh.err()).isZero();
        assertThat(zsh.out()).startsWith("#compdef stackfold\n").contains("bashcompinit").contains(bash.out());
    }

    @Test
    void anUnknownShellIsAUsageError() {
        CliRun r = CliRun.run("completion", "tcsh");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).startsWith("stackfold: ").contains("bash, zsh, fish");
    }

    @Test
    void theVersionSaysTheCommitAndBuildDate() {
        CliRun r = CliRun.run("--version");
        assertThat(r.code()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).isEqualTo("stackfold " + BuildInfo.VERSION);
        assertThat(lines.get(1)).matches("commit ([0-9a-f]{12}(-dirty)?|unknown), built \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
        assertThat(lines.get(2)).startsWith("Java " + System.getProperty("java.runtime.version"));
    }
}
