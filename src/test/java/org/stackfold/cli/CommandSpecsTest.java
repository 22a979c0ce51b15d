package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Model.UsageMessageSpec;

/**
 * {@link CommandSpecs}, the commands' picocli models built without annotations, is what the
 * annotations say: the committed source is what {@link CommandSpecSource} writes from them, and for
 * every command both models have the same options with the same attributes, print the same help and
 * put the same values in the same fields for a command line that sets every option.
 */
class CommandSpecsTest {
    private static final Path SOURCE = Path.of("target/generated-sources/command-specs/org/stackfold/cli/CommandSpecs.java");
    private static final Path SOURCE_TREE = Path.of("src/main/java/org/stackfold/cli/CommandSpecs.java");

    static Stream<Class<?>> commands() {
        return Main.COMMANDS.stream();
    }

    /** The build wrote the models from the annotations, and none is committed (the build's is the one). */
    @Test
    void theBuildGeneratesTheSourceFromTheAnnotations() throws Exception {
        assertThat(Files.readString(SOURCE, StandardCharsets.UTF_8))
                .as("%s is not what the annotations make: the build's command-specs steps did not run", SOURCE)
                .isEqualTo(CommandSpecSource.generate());
        assertThat(SOURCE_TREE).as("generated at build time (pom.xml), never committed").doesNotExist();
    }

    @Test
    void namesAreTheCommandsInOrder() {
        assertThat(CommandSpecs.NAMES).containsExactlyElementsOf(Main.COMMANDS.stream()
                .map(c -> c.getAnnotation(CommandLine.Command.class).name()).toList());
        assertThat(CommandSpecs.of("no-such-command")).isNull();
    }

    @ParameterizedTest
    @MethodSource("commands")
    void sameModelAndHelp(Class<?> command) {
        CommandSpec annotated = annotated(command);
        Assumptions.assumeTrue(methodsInSourceOrder(annotated),
                "picocli took the option methods in another order than the source's in this JVM (CommandSpecSource)");
        CommandSpec fast = CommandSpecs.of(annotated.name());
        assertThat(fast.userObject()).isInstanceOf(command);
        assertThat(describe(fast)).isEqualTo(describe(annotated));
        assertThat(help(fast)).isEqualTo(help(annotated));
    }

    @Test
    void theHelpCommandListsAsPicocliMakesIt() {
        CommandSpec annotated = CommandSpec.forAnnotatedObject(new CommandLine.HelpCommand());
        CommandSpec fast = CommandSpecs.helpCommand();
        assertThat(fast.helpCommand()).isTrue();
        assertThat(describe(fast)).isEqualTo(describe(annotated));
        assertThat(help(fast)).isEqualTo(help(annotated));
    }

    @Test
    void mainHasTheSameModelAndHelpWithEveryCommand() {
        CommandLine annotated = new CommandLine(new Main());
        CommandLine fast = new CommandLine(CommandSpecs.main(new Main()));
        for (Class<?> c : Main.COMMANDS) {
            annotated.addSubcommand(c);
            fast.addSubcommand(CommandSpecs.of(c.getAnnotation(CommandLine.Command.class).name()));
        }
        annotated.addSubcommand(CommandLine.HelpCommand.class);
        fast.addSubcommand(CommandSpecs.helpCommand());
        assertThat(describe(fast.getCommandSpec())).isEqualTo(describe(annotated.getCommandSpec()));
        assertThat(help(fast.getCommandSpec())).isEqualTo(help(annotated.getCommandSpec()));
        assertThat(fast.getCommandSpec().versionProvider()).isInstanceOf(Main.Version.class);
    }

    /** Each option set on its own (with the required arguments): the same fields get the same values. */
    @ParameterizedTest
    @MethodSource("commands")
    void sameFieldsAfterParsing(Class<?> command) throws Exception {
        CommandSpec model = annotated(command);
        List<List<String>> lines = new ArrayList<>();
        lines.add(required(model));
        for (OptionSpec o : model.options()) {
            if (o.usageHelp() || o.versionHelp()) {
                continue;
            }
            List<String> line = required(model);
            if (!o.required()) {
                line.add(o.longestName());
                if (o.arity().min() > 0) {
                    line.add(value(o));
                }
            }
            lines.add(line);
            if (o.negatable()) {
                List<String> negated = required(model);
                negated.add(o.longestName().replaceFirst("^--(no-)?", "--no-").replace("--no-no-", "--"));
                lines.add(negated);
            }
        }
        for (List<String> line : lines) {
            CommandSpec annotated = annotated(command);
            CommandSpec fast = CommandSpecs.of(annotated.name());
            String[] args = line.toArray(String[]::new);
            String annotatedError = parseError(annotated, args);
            assertThat(parseError(fast, args)).as("%s %s", annotated.name(), line).isEqualTo(annotatedError);
            assertThat(state(fast.userObject())).as("%s %s", annotated.name(), line).isEqualTo(state(annotated.userObject()));
        }
    }

    /** The message of the error parsing {@code args} ends with (a value the option's checks refuse), or null. */
    private static String parseError(CommandSpec spec, String[] args) {
        try {
            new CommandLine(spec).parseArgs(args);
            return null;
        } catch (CommandLine.ParameterException e) {
            return e.getMessage();
        }
    }

    private static CommandSpec annotated(Class<?> command) {
        return CommandSpec.forAnnotatedObject(CommandSpecSource.newInstance(command));
    }

    /** Whether the options that are methods come in the order of their class's source, as CommandSpecs has them. */
    private static boolean methodsInSourceOrder(CommandSpec spec) {
        List<java.lang.reflect.Method> seen = spec.options().stream().map(OptionSpec::userObject)
                .filter(java.lang.reflect.Method.class::isInstance).map(java.lang.reflect.Method.class::cast).toList();
        List<java.lang.reflect.Method> source = seen.stream().map(java.lang.reflect.Method::getDeclaringClass).distinct()
                .flatMap(c -> CommandSpecSource.declaredMethods(c).stream()).filter(seen::contains).toList();
        return seen.equals(source);
    }

    /** The help text, and what picocli warned on standard error while writing it (none wanted). */
    private static String help(CommandSpec spec) {
        java.io.PrintStream saved = System.err;
        java.io.ByteArrayOutputStream warnings = new java.io.ByteArrayOutputStream();
        try {
            System.setErr(new java.io.PrintStream(warnings, true, StandardCharsets.UTF_8));
            String text = new CommandLine(spec).getUsageMessage(CommandLine.Help.Ansi.OFF);
            return text + warnings.toString(StandardCharsets.UTF_8);
        } finally {
            System.setErr(saved);
        }
    }

    /** Arguments that satisfy the required options and positional parameters of {@code spec}. */
    private static List<String> required(CommandSpec spec) {
        List<String> line = new ArrayList<>();
        for (OptionSpec o : spec.requiredArgs().stream().filter(ArgSpec::isOption).map(OptionSpec.class::cast).toList()) {
            line.add(o.longestName());
            line.add(value(o));
        }
        for (PositionalParamSpec p : spec.positionalParameters()) {
            for (int i = 0; i < Math.max(1, p.arity().min()); i++) {
                line.add(value(p));
            }
        }
        return line;
    }

    /** A value that the argument's type accepts. */
    private static String value(ArgSpec a) {
        Class<?> t = a.typeInfo().isMultiValue() ? a.auxiliaryTypes()[0] : a.type();
        if (t.isEnum()) {
            return t.getEnumConstants()[t.getEnumConstants().length - 1].toString();
        }
        return switch (t.getSimpleName()) {
            case "int", "Integer", "long", "Long" -> "7";
            case "double", "Double" -> "2.5";
            case "URI" -> "http://localhost:1";
            default -> "v";
        };
    }

    /** The fields of a command object and of the option objects in it, by name. */
    private static Map<String, Object> state(Object o) throws IllegalAccessException {
        Map<String, Object> state = new LinkedHashMap<>();
        for (Field f : o.getClass().getDeclaredFields()) {
            // The time an object was made (record --push's start) differs between any two
            if (Modifier.isStatic(f.getModifiers()) || f.getType() == CommandSpec.class || f.getType() == java.time.Instant.class) {
                continue;
            }
            f.setAccessible(true);
            Object v = f.get(o);
            boolean own = v != null && v.getClass().getPackageName().equals(Main.class.getPackageName()) && !v.getClass().isEnum();
            state.put(f.getName(), own ? state(v) : v != null && v.getClass().isArray() ? arrayList(v) : v);
        }
        return state;
    }

    private static List<Object> arrayList(Object array) {
        List<Object> list = new ArrayList<>();
        for (int i = 0; i < java.lang.reflect.Array.getLength(array); i++) {
            list.add(java.lang.reflect.Array.get(array, i));
        }
        return list;
    }

    /** Everything of a command's model that parsing or help reads, as text. */
    static String describe(CommandSpec s) {
        StringBuilder b = new StringBuilder();
        b.append("command ").append(s.name()).append(" aliases=").append(Arrays.toString(s.aliases()))
                .append(" version=").append(Arrays.toString(s.version()))
                .append(" standardHelp=").append(s.mixinStandardHelpOptions())
                .append(" mixins=").append(s.mixins().keySet())
                .append(" subcommands=").append(s.subcommands().keySet()).append('\n');
        UsageMessageSpec u = s.usageMessage();
        b.append("usage ").append(List.of(Arrays.toString(u.description()), Arrays.toString(u.header()),
                Arrays.toString(u.footer()), Arrays.toString(u.customSynopsis()), u.headerHeading(), u.synopsisHeading(),
                u.descriptionHeading(), u.parameterListHeading(), u.optionListHeading(), u.commandListHeading(),
                u.footerHeading(), u.sortOptions(), u.sortSynopsis(), u.abbreviateSynopsis(), u.showDefaultValues(),
                u.hidden(), u.requiredOptionMarker(), u.showAtFileInUsageHelp(), u.showEndOfOptionsDelimiterInUsageHelp()))
                .append('\n');
        for (ArgSpec a : s.args()) {
            b.append(describe(a)).append('\n');
        }
        for (ArgGroupSpec g : s.argGroups()) {
            b.append("group exclusive=").append(g.exclusive()).append(" multiplicity=").append(g.multiplicity())
                    .append(" validate=").append(g.validate()).append(" order=").append(g.order())
                    .append(" heading=").append(g.heading()).append(" args=")
                    .append(g.args().stream().map(CommandSpecsTest::describe).toList()).append('\n');
        }
        for (Map.Entry<String, CommandSpec> m : s.mixins().entrySet()) {
            b.append("mixin ").append(m.getKey()).append(":\n").append(describe(m.getValue()));
        }
        return b.toString();
    }

    private static String describe(ArgSpec a) {
        List<Object> d = new ArrayList<>();
        if (a instanceof OptionSpec o) {
            d.addAll(List.of("option", Arrays.toString(o.names()), o.negatable(), String.valueOf(o.fallbackValue()),
                    o.order(), o.usageHelp(), o.versionHelp(), o.help()));
        } else if (a instanceof PositionalParamSpec p) {
            d.addAll(List.of("positional", p.index()));
        }
        d.addAll(List.of(a.arity(), a.paramLabel(), a.hideParamSyntax(), a.required(), a.hidden(), a.interactive(),
                Arrays.toString(a.description()), String.valueOf(a.descriptionKey()), a.type(),
                Arrays.toString(a.auxiliaryTypes()), a.splitRegex(), String.valueOf(a.defaultValue()),
                a.initialValue() != null && a.initialValue().getClass().isArray() ? arrayList(a.initialValue()) : String.valueOf(a.initialValue()),
                a.hasInitialValue(), a.showDefaultValue(), a.inherited(), a.scopeType(),
                String.valueOf(a.mapFallbackValue()), String.valueOf(a.completionCandidates()),
                a.typeInfo().isMultiValue(), a.typeInfo().isCollection(), a.typeInfo().isBoolean(), a.typeInfo().isEnum(),
                a.typeInfo().getClassName(), String.valueOf(a.group() == null ? null : a.group().multiplicity())));
        return d.toString();
    }
}
