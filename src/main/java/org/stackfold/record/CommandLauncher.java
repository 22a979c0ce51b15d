package org.stackfold.record;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.stackfold.io.InputException;
import org.stackfold.record.bpf.ErrnoException;
import org.stackfold.record.bpf.Syscalls;

/**
 * Starts a command stopped, so that its perf events (inherited by every task it creates) are in
 * place before its first instruction: a shell stops itself with SIGSTOP, the recorder attaches to
 * it, sends SIGCONT, and the shell execs the command in place (same pid).
 */
final class CommandLauncher {
    private static final int SIGCONT = 18;
    private static final String STOP_THEN_EXEC = "kill -STOP $$; exec \"$@\"";

    private CommandLauncher() {
    }

    static Process startStopped(List<String> command) throws IOException {
        return startStopped(command, false);
    }

    /**
     * As {@link #startStopped(List)}; {@code stdoutToStderr} gives the command this process's stderr as
     * its stdout (a dup in the shell before the exec, so a terminal stays a terminal).
     */
    static Process startStopped(List<String> command, boolean stdoutToStderr) throws IOException {
        List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", stdoutToStderr(STOP_THEN_EXEC, stdoutToStderr), "sh"));
        argv.addAll(command);
        Process p = new ProcessBuilder(argv).inheritIO().start();
        Path stat = Path.of("/proc/" + p.pid() + "/stat");
        while (p.isAlive()) {
            if (ProcFiles.state(stat) == 'T') {
                return p;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new InputException("interrupted while starting " + command.getFirst());
            }
        }
        throw new InputException("could not start " + String.join(" ", command) + " (exit code " + p.exitValue() + ")");
    }

    /** The launch script with the command's stdout sent to stderr ({@code exec ... 1>&2}) where asked. */
    static String stdoutToStderr(String script, boolean yes) {
        return yes ? script + " 1>&2" : script;
    }

    /**
     * The ELF files the command will map first: its executable (found on PATH as the shell would) with
     * its interpreter and DT_NEEDED libraries; empty when it is not found or not ELF.
     */
    static java.util.Set<Path> files(List<String> command) {
        String name = command.getFirst();
        Path exe = null;
        if (name.contains("/")) {
            exe = Path.of(name);
        } else {
            for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
                Path p = Path.of(dir.isEmpty() ? "." : dir, name);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                    exe = p;
                    break;
                }
            }
        }
        try {
            return exe == null ? java.util.Set.of() : ElfHeaders.withLibraries(exe.toRealPath());
        } catch (IOException e) {
            return java.util.Set.of();
        }
    }

    /**
     * Continues the command if this recorder dies without doing it (SIGKILL, an OOM kill) while the
     * command is stopped — at its launch, or held by the walker while its maps are read: a shell
     * blocked reading a pipe whose only writer is this JVM wakes at end of file when the JVM is gone,
     * and sends SIGCONT if the command is still stopped. Not a child of the command (a command that
     * waits for its children must not wait for it); deaf to the terminal's INT, QUIT and HUP, which
     * the recorder handles; {@link Process#destroy} ends it when the recording ends as it should.
     */
    static final class Watchdog implements AutoCloseable {
        private Process shell;

        /** Starts watching {@code pid}, the command just started stopped. */
        void watch(long pid) throws IOException {
            shell = new ProcessBuilder("/bin/sh", "-c", CONTINUE_WHEN_ORPHANED, "sh", Long.toString(pid))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        }

        /** Ends the watch (the sampler continues what it stopped when it stops or closes). */
        @Override
        public void close() {
            if (shell != null) {
                shell.destroy();
            }
        }
    }

    private static final String CONTINUE_WHEN_ORPHANED = "trap '' INT QUIT HUP; read -r _;"
            + " s=$(sed 's/.*) //' /proc/$1/stat 2>/dev/null | cut -c1); [ \"$s\" = T ] && kill -CONT $1";

    static void resume(Process p) throws ErrnoException {
        Syscalls.kill((int) p.pid(), SIGCONT);
    }
}
