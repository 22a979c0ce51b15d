package org.stackfold.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Shell completion scripts from the picocli model of every command: bash by picocli's
 * {@link AutoComplete}, zsh as that script run through zsh's bashcompinit (as a file on
 * {@code $fpath} named {@code _stackfold}, or sourced), fish written here (one {@code complete} line per
 * command and option).
 */
final class Completions {
    enum Shell { bash, zsh, fish }

    private Completions() {
    }

    /** The script for {@code shell}, completing the commands and options of {@code cl}. */
    static String script(Shell shell, CommandLine cl) {
        String name = cl.getCommandName();
        return switch (shell) {
            case bash -> AutoComplete.bash(name, cl);
            case zsh -> zsh(name, AutoComplete.bash(name, cl));
            case fish -> fish(cl);
        };
    }

    /**
     * picocli's bash script under zsh: loaded from {@code $fpath} (the first line says which command it
     * completes), its body runs as the completion function the first time: it defines the bash
     * functions, registers them through bashcompinit, then completes this first word through them.
     * Sourced (in .zshrc), the same body registers them and the last line does nothing.
     */
    private static String zsh(String name, String bash) {
        return "#compdef " + name + "\n"
                + "# zsh completion for " + name + " (stackfold completion zsh): picocli's bash script under bashcompinit.\n"
                + "autoload -U +X compinit && { (( $+functions[compdef] )) || compinit; }\n"
                + "autoload -U +X bashcompinit && bashcompinit\n"
                + "# The script's own 'alias compopt=complete' comes too late for the functions of a file loaded from\n"
                + "# $fpath (zsh parses the whole file first): compopt only tunes bash's file completion, so it does nothing.\n"
                + "(( $+functions[compopt] )) || compopt() { return 0; }\n"
                + bash
                + "\n# Loaded from $fpath as the completion function: complete this first call too.\n"
                + "[[ -n ${funcstack[1]:-} && ${funcstack[1]} == _" + name + " ]] && _bash_complete -o default -F _complete_" + name + "\n";
    }

    /** One {@code complete} line per subcommand and per option of the command and its subcommands. */
    private static String fish(CommandLine cl) {
        String name = cl.getCommandName();
        StringBuilder sb = new StringBuilder();
        sb.append("# fish completion for ").append(name).append(" (stackfold completion fish), from the commands' own options.\n");
        sb.append("complete -c ").append(name).append(" -e\n");
        List<String> subs = new ArrayList<>(cl.getSubcommands().keySet());
        String notSub = "__fish_use_subcommand";
        for (OptionSpec o : cl.getCommandSpec().options()) {
            option(sb, name, notSub, o);
        }
        for (String sub : subs) {
            CommandSpec s = cl.getSubcommands().get(sub).getCommandSpec();
            sb.append("complete -c ").append(name).append(" -f -n ").append(quote(notSub)).append(" -a ")
                    .append(quote(sub)).append(" -d ").append(quote(first(s.usageMessage().description()))).append('\n');
        }
        for (String sub : subs) {
            CommandSpec s = cl.getSubcommands().get(sub).getCommandSpec();
            String when = "__fish_seen_subcommand_from " + sub;
            for (OptionSpec o : s.options()) {
                option(sb, name, when, o);
            }
            // Subcommands of a subcommand (help's topics) and enumerated positional values (collapse's formats, completion's shells).
            for (String subsub : s.subcommands().keySet()) {
                sb.append("complete -c ").append(name).append(" -f -n ").append(quote(when)).append(" -a ").append(quote(subsub)).append('\n');
            }
            for (CommandLine.Model.PositionalParamSpec p : s.positionalParameters()) {
                List<String> values = candidates(p.completionCandidates());
                if (!values.isEmpty()) {
                    sb.append("complete -c ").append(name).append(" -f -n ").append(quote(when)).append(" -a ")
                            .append(quote(String.join(" ", values))).append('\n');
                }
            }
            if (sub.equals("help")) {
                sb.append("complete -c ").append(name).append(" -f -n ").append(quote(when)).append(" -a ")
                        .append(quote(String.join(" ", subs))).append('\n');
            }
        }
        return sb.toString();
    }

    private static void option(StringBuilder sb, String name, String when, OptionSpec o) {
        if (o.hidden()) {
            return;
        }
        sb.append("complete -c ").append(name).append(" -n ").append(quote(when));
        for (String n : o.names()) {
            if (n.startsWith("--")) {
                sb.append(" -l ").append(quote(n.substring(2)));
            } else if (n.startsWith("-") && n.length() == 2) {
                sb.append(" -s ").append(quote(n.substring(1)));
            } else if (n.startsWith("-")) {
                sb.append(" -o ").append(quote(n.substring(1)));
            }
        }
        if (o.arity().max() > 0) {
            List<String> values = candidates(o.completionCandidates());
            if (values.isEmpty()) {
                sb.append(" -r"); // a value: files by default
            } else {
                sb.append(" -x -a ").append(quote(String.join(" ", values)));
            }
        }
        sb.append(" -d ").append(quote(first(o.description()))).append('\n');
    }

    private static List<String> candidates(Iterable<String> c) {
        List<String> out = new ArrayList<>();
        if (c != null) {
            c.forEach(out::add);
        }
        return out;
    }

    /** The first sentence of a description, with picocli's variables left out, for a one-line hint. */
    private static String first(String[] description) {
        if (description == null || description.length == 0) {
            return "";
        }
        String d = description[0].replace("%n", " ").replaceAll("\\$\\{[^}]*}", "").replaceAll("\\s+", " ").trim();
        int dot = d.indexOf(". ");
        if (dot > 0) {
            d = d.substring(0, dot);
        }
        if (d.endsWith(".")) {
            d = d.substring(0, d.length() - 1);
        }
        return d.length() > 80 ? d.substring(0, 77) + "..." : d;
    }

    /** A fish word in single quotes: backslashes and quotes escaped. */
    private static String quote(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
