package org.stackfold.cli;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Model.UsageMessageSpec;

/**
 * Writes {@code CommandSpecs.java}: the picocli model of {@link Main} and of every subcommand, built
 * with picocli's programmatic API from the model picocli builds out of their annotations. Reading
 * annotations makes the JDK generate a proxy class per annotation type at run time, which no AOT
 * cache can store (docs/startup.md). The build runs it after compiling the commands (pom.xml, the
 * {@code command-specs} executions: compile this class, run it, compile what it writes into
 * {@code target/generated-sources/command-specs}), so the source tree holds only the annotations;
 * {@code src/build/stub} has the class's shape for the first compile. {@link CommandSpecsTest}
 * checks that both models behave the same.
 */
final class CommandSpecSource {
    private final StringBuilder methods = new StringBuilder();
    private final StringBuilder getters = new StringBuilder();
    private final StringBuilder setters = new StringBuilder();
    private final Map<Field, Integer> fieldIds = new java.util.HashMap<>();
    private final java.util.Set<Class<?>> mixinMethods = new java.util.HashSet<>();
    private boolean standardHelp;
    private int methodIds = 1000;

    static String generate() {
        return new CommandSpecSource().source();
    }

    /**
     * {@link Main#COMMANDS}, read reflectively: the build runs this file with the java launcher's
     * source mode, whose class loader is not the commands', so package access does not reach them.
     */
    @SuppressWarnings("unchecked")
    static List<Class<?>> commands() {
        try {
            Field f = Main.class.getDeclaredField("COMMANDS");
            f.setAccessible(true);
            return (List<Class<?>>) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes the source to the file named by the one argument (always: the build compiles it next). */
    public static void main(String[] args) throws java.io.IOException {
        java.nio.file.Path out = java.nio.file.Path.of(args[0]);
        java.nio.file.Files.createDirectories(out.getParent());
        java.nio.file.Files.writeString(out, generate(), java.nio.charset.StandardCharsets.UTF_8);
    }

    private String source() {
        StringBuilder names = new StringBuilder();
        StringBuilder cases = new StringBuilder();
        for (Class<?> c : commands()) {
            CommandSpec spec = CommandSpec.forAnnotatedObject(newInstance(c));
            String method = javaName(spec.name());
            names.append(names.isEmpty() ? "" : ", ").append(quote(spec.name()));
            cases.append("            case ").append(quote(spec.name())).append(" -> ").append(method)
                    .append("(new ").append(typeName(c)).append("());\n");
            command(method, spec);
        }
        command("main", CommandSpec.forAnnotatedObject(new Main()));
        helpCommand(CommandSpec.forAnnotatedObject(new CommandLine.HelpCommand()));
        return """
                package org.stackfold.cli;

                import picocli.CommandLine.Model.ArgGroupSpec;
                import picocli.CommandLine.Model.CommandSpec;
                import picocli.CommandLine.Model.IGetter;
                import picocli.CommandLine.Model.ISetter;
                import picocli.CommandLine.Model.OptionSpec;
                import picocli.CommandLine.Model.PositionalParamSpec;

                /**
                 * The picocli model of each command, built without reading annotations: GENERATED at build
                 * time by CommandSpecSource (src/build/commandspecs) from the commands' annotations; never
                 * committed. Reading annotations makes the JDK spin a proxy class per annotation type on
                 * every run, which the AOT cache cannot store (docs/startup.md).
                 */
                @SuppressWarnings({"unchecked", "rawtypes"})
                final class CommandSpecs {
                    private CommandSpecs() {
                    }

                    /** The subcommands' names, in the order of {@link Main#COMMANDS}. */
                    static final java.util.List<String> NAMES = java.util.List.of(%s);

                    /** The model of the subcommand named {@code name} on a new command object, or null. */
                    static CommandSpec of(String name) {
                        return switch (name) {
                %s            default -> null;
                        };
                    }
                %s
                    /**
                     * Reads and writes one field of a command or option object, or calls an option's setter
                     * method, as picocli's field and method bindings do.
                     */
                    private static final class Access implements IGetter, ISetter {
                        private final Object target;
                        private final int id;
                        private Object last;

                        Access(Object target, int id) {
                            this.target = target;
                            this.id = id;
                        }

                        @Override
                        public <T> T get() {
                            return (T) switch (id) {
                %s                default -> throw new IllegalStateException("field " + id);
                            };
                        }

                        @Override
                        public <T> T set(T value) {
                            T old = get();
                            switch (id) {
                %s                default -> throw new IllegalStateException("field " + id);
                            }
                            last = value;
                            return old;
                        }
                    }
                }
                """.formatted(names, cases, methods, getters, setters);
    }

    private void command(String method, CommandSpec spec) {
        Object user = spec.userObject();
        String type = typeName(user.getClass());
        StringBuilder b = new StringBuilder();
        b.append("\n    static CommandSpec ").append(method).append("(").append(type).append(" c) {\n");
        b.append("        CommandSpec s = CommandSpec.wrapWithoutInspection(c, Main.FACTORY);\n");
        b.append("        s.name(").append(quote(spec.name())).append(");\n");
        commandAttributes(b, "s", spec);
        members(b, "c", user.getClass(), "s", spec, null);
        b.append("        return s;\n    }\n");
        methods.append(b);
    }

    /**
     * picocli's {@code help} command as help and mistakes list it: its options are bound to nothing
     * (its fields are private), so it is only for command lines without "help" (see Main).
     */
    private void helpCommand(CommandSpec spec) {
        StringBuilder b = new StringBuilder();
        b.append("\n    /** picocli's help command, to list only: its arguments are bound to nothing (CommandSpecSource). */\n");
        b.append("    static CommandSpec helpCommand() {\n");
        b.append("        CommandSpec s = CommandSpec.wrapWithoutInspection(new picocli.CommandLine.HelpCommand(), Main.FACTORY);\n");
        b.append("        s.name(").append(quote(spec.name())).append(");\n");
        b.append("        s.helpCommand(true);\n");
        commandAttributes(b, "s", spec);
        for (ArgSpec a : spec.args()) {
            b.append("        s.add").append(a.isOption() ? "Option(" + option((OptionSpec) a, null)
                    : "Positional(" + positional((PositionalParamSpec) a, null)).append(");\n");
        }
        methods.append(b.append("        return s;\n    }\n"));
    }

    private void commandAttributes(StringBuilder b, String s, CommandSpec spec) {
        CommandSpec plain = CommandSpec.create();
        if (spec.aliases().length > 0) {
            b.append("        ").append(s).append(".aliases(").append(strings(spec.aliases())).append(");\n");
        }
        if (spec.versionProvider() != null) {
            b.append("        ").append(s).append(".versionProvider(new ").append(typeName(spec.versionProvider().getClass())).append("());\n");
        } else if (spec.version().length > 0) {
            b.append("        ").append(s).append(".version(").append(strings(spec.version())).append(");\n");
        }
        UsageMessageSpec u = spec.usageMessage();
        UsageMessageSpec d = plain.usageMessage();
        // As written in the annotation: picocli's getters give the text with %% already made %, which
        // picocli would then take for a format and warn about.
        CommandLine.Command raw = spec.userObject().getClass().getAnnotation(CommandLine.Command.class);
        usage(b, s, "description", raw.description(), d.description());
        usage(b, s, "header", raw.header(), d.header());
        usage(b, s, "footer", raw.footer(), d.footer());
        usage(b, s, "customSynopsis", u.customSynopsis(), d.customSynopsis());
        usage(b, s, "headerHeading", u.headerHeading(), d.headerHeading());
        usage(b, s, "synopsisHeading", u.synopsisHeading(), d.synopsisHeading());
        usage(b, s, "descriptionHeading", u.descriptionHeading(), d.descriptionHeading());
        usage(b, s, "parameterListHeading", u.parameterListHeading(), d.parameterListHeading());
        usage(b, s, "optionListHeading", u.optionListHeading(), d.optionListHeading());
        usage(b, s, "commandListHeading", u.commandListHeading(), d.commandListHeading());
        usage(b, s, "footerHeading", u.footerHeading(), d.footerHeading());
        usage(b, s, "sortOptions", u.sortOptions(), d.sortOptions());
        usage(b, s, "sortSynopsis", u.sortSynopsis(), d.sortSynopsis());
        usage(b, s, "abbreviateSynopsis", u.abbreviateSynopsis(), d.abbreviateSynopsis());
        usage(b, s, "showDefaultValues", u.showDefaultValues(), d.showDefaultValues());
        usage(b, s, "hidden", u.hidden(), d.hidden());
        usage(b, s, "requiredOptionMarker", u.requiredOptionMarker(), d.requiredOptionMarker());
        usage(b, s, "showAtFileInUsageHelp", u.showAtFileInUsageHelp(), d.showAtFileInUsageHelp());
        usage(b, s, "showEndOfOptionsDelimiterInUsageHelp", u.showEndOfOptionsDelimiterInUsageHelp(),
                d.showEndOfOptionsDelimiterInUsageHelp());
        if (spec.subcommandsRepeatable() || spec.defaultValueProvider() != null
                || !spec.subcommands().isEmpty() || spec.resourceBundle() != null) {
            throw new IllegalStateException(spec.name() + ": a command attribute CommandSpecSource does not write");
        }
    }

    private static void usage(StringBuilder b, String s, String name, Object value, Object plain) {
        if (value instanceof String[] a ? !Arrays.equals(a, (String[]) plain) : !Objects.equals(value, plain)) {
            b.append("        ").append(s).append(".usageMessage().").append(name).append("(")
                    .append(value instanceof String[] a ? strings(a) : literal(value)).append(");\n");
        }
    }

    /**
     * The options, positional parameters, mixins, groups and spec fields of {@code type}'s object
     * (Java expression {@code obj}) in the order of its fields, as picocli adds them: the standard
     * help options last.
     */
    private void members(StringBuilder b, String obj, Class<?> type, String s, CommandSpec spec, String mixee) {
        Map<String, CommandLine.Model.IAnnotatedElement> mixinFields = spec.mixinAnnotatedElements();
        for (Field f : type.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            if (f.isAnnotationPresent(CommandLine.Spec.class)) {
                CommandLine.Spec.Target target = f.getAnnotation(CommandLine.Spec.class).value();
                String value = target == CommandLine.Spec.Target.MIXEE ? mixee : s;
                b.append("        ").append(obj).append(".").append(f.getName()).append(" = ").append(value).append(";\n");
            } else if (f.isAnnotationPresent(CommandLine.Option.class)) {
                OptionSpec o = find(spec.options(), f);
                b.append("        ").append(s).append(".addOption(").append(option(o, binding(obj, type, f, null))).append(");\n");
            } else if (f.isAnnotationPresent(CommandLine.Parameters.class)) {
                PositionalParamSpec p = find(spec.positionalParameters(), f);
                b.append("        ").append(s).append(".addPositional(").append(positional(p, binding(obj, type, f, null))).append(");\n");
            } else if (f.isAnnotationPresent(CommandLine.Mixin.class)) {
                String name = mixinFields.entrySet().stream().filter(e -> e.getValue().getName().equals(f.getName()))
                        .map(Map.Entry::getKey).findFirst().orElseThrow();
                String method = "mixin" + typeName(f.getType()).replace(".", "");
                if (mixinMethods.add(f.getType())) {
                    StringBuilder m = new StringBuilder("\n    private static CommandSpec " + method + "(" + typeName(f.getType())
                            + " c, CommandSpec mixee) {\n        CommandSpec s = CommandSpec.wrapWithoutInspection(c, Main.FACTORY);\n");
                    members(m, "c", f.getType(), "s", spec.mixins().get(name), "mixee");
                    methods.append(m.append("        return s;\n    }\n"));
                }
                b.append("        ").append(obj).append(".").append(f.getName()).append(" = new ").append(typeName(f.getType())).append("();\n");
                b.append("        ").append(s).append(".addMixin(").append(quote(name)).append(", ").append(method).append("(")
                        .append(obj).append(".").append(f.getName()).append(", ").append(s).append("));\n");
            } else if (f.isAnnotationPresent(CommandLine.ArgGroup.class)) {
                ArgGroupSpec g = spec.argGroups().stream()
                        .filter(x -> x.typeInfo() != null && x.typeInfo().getType() == f.getType()).findFirst().orElseThrow();
                if (!g.subgroups().isEmpty() || g.heading() != null || g.typeInfo().isMultiValue()) {
                    throw new IllegalStateException(f + ": an argument group CommandSpecSource does not write");
                }
                StringBuilder gb = new StringBuilder("ArgGroupSpec.builder().exclusive(" + g.exclusive() + ").multiplicity("
                        + quote(g.multiplicity().toString()) + ").validate(" + g.validate() + ").order(" + g.order() + ")");
                for (Field gf : f.getType().getDeclaredFields()) {
                    if (gf.isAnnotationPresent(CommandLine.Option.class)) {
                        OptionSpec o = find(g.options(), gf);
                        gb.append("\n                .addArg(").append(option(o, binding(obj, type, f, gf))).append(")");
                    }
                }
                b.append("        ").append(s).append(".addArgGroup(").append(gb).append(".build());\n");
            } else if (f.getDeclaredAnnotations().length > 0) {
                throw new IllegalStateException(f + ": an annotation CommandSpecSource does not write");
            }
        }
        for (java.lang.reflect.Method method : declaredMethods(type)) {
            if (method.isAnnotationPresent(CommandLine.Option.class)) {
                OptionSpec o = find(spec.options(), method);
                b.append("        ").append(s).append(".addOption(").append(option(o, setterBinding(obj, type, method))).append(");\n");
            } else if (method.getDeclaredAnnotations().length > 0 && !method.isAnnotationPresent(Override.class)) {
                throw new IllegalStateException(method + ": an annotation CommandSpecSource does not write");
            }
        }
        if (spec.mixins().containsKey("mixinStandardHelpOptions")) {
            if (!standardHelp) {
                standardHelp = true;
                StringBuilder h = new StringBuilder("\n    /** The options of {@code mixinStandardHelpOptions = true}. */\n"
                        + "    private static CommandSpec standardHelp() {\n        CommandSpec s = CommandSpec.wrapWithoutInspection(null, Main.FACTORY);\n");
                for (OptionSpec o : spec.mixins().get("mixinStandardHelpOptions").options()) {
                    h.append("        s.addOption(").append(option(o, null)).append(");\n");
                }
                methods.append(h.append("        return s;\n    }\n"));
            }
            b.append("        ").append(s).append(".addMixin(\"mixinStandardHelpOptions\", standardHelp());\n");
        }
    }

    private static <T extends ArgSpec> T find(List<T> args, java.lang.reflect.Member f) {
        return args.stream().filter(a -> f.equals(a.userObject())).findFirst()
                .orElseThrow(() -> new IllegalStateException(f + ": not in picocli's model"));
    }

    /**
     * A binding to field {@code f} of {@code obj} (of {@code type}); with {@code member}, to that field of
     * the group object in {@code f}, which is made when a value other than the group field's initial one is set.
     */
    private String binding(String obj, Class<?> type, Field f, Field member) {
        Field key = member == null ? f : member;
        if (fieldIds.containsKey(key)) {
            return access(obj, fieldIds.get(key), f, member);
        }
        int id = fieldIds.size();
        fieldIds.put(key, id);
        String target = "((" + typeName(type) + ") target)";
        if (member == null) {
            getters.append("                case ").append(id).append(" -> ").append(target).append(".").append(f.getName()).append(";\n");
            setters.append("                case ").append(id).append(" -> ").append(target).append(".").append(f.getName())
                    .append(" = (").append(boxedName(f)).append(") value;\n");
        } else {
            Object initial = get(member, newInstance(f.getType()));
            String group = target + "." + f.getName();
            getters.append("                case ").append(id).append(" -> ").append(group).append(" == null ? ")
                    .append(literal(initial)).append(" : ").append(group).append(".").append(member.getName()).append(";\n");
            setters.append("                case ").append(id).append(" -> {\n")
                    .append("                    if (").append(group).append(" == null && value != null && !value.equals(")
                    .append(literal(initial)).append(")) {\n")
                    .append("                        ").append(group).append(" = new ").append(typeName(f.getType())).append("();\n")
                    .append("                    }\n")
                    .append("                    if (").append(group).append(" != null && value != null) {\n")
                    .append("                        ").append(group).append(".").append(member.getName())
                    .append(" = (").append(boxedName(member)).append(") value;\n")
                    .append("                    }\n")
                    .append("                }\n");
        }
        return access(obj, id, f, member);
    }

    private String access(String obj, int id, Field f, Field member) {
        String access = "new Access(" + obj + ", " + id + ")";
        // Picocli gives a group's options no initial value: their object is made when one is matched.
        String initial = member == null ? obj + "." + f.getName() : "null";
        return ".setter(" + access + ").getter(" + access + ")\n                .initialValue(" + initial + ")";
    }

    /** A binding that calls setter method {@code m} of {@code obj} and reads back the last value set, as picocli's do. */
    private String setterBinding(String obj, Class<?> type, java.lang.reflect.Method m) {
        if (m.getParameterCount() != 1) {
            throw new IllegalStateException(m + ": an option method CommandSpecSource does not write");
        }
        int id = methodIds++;
        String target = "((" + typeName(type) + ") target)";
        getters.append("                case ").append(id).append(" -> last;\n");
        setters.append("                case ").append(id).append(" -> ").append(target).append(".").append(m.getName())
                .append("((").append(m.getGenericParameterTypes()[0].getTypeName().replace('$', '.')).append(") value);\n");
        return ".setter(new Access(" + obj + ", " + id + ")).getter(new Access(" + obj + ", " + id + "))\n                .hasInitialValue(false)";
    }

    private static String option(OptionSpec o, String binding) {
        StringBuilder b = new StringBuilder("OptionSpec.builder(").append(strings(o.names())).append(")");
        if (o.usageHelp()) {
            b.append(".usageHelp(true)");
        }
        if (o.versionHelp()) {
            b.append(".versionHelp(true)");
        }
        if (o.negatable()) {
            b.append(".negatable(true)");
        }
        if (o.fallbackValue() != null && !o.fallbackValue().isEmpty()) {
            b.append(".fallbackValue(").append(quote(o.fallbackValue())).append(")");
        }
        if (o.order() != OptionSpec.builder("-x").build().order()) {
            b.append(".order(").append(o.order()).append(")");
        }
        return arg(b, o, binding);
    }

    private static String positional(PositionalParamSpec p, String binding) {
        StringBuilder b = new StringBuilder("PositionalParamSpec.builder().index(").append(quote(p.index().originalValue())).append(")");
        return arg(b, p, binding);
    }

    private static String arg(StringBuilder b, ArgSpec a, String binding) {
        b.append("\n                .arity(").append(quote(a.arity().originalValue())).append(")");
        b.append(".paramLabel(").append(quote(a.paramLabel())).append(")");
        if (a.hideParamSyntax()) {
            b.append(".hideParamSyntax(true)");
        }
        if (a.required()) {
            b.append(".required(true)");
        }
        if (a.hidden()) {
            b.append(".hidden(true)");
        }
        if (a.descriptionKey() != null) {
            b.append(".descriptionKey(").append(quote(a.descriptionKey())).append(")");
        }
        String[] description = rawDescription(a);
        if (description.length > 0) {
            b.append("\n                .description(").append(strings(description)).append(")");
        }
        b.append("\n                .type(").append(className(a.type())).append(")");
        if (a.auxiliaryTypes().length > 0 && !(a.auxiliaryTypes().length == 1 && a.auxiliaryTypes()[0] == a.type())) {
            b.append(".auxiliaryTypes(").append(Arrays.stream(a.auxiliaryTypes()).map(CommandSpecSource::className)
                    .collect(Collectors.joining(", "))).append(")");
        }
        if (!a.splitRegex().isEmpty()) {
            b.append(".splitRegex(").append(quote(a.splitRegex())).append(")");
        }
        if (a.defaultValue() != null) {
            b.append(".defaultValue(").append(quote(a.defaultValue())).append(")");
        }
        if (a.showDefaultValue() != CommandLine.Help.Visibility.ON_DEMAND) {
            b.append(".showDefaultValue(picocli.CommandLine.Help.Visibility.").append(a.showDefaultValue()).append(")");
        }
        if (a.interactive() || a.converters().length > 0 || a.parameterConsumer() != null || a.preprocessor() != null
                && !a.preprocessor().getClass().getName().startsWith("picocli.")) {
            throw new IllegalStateException(a + ": an attribute CommandSpecSource does not write");
        }
        if (binding != null) {
            b.append("\n                ").append(binding);
        } else if (a.hasInitialValue()) {
            b.append(".initialValue(").append(literal(a.initialValue())).append(")");
        }
        return b.append(".build()").toString();
    }

    /**
     * The methods of {@code type} in the order of its class file (the source's). picocli takes them in
     * {@link Class#getDeclaredMethods()}'s order, which HotSpot sorts by the address of each name's
     * symbol and which can differ between runs; the generated model keeps the source's order.
     */
    static List<java.lang.reflect.Method> declaredMethods(Class<?> type) {
        List<String> order;
        try (var in = type.getResourceAsStream(type.getName().substring(type.getPackageName().length() + 1) + ".class")) {
            order = java.lang.classfile.ClassFile.of().parse(in.readAllBytes()).methods().stream()
                    .map(m -> m.methodName().stringValue() + m.methodType().stringValue()).toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return Arrays.stream(type.getDeclaredMethods())
                .sorted(java.util.Comparator.comparingInt(m -> order.indexOf(m.getName() + descriptor(m)))).toList();
    }

    private static String descriptor(java.lang.reflect.Method m) {
        return java.lang.invoke.MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
    }

    /** The description as the annotation has it (with %% for %), where there is one. */
    private static String[] rawDescription(ArgSpec a) {
        if (a.userObject() instanceof java.lang.reflect.AnnotatedElement e) {
            if (e.isAnnotationPresent(CommandLine.Option.class)) {
                return e.getAnnotation(CommandLine.Option.class).description();
            }
            if (e.isAnnotationPresent(CommandLine.Parameters.class)) {
                return e.getAnnotation(CommandLine.Parameters.class).description();
            }
        }
        return a.description();
    }

    private static Object get(Field f, Object o) {
        try {
            f.setAccessible(true);
            return f.get(o);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    static Object newInstance(Class<?> c) {
        try {
            var k = c.getDeclaredConstructor();
            k.setAccessible(true);
            return k.newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String javaName(String command) {
        return command.replace('-', '_');
    }

    private static String typeName(Class<?> c) {
        return c.getName().replace('$', '.').replace("org.stackfold.cli.", "");
    }

    private static String className(Class<?> c) {
        return c.getCanonicalName() + ".class";
    }

    private static String boxedName(Field f) {
        Class<?> t = f.getType();
        if (t.isPrimitive()) {
            return switch (t.getName()) {
                case "boolean" -> "Boolean";
                case "int" -> "Integer";
                case "long" -> "Long";
                case "double" -> "Double";
                default -> throw new IllegalStateException(f + ": a primitive type CommandSpecSource does not write");
            };
        }
        return f.getGenericType().getTypeName().replace('$', '.');
    }

    private static String literal(Object v) {
        if (v == null || v instanceof Boolean || v instanceof Integer) {
            return String.valueOf(v);
        }
        if (v instanceof String s) {
            return quote(s);
        }
        throw new IllegalStateException(v + ": a value CommandSpecSource does not write");
    }

    private static String strings(String[] a) {
        List<String> q = new ArrayList<>();
        for (String s : a) {
            q.add(quote(s));
        }
        return String.join(",\n                        ", q);
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\t' -> b.append("\\t");
                default -> {
                    if (ch < 0x20 || ch > 0x7e) {
                        b.append(String.format("\\u%04x", (int) ch));
                    } else {
                        b.append(ch);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
