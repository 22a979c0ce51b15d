package org.stackfold.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "completion", mixinStandardHelpOptions = true,
        description = {"Print a shell completion script for stackfold, made from the commands' own options.",
                "bash and zsh: picocli's script (zsh through its bashcompinit); fish: completions of every",
                "command and option. The release packages install them where the shells look."},
        footer = {"", "Examples:", "  source <(stackfold completion bash)",
                "  stackfold completion zsh > ~/.zfunc/_stackfold   # a folder on $fpath",
                "  stackfold completion fish > ~/.config/fish/completions/stackfold.fish"})
final class CompletionCommand implements Callable<Integer> {
    @Parameters(paramLabel = "SHELL", description = "bash, zsh or fish.")
    Completions.Shell shell;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        out.print(Completions.script(shell, Main.commandLine()));
        out.flush();
        return 0;
    }
}
