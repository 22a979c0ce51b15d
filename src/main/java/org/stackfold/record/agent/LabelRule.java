package org.stackfold.record.agent;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.stackfold.io.UsageException;
import org.stackfold.record.ProcessSnapshots;

/**
 * A {@code --label} rule of the agent: {@code NAME=VALUE:CONDITIONS} gives the label to the processes
 * the conditions match, e.g. {@code service=web:comm=nginx|exe=/usr/sbin/nginx} or
 * {@code service=$1:cmdline~-jar /srv/([a-z]+)\.jar}. A condition is {@code comm}, {@code exe} or
 * {@code cmdline}, then {@code =} (equal), {@code !=}, {@code ~} (a Java regex found anywhere in it;
 * anchor with {@code ^ $}) or {@code !~}, then the text; {@code &} joins conditions that must all
 * match, {@code |} separates alternatives (either may match). {@code &} and {@code |} separate only
 * where a condition follows them, so regexes keep their {@code |}. {@code $1}..{@code $9} in the value
 * are the groups of the alternative's last matching {@code ~} condition, made fit for a label as
 * process names are ({@link Agent#labelValue}); a rule whose value comes out empty does not match. The rules of one label are tried in the order given: the first that matches wins.
 * See docs/agent.md, "Labels".
 */
public record LabelRule(String name, String value, List<List<Condition>> alternatives) {
    /** What a condition looks at. */
    public enum Field { COMM, EXE, CMDLINE }

    /** One test of a process: its field equal to (or matching) the text, or the opposite. */
    public record Condition(Field field, boolean regex, boolean negated, String text, Pattern pattern) {
        /** The groups of the match, an empty array for a match without groups, or null for no match. */
        String[] test(ProcessSnapshots.Facts p) {
            String v = switch (field) {
                case COMM -> p.comm();
                case EXE -> p.exe();
                case CMDLINE -> p.cmdline();
            };
            v = v == null ? "" : v;
            if (!regex) {
                return v.equals(text) != negated ? new String[0] : null;
            }
            Matcher m = pattern.matcher(v);
            boolean found = m.find();
            if (found == negated) {
                return null;
            }
            if (negated) {
                return new String[0];
            }
            String[] groups = new String[m.groupCount() + 1];
            for (int i = 0; i < groups.length; i++) {
                groups[i] = m.group(i) == null ? "" : m.group(i);
            }
            return groups;
        }
    }

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]*");
    /** A label value as {@code Labels} allows, with {@code $1}..{@code $9} among it. */
    private static final Pattern VALUE = Pattern.compile("(?:[A-Za-z0-9_.:/-]|\\$[1-9])+");
    /** Where a condition starts: its field and operator. */
    private static final Pattern CONDITION = Pattern.compile("(comm|exe|cmdline)(!=|!~|=|~)");
    private static final Pattern UNKNOWN = Pattern.compile("[|&]([A-Za-z_]+)(?:!=|!~|=|~)");
    private static final Pattern GROUP = Pattern.compile("\\$([1-9])");

    /** Whether a {@code --label} argument is a rule ({@code NAME=VALUE:CONDITION...}) rather than {@code NAME=VALUE}. */
    public static boolean isRule(String label) {
        return ruleColon(label) >= 0;
    }

    /** The {@code :} that starts the conditions: the first one a condition follows; -1 if none. */
    private static int ruleColon(String label) {
        int eq = label.indexOf('=');
        for (int i = label.indexOf(':', Math.max(eq, 0)); i >= 0; i = label.indexOf(':', i + 1)) {
            if (startsCondition(label, i + 1)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean startsCondition(String s, int at) {
        Matcher m = CONDITION.matcher(s);
        m.region(at, s.length());
        return m.lookingAt();
    }

    /** The rules among {@code --label} arguments, in order; a bad rule is a usage error naming it. */
    public static List<LabelRule> rules(List<String> labels) {
        List<LabelRule> out = new ArrayList<>();
        for (String l : labels) {
            if (isRule(l)) {
                out.add(parse(l));
            }
        }
        return out;
    }

    /** The {@code --label} arguments that are not rules ({@code NAME=VALUE}). */
    public static List<String> plain(List<String> labels) {
        return labels.stream().filter(l -> !isRule(l)).toList();
    }

    public static LabelRule parse(String text) {
        int colon = ruleColon(text);
        int eq = text.indexOf('=');
        if (colon < 0 || eq <= 0 || eq > colon) {
            throw bad(text, "a rule is NAME=VALUE:CONDITION, e.g. service=web:comm=nginx|exe=/usr/sbin/nginx");
        }
        String name = text.substring(0, eq);
        String value = text.substring(eq + 1, colon);
        if (!NAME.matcher(name).matches()) {
            throw bad(text, "label name '" + name + "' must match " + NAME.pattern());
        }
        if (name.equals("pid") || name.equals("interval_ms") || name.equals("host")) {
            throw bad(text, "the agent sets label " + name + " itself");
        }
        if (!VALUE.matcher(value).matches() || value.contains("..")) {
            throw bad(text, "the value '" + value + "' must be letters, digits, _ . : / - and $1..$9");
        }
        List<List<Condition>> alternatives = new ArrayList<>();
        List<Condition> all = new ArrayList<>();
        String rest = text.substring(colon + 1);
        int start = 0;
        int maxGroups = -1;
        for (int i = 0; i <= rest.length(); i++) {
            boolean end = i == rest.length();
            char c = end ? 0 : rest.charAt(i);
            if (end || (c == '|' || c == '&') && startsCondition(rest, i + 1)) {
                Condition cond = condition(text, rest.substring(start, i));
                all.add(cond);
                if (cond.regex() && !cond.negated()) {
                    maxGroups = Math.max(maxGroups, cond.pattern().matcher("").groupCount());
                }
                if (end || c == '|') {
                    alternatives.add(List.copyOf(all));
                    all = new ArrayList<>();
                }
                start = i + 1;
            }
        }
        Matcher g = GROUP.matcher(value);
        while (g.find()) {
            if (Integer.parseInt(g.group(1)) > maxGroups) {
                throw bad(text, "the value names group $" + g.group(1) + ", which no ~ condition of the rule has");
            }
        }
        return new LabelRule(name, value, List.copyOf(alternatives));
    }

    private static Condition condition(String rule, String text) {
        Matcher m = CONDITION.matcher(text);
        if (!m.lookingAt()) {
            throw bad(rule, "'" + text + "' is not a condition (comm, exe or cmdline, then = != ~ or !~, then the text)");
        }
        Field field = Field.valueOf(m.group(1).toUpperCase(java.util.Locale.ROOT));
        String op = m.group(2);
        String arg = text.substring(m.end());
        boolean regex = op.endsWith("~");
        Pattern p = null;
        if (regex) {
            try {
                p = Pattern.compile(arg);
            } catch (PatternSyntaxException e) {
                throw bad(rule, "'" + arg + "' is not a regular expression: " + e.getDescription());
            }
        } else if (arg.isEmpty()) {
            throw bad(rule, m.group(1) + op + " needs a text to compare with");
        } else {
            // An exact text that looks like more conditions: a field misspelt (user=root) would match nothing, silently.
            Matcher more = UNKNOWN.matcher(arg);
            if (more.find()) {
                throw bad(rule, "'" + more.group(1) + "' is not a condition (comm, exe or cmdline, then = != ~ or !~)");
            }
        }
        return new Condition(field, regex, op.startsWith("!"), arg, p);
    }

    private static UsageException bad(String rule, String why) {
        return new UsageException("--label '" + rule + "': " + why);
    }

    /** The label's value for a process, or null when no alternative matches (or the value comes out empty). */
    public String apply(ProcessSnapshots.Facts p) {
        for (List<Condition> alt : alternatives) {
            String[] groups = new String[0];
            boolean all = true;
            for (Condition c : alt) {
                String[] g = c.test(p);
                if (g == null) {
                    all = false;
                    break;
                }
                if (g.length > 0) {
                    groups = g;
                }
            }
            if (all) {
                String[] gs = groups;
                String v = GROUP.matcher(value).replaceAll(r -> {
                    int n = Integer.parseInt(r.group(1));
                    return Matcher.quoteReplacement(Agent.labelValue(n < gs.length ? gs[n] : ""));
                });
                if (!v.isEmpty()) {
                    return v;
                }
            }
        }
        return null;
    }

    /**
     * A process's labels from the rules: for each label the first rule that matches; a label no rule
     * gives is absent.
     */
    public static Map<String, String> labels(List<LabelRule> rules, ProcessSnapshots.Facts p) {
        Map<String, String> out = new TreeMap<>();
        for (LabelRule r : rules) {
            if (!out.containsKey(r.name())) {
                String v = r.apply(p);
                if (v != null) {
                    out.put(r.name(), v);
                }
            }
        }
        return out;
    }

    /** Whether any rule looks at a field (so that it is read from /proc). */
    public static boolean needs(List<LabelRule> rules, Field f) {
        return rules.stream().flatMap(r -> r.alternatives().stream()).flatMap(List::stream).anyMatch(c -> c.field() == f);
    }
}
