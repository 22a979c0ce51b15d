package org.stackfold.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The AOT cache's training run (scripts/aot-train, from the Maven build): runs the command lines it is
 * given, separated by {@code --then}, one after the other in this JVM, as {@code stackfold} would.
 * The JVM records what they load, link and run, and the launcher's later runs start from that.
 * A command that fails stops the build: the cache would be trained on an error path.
 */
public final class AotTraining {
    static final String SEPARATOR = "--then";

    private AotTraining() {
    }

    public static void main(String[] args) {
        for (List<String> command : commands(args)) {
            int code = Main.runProcess(command.toArray(String[]::new));
            if (code != 0) {
                System.err.println("AOT training: 'stackfold " + String.join(" ", command) + "' exited " + code);
                System.exit(1);
            }
        }
        System.exit(0);
    }

    static List<List<String>> commands(String[] args) {
        List<List<String>> commands = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= args.length; i++) {
            if (i == args.length || args[i].equals(SEPARATOR)) {
                if (i > start) {
                    commands.add(Arrays.asList(args).subList(start, i));
                }
                start = i + 1;
            }
        }
        return commands;
    }
}
