import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.asciidoctor.Asciidoctor;
import org.asciidoctor.Options;
import org.asciidoctor.SafeMode;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * The man pages of a release (scripts/release): stackfold(1) and stackfold-COMMAND(1) for every command,
 * from the models the built jar's commands have (Main.commandLine(), so whatever options the commands
 * have at build time), written as AsciiDoc by picocli-codegen's ManPageGenerator and turned into roff by
 * AsciidoctorJ's manpage backend. Every page gets the exit codes (README, "Reliability").
 * Run with the jar, picocli-codegen and AsciidoctorJ on the class path: java -cp ... ManPages ADOC_DIR MAN_DIR
 */
public class ManPages {
    public static void main(String[] args) throws IOException {
        Path adoc = Path.of(args[0]);
        Path man = Path.of(args[1]);
        Files.createDirectories(adoc);
        Files.createDirectories(man);
        CommandLine cl = org.stackfold.cli.Main.commandLine();
        Map<String, String> exits = new LinkedHashMap<>();
        exits.put("0", "Success.");
        exits.put("1", "Bad input or an I/O error: one line on stderr names the file and the line or byte offset.");
        exits.put("2", "A usage error: an unknown option, format or value.");
        exitCodes(cl.getCommandSpec(), exits);
        cl.getCommandSpec().usageMessage().footerHeading("Environment%n").footer(
                "STACKFOLD_HEAP: the Java heap (default 1g). STACKFOLD_MAX_INPUT: the most bytes read from a stream"
                        + " or decompressed (default 4g). STACKFOLD_JAVA_OPTS: more JVM options."
                        + " STACKFOLD_DEBUG=1: a stack trace with an internal error.",
                "",
                "Run 'stackfold COMMAND --help' or 'man stackfold-COMMAND' for a command's options and examples.");
        int code = ManPageGenerator.generateManPage(adoc.toFile(), null, new boolean[0], true, cl.getCommandSpec());
        if (code != 0) {
            throw new IOException("ManPageGenerator exited " + code);
        }
        List<Path> pages;
        try (Stream<Path> s = Files.list(adoc)) {
            pages = s.filter(p -> p.toString().endsWith(".adoc")).sorted().toList();
        }
        if (pages.size() < 2) {
            throw new IOException("no man pages in " + adoc);
        }
        try (Asciidoctor asciidoctor = Asciidoctor.Factory.create()) {
            for (Path p : pages) {
                asciidoctor.convertFile(p.toFile(), Options.builder().backend("manpage").safe(SafeMode.UNSAFE)
                        .toDir(man.toFile()).mkDirs(true).build());
            }
        }
        try (Stream<Path> s = Files.list(man)) {
            System.out.println("ManPages: " + s.count() + " pages in " + man);
        }
    }

    /**
     * The exit codes on every page, and each command's footer (its examples) under a heading: without
     * one, ManPageGenerator leaves the footer out.
     */
    private static String[] text(String[] lines) {
        String[] out = new String[lines.length];
        for (int i = 0; i < lines.length; i++) {
            out[i] = lines[i].replace("*", "{asterisk}");
        }
        return out;
    }

    private static void exitCodes(CommandSpec spec, Map<String, String> exits) {
        spec.usageMessage().exitCodeListHeading("Exit codes%n").exitCodeList(exits);
        // Text as written: a '*' (stackcollapse-*.pl) would be AsciiDoc's bold, so it is {asterisk}.
        spec.usageMessage().description(text(spec.usageMessage().description()));
        // Footers are format strings to ManPageGenerator; picocli's help forgives a lone '%' (query's
        // "like '%version=1%'"), String.format does not.
        String[] footer0 = text(spec.usageMessage().footer());
        for (int i = 0; i < footer0.length; i++) {
            footer0[i] = footer0[i].replaceAll("(?<!%)%(?![n%])", "%%");
        }
        spec.usageMessage().footer(footer0);
        for (CommandLine.Model.OptionSpec o : List.copyOf(spec.options())) {
            if (o.description().length > 0 && String.join("", o.description()).contains("*")) {
                spec.remove(o);
                spec.addOption(CommandLine.Model.OptionSpec.builder(o).description(text(o.description())).build());
            }
        }
        List<String> footer = new java.util.ArrayList<>(List.of(spec.usageMessage().footer()));
        while (!footer.isEmpty() && footer.get(0).isBlank()) {
            footer.remove(0);
        }
        if (!footer.isEmpty() && spec.usageMessage().footerHeading().isEmpty()) {
            String heading = "Notes";
            if (footer.get(0).equals("Examples:")) {
                heading = "Examples";
                footer.remove(0);
            }
            spec.usageMessage().footerHeading(heading + "%n").footer(footer.toArray(String[]::new));
        }
        for (CommandLine sub : spec.subcommands().values()) {
            exitCodes(sub.getCommandSpec(), exits);
        }
    }
}
