package org.stackfold.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.constantpool.PoolEntry;
import java.lang.classfile.constantpool.Utf8Entry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The layers of docs/ARCHITECTURE.md, checked on the compiled classes (java.lang.classfile, no
 * dependency): every class a class names (in its constant pool: classes, field and method
 * descriptors, signatures) is in its own package or one its package may depend on. Data flows one
 * way: input formats → model → transforms/analysis → renderers/output formats, the CLI on top.
 */
class PackageDependenciesTest {
    /** Package (below org.stackfold; "x.*" is x's subpackages) → what it may depend on. */
    static final Map<String, List<String>> ALLOWED = new LinkedHashMap<>();

    static {
        ALLOWED.put("model", List.of());
        ALLOWED.put("io", List.of());
        ALLOWED.put("transform", List.of("model"));
        ALLOWED.put("analysis", List.of("model", "io", "transform"));
        ALLOWED.put("symbolize", List.of("model", "io"));
        ALLOWED.put("unwind", List.of("model", "io", "symbolize"));
        // What the perf.data reader and the perf script collapser share: options and frame naming.
        ALLOWED.put("perf", List.of("model", "io", "format", "symbolize"));
        // Formats: no reports (analysis), no rendering, no collapsers (collapse.perf included), no CLI.
        ALLOWED.put("format", List.of("model", "io", "format.*"));
        ALLOWED.put("format.*", List.of("model", "io", "format", "format.*", "transform", "symbolize", "perf", "unwind"));
        ALLOWED.put("collapse", List.of("model", "io", "format", "format.*", "symbolize", "perf", "collapse.*"));
        ALLOWED.put("collapse.*", List.of("model", "io", "format", "format.*", "symbolize", "perf", "collapse"));
        // Renderers take a model: no format reads files for them (io: the palette map file, AtomicOutput).
        ALLOWED.put("render.*", List.of("model", "io", "analysis", "transform"));
        ALLOWED.put("record", List.of("model", "io", "symbolize", "unwind", "format.tachyon", "record.*"));
        ALLOWED.put("record.*", List.of("model", "io", "symbolize", "unwind", "format.tachyon", "record", "record.*"));
        // The always-on agent: the recording cut into intervals; its queue keeps profiles as folded stacks.
        // Destinations (files, the fleet table, a server) are the CLI's: no fleet here.
        ALLOWED.put("record.agent", List.of("model", "io", "symbolize", "record", "record.*", "format", "format.folded",
                "format.tachyon"));
        ALLOWED.put("fleet.*", List.of("model", "io", "format", "format.*", "fleet.*"));
        ALLOWED.put("cli", List.of("*"));
    }

    private static final Pattern DESCRIPTOR = Pattern.compile("L(org/stackfold/[\\w/$]+)[;<]");

    @Test
    void everyPackageDependsOnlyOnWhatItsLayerMay() throws IOException {
        Map<String, Set<String>> broken = new TreeMap<>();
        Map<String, Set<String>> graph = graph(Path.of("target/classes/org/stackfold"));
        assertThat(graph).as("compiled classes").containsKeys("model", "cli", "transform", "format.folded");
        for (Map.Entry<String, Set<String>> e : graph.entrySet()) {
            List<String> allowed = rule(e.getKey());
            for (String to : e.getValue()) {
                if (allowed == null || !allowed.contains("*") && allowed.stream().noneMatch(a -> matches(a, to))) {
                    broken.computeIfAbsent(e.getKey() + (allowed == null ? " (no rule: add it here and to docs/ARCHITECTURE.md)" : ""),
                            k -> new TreeSet<>()).add(to);
                }
            }
        }
        assertThat(broken).as("forbidden package dependencies (docs/ARCHITECTURE.md)").isEmpty();
    }

    @Test
    void theThreeArrowsOfIssue32StayGone() throws IOException {
        Map<String, Set<String>> graph = graph(Path.of("target/classes/org/stackfold"));
        assertThat(graph.getOrDefault("render.flamegraph", Set.of())).doesNotContain("format.folded", "format");
        assertThat(graph.getOrDefault("format.folded", Set.of())).doesNotContain("analysis");
        assertThat(graph.getOrDefault("format.perfdata", Set.of())).doesNotContain("collapse.perf", "collapse");
    }

    static List<String> rule(String pkg) {
        if (ALLOWED.containsKey(pkg)) {
            return ALLOWED.get(pkg);
        }
        int dot = pkg.indexOf('.');
        return dot < 0 ? null : ALLOWED.get(pkg.substring(0, dot) + ".*");
    }

    static boolean matches(String allowed, String pkg) {
        return allowed.endsWith(".*") ? pkg.startsWith(allowed.substring(0, allowed.length() - 1)) : allowed.equals(pkg);
    }

    /** Package → the other org.stackfold packages its classes name. */
    static Map<String, Set<String>> graph(Path root) throws IOException {
        Map<String, Set<String>> g = new TreeMap<>();
        List<Path> classes;
        try (var s = Files.walk(root)) {
            classes = s.filter(p -> p.toString().endsWith(".class")).toList();
        }
        for (Path f : classes) {
            ClassModel cm = ClassFile.of().parse(Files.readAllBytes(f));
            String from = pkg(cm.thisClass().asInternalName());
            if (from == null) {
                continue;
            }
            Set<String> to = g.computeIfAbsent(from, k -> new TreeSet<>());
            for (PoolEntry e : cm.constantPool()) {
                List<String> names = new ArrayList<>();
                if (e instanceof ClassEntry c) {
                    names.add(c.asInternalName());
                } else if (e instanceof Utf8Entry u && u.stringValue().contains("org/stackfold/")) {
                    Matcher m = DESCRIPTOR.matcher(u.stringValue());
                    while (m.find()) {
                        names.add(m.group(1));
                    }
                }
                for (String n : names) {
                    String p = pkg(n);
                    if (p != null && !p.equals(from)) {
                        to.add(p);
                    }
                }
            }
        }
        return g;
    }

    /** The package below org.stackfold of an internal class name (or array descriptor), or null outside it. */
    static String pkg(String internal) {
        String n = internal.replaceFirst("^\\[*L?", "");
        if (!n.startsWith("org/stackfold/")) {
            return null;
        }
        int slash = n.lastIndexOf('/');
        return slash <= "org/stackfold".length() ? "" : n.substring("org/stackfold/".length(), slash).replace('/', '.');
    }
}
