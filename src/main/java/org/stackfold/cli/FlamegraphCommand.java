package org.stackfold.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.stackfold.transform.Columns;
import org.stackfold.analysis.Diff;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.format.ProfileFormat;
import org.stackfold.format.folded.FoldedReader;
import org.stackfold.io.AtomicOutput;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.Profile;
import org.stackfold.render.flamegraph.FlameGraph;
import org.stackfold.render.flamegraph.FlameGraphOptions;
import org.stackfold.render.flamegraph.NameAttributes;
import org.stackfold.render.flamegraph.Palette;
import org.stackfold.render.flamegraph.SortCheck;
import org.stackfold.render.flamegraph.StackTransforms;
import org.stackfold.transform.BaseSymbols;
import org.stackfold.transform.Merge;
import org.stackfold.transform.Reverse;
import org.stackfold.transform.Transforms;
import org.stackfold.format.folded.RewritingFoldedReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "flamegraph", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Draw an interactive SVG flame graph (or icicle graph, flame chart, differential graph).",
                "Options are flamegraph.pl's (and inferno's for its additions); a folded file with two counts "
                        + "per line (BEFORE AFTER) is drawn as a differential graph."},
        footer = {"", "Examples:",
                "  stackfold flamegraph profile.folded -o cpu.svg",
                "  stackfold flamegraph --colors java --title 'My service' profile.folded > cpu.svg",
                "  stackfold flamegraph change.diff.folded -o diff.svg",
                "  stackfold flamegraph --diff before.folded after.folded -o diff.svg",
                "  stackfold flamegraph --flamechart trace.folded -o chart.svg"})
final class FlamegraphCommand implements Callable<Integer> {
    @Parameters(arity = "0..*", paramLabel = "IN", description = "Profiles, merged ('-' or none: stdin).")
    List<String> inputs = new ArrayList<>();

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", description = "Output SVG (default stdout).")
    String output;

    @Option(names = "--title", paramLabel = "TEXT", description = "Title (default Flame Graph / Icicle Graph / Flame Chart).")
    String title;
    @Option(names = "--subtitle", paramLabel = "TEXT", description = "Second title line.")
    String subtitle;
    @Option(names = "--width", paramLabel = "PX", description = "Image width (default 1200).")
    int width = 1200;
    @Option(names = "--height", paramLabel = "PX", description = "Height of one frame row (default 16).")
    int height = 16;
    @Option(names = "--minwidth", paramLabel = "PX|PCT%",
            description = "Omit frames narrower than this many pixels, or this percent of the total with a %% suffix (default 0.1; inferno: 0.01%%).")
    String minWidth;
    @Option(names = "--fonttype", paramLabel = "FONT", description = "Font family (default Verdana; inferno: monospace).")
    String fontType;
    @Option(names = "--fontsize", paramLabel = "N", description = "Font size (default 12).")
    double fontSize = 12;
    @Option(names = "--fontwidth", paramLabel = "N", description = "Average glyph width / font size, for label fitting (default 0.59).")
    double fontWidth = 0.59;
    @Option(names = "--countname", paramLabel = "TEXT", description = "Count unit in tooltips (default samples).")
    String countName = "samples";
    @Option(names = "--nametype", paramLabel = "TEXT", description = "Prefix of the details line (default 'Function:').")
    String nameType = "Function:";
    @Option(names = {"-c", "--colors", "--color"}, paramLabel = "PALETTE",
            description = "hot (default), mem, io, wakeup, chain, java, js, perl, python, rust, red, green, blue, aqua, yellow, purple, orange.")
    String colors = "hot";
    @Option(names = {"--bgcolors", "--bgcolor"}, paramLabel = "COLOR", description = "Background: yellow, blue, green, grey or #rrggbb (default by palette).")
    String bgColors;
    @Option(names = "--hash", description = "Colour by a hash of the name (similar names, similar colours).")
    boolean hash;
    @Option(names = "--random", description = "Random colours.")
    boolean random;
    @Option(names = "--deterministic", description = "Colour by an FNV hash of the whole name (inferno).")
    boolean deterministic;
    @Option(names = "--cp", description = "Consistent palette: reuse and update palette.map in the working directory.")
    boolean consistentPalette;
    @Option(names = "--palette-file", paramLabel = "FILE", description = "Consistent palette kept in FILE (implies --cp).")
    String paletteFile;
    @Option(names = "--reverse", description = "Reverse every stack (leaf first): a bottom-up graph.")
    boolean reverse;
    @Option(names = {"-i", "--inverted"}, description = "Icicle graph: roots at the top.")
    boolean inverted;
    @Option(names = "--flamechart", description = "Flame chart: keep input order (time) instead of sorting and merging.")
    boolean flameChart;
    @Option(names = "--negate", description = "Differential: swap red and blue and the delta's sign.")
    boolean negate;
    @Option(names = "--factor", paramLabel = "N", description = "Multiply counts shown in tooltips by N (default 1).")
    double factor = 1;
    @Option(names = "--total", paramLabel = "N", description = "Draw as if the total were N (one scale for several graphs).")
    long total;
    @Option(names = "--nameattr", paramLabel = "FILE", description = "Per-function SVG attributes (name<TAB>key=value...).")
    Path nameAttr;
    @Option(names = "--encoding", paramLabel = "NAME", description = "encoding attribute of the XML declaration.")
    String encoding;
    @Option(names = "--notes", paramLabel = "TEXT", description = "Text kept in an XML comment.")
    String notes = "";
    @Option(names = "--search-color", paramLabel = "#RRGGBB", description = "Search highlight (default #e600e6).")
    String searchColor;
    @Option(names = "--stroke-color", paramLabel = "#RRGGBB|none", description = "Outline of every frame (default none).")
    String strokeColor;
    @Option(names = "--uicolor", paramLabel = "#RRGGBB", description = "Colour of the title, details and buttons (default #000000).")
    String uiColor;
    @Option(names = "--truncate-text-right", description = "Labels that do not fit lose their end when zoomed (default: perl right, inferno left).")
    boolean truncateRight;
    @Option(names = "--base", paramLabel = "SYMBOL", description = "Keep stacks through SYMBOL, cut so it is the root (repeatable).")
    List<String> base = new ArrayList<>();
    @Option(names = "--colordiffusion", description = "Colour by width: wider frames redder (inferno).")
    boolean colorDiffusion;
    @Option(names = "--sort", paramLabel = "name|weight", description = "Sibling order: name (default, as flamegraph.pl) or weight (heaviest first).")
    String sort = "name";
    @Option(names = "--zoom-percent", description = "Tooltips also give percentages relative to the zoomed frame.")
    boolean zoomPercent;
    @Option(names = "--fluid", description = "In a browser, fit the graph to the window width and re-lay it out on resize.")
    boolean fluid;
    @Option(names = "--compat", paramLabel = "perl|inferno", description = "Follow flamegraph.pl (default) or inferno where they differ.")
    String compat = "perl";
    @Option(names = "--no-javascript", description = "Leave out the script (static SVG).")
    boolean noJavascript;
    @Option(names = "--pretty-xml", description = "Indent the frame elements.")
    boolean prettyXml;
    @Option(names = "--no-sort", description = "inferno: promise the input is sorted; unsorted lines are an error (the graph is the same).")
    boolean noSort;
    @Option(names = "--diff", description = "Two inputs, BEFORE and AFTER: draw AFTER coloured by the change.")
    boolean diff;
    @Option(names = {"-n", "--normalize"}, description = "Differential: scale BEFORE to AFTER's total first.")
    boolean normalize;
    @Option(names = {"-s", "--strip-hex"}, description = "With --diff: replace hex addresses before matching stacks.")
    boolean stripHex;
    @Option(names = "--lenient", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Skip bad lines with a warning (default, as flamegraph.pl); --no-lenient fails on them.")
    boolean lenient;
    @Option(names = "--from", paramLabel = "FORMAT", description = "Input format when neither content nor name tells.")
    String from;
    @picocli.CommandLine.Mixin
    InputOptions formats;

    @picocli.CommandLine.Mixin
    TransformOptions transform;
    @Option(names = {"-q", "--quiet"}, description = "No warnings (errors still go to stderr).")
    boolean quiet;
    @Option(names = {"-v", "--verbose"}, hidden = true, description = "Accepted for inferno compatibility.")
    boolean[] verbose = new boolean[0];

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** FoldedReader's "skipped N bad lines" warning, said the way flamegraph.pl and inferno say it. */
    private static final java.util.regex.Pattern SKIPPED =
            java.util.regex.Pattern.compile("(?s)^(.*): skipped (\\d+) bad lines? \\((.*)\\)$");

    @Override
    public Integer call() throws Exception {
        try {
            return draw();
        } catch (OutOfMemoryError e) {
            // picocli's handler sees Exceptions only: turn this into the one-line error every command gives.
            throw new InputException("out of memory drawing the flame graph"
                    + (reverse ? " (reversed stacks share fewer frames: the tree is larger)" : "")
                    + "; raise the heap with STACKFOLD_HEAP=4g");
        }
    }

    /**
     * What a tooltip's count is, from the value type: "samples" for sample counts (flamegraph.pl's
     * bytes), else the unit ("nanoseconds", "bytes") or perf's event ("cycles" when weighed by period).
     */
    static String countName(Profile.ValueType vt) {
        if (vt.unit() == null || vt.unit().equals("count") || vt.unit().isEmpty()) {
            return "samples";
        }
        return vt.unit().equals("events") ? vt.type() : vt.unit();
    }

    private int draw() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        java.util.function.Consumer<String> warn = quiet ? w -> { } : w -> {
            err.println("stackfold: warning: " + org.stackfold.io.Printable.of(w));
            err.flush();
        };
        FlameGraphOptions o = options(warn);
        List<String> ins = inputs.isEmpty() ? List.of("-") : inputs;
        if (diff && ins.size() != 2) {
            throw new org.stackfold.io.UsageException("--diff needs exactly two inputs: BEFORE AFTER");
        }
        if (flameChart && ins.size() != 1) {
            throw new org.stackfold.io.UsageException("--flamechart reads one input (its order is the time axis)");
        }
        ProfileLoader.checkStdinOnce(ins);
        List<ProfileLoader.Source> sources = new ArrayList<>();
        try {
            for (String n : ins) {
                sources.add(ProfileLoader.open(n, from)); // each input opened once: pipes and FIFOs too
            }
            return draw(sources, o, warn, err);
        } finally {
            sources.forEach(ProfileLoader.Source::close);
        }
    }

    private int draw(List<ProfileLoader.Source> sources, FlameGraphOptions o, java.util.function.Consumer<String> warn,
                     PrintWriter err) throws Exception {
        try (AtomicOutput out = AtomicOutput.open(output, Main.stdout())) {
            try {
                if (flameChart) {
                    FlameGraph.renderChart(transform.apply(ordered(sources.getFirst(), warn)), o, out.stream(), warn);
                } else if (!transform.any() && oneFoldedAsIs(sources, o)) {
                    // Stacks in byte order: their wide nodes in one pass without a tree; otherwise drawn
                    // from the reader's range trees as they are: no appended tree, no rewrites.
                    Input in = sources.getFirst().input();
                    if (!spec.commandLine().getParseResult().hasMatchedOption("--countname")) {
                        o.countName = countName(Profile.ValueType.SAMPLES);
                    }
                    FoldedReader reader = foldedReader(sources.getFirst(), warn);
                    java.util.function.LongToDoubleFunction minWidth = FlameGraph.minWidth(o);
                    org.stackfold.model.WideNodes wide = minWidth == null ? null : reader.readWide(in, minWidth);
                    if (wide != null) {
                        FlameGraph.renderWide(wide, o, out.stream(), warn);
                    } else {
                        FoldedReader.Ranges r = reader.readRanges(in);
                        FlameGraph.renderRanges(r.frames(), r.trees(), r.frameMaps(), o, out.stream(), warn);
                    }
                } else if (!transform.any() && streamable(sources, o)) {
                    // --reverse/--base on folded input: rewrite each record while reading, never holding
                    // the unrewritten tree as well as the rewritten one.
                    Profile p = RewritingFoldedReader.read(sources.stream().map(ProfileLoader.Source::input).toList(),
                            rewrites(o), warn);
                    if (normalize) {
                        StackTransforms.normalize(p.tree());
                    }
                    FlameGraph.render(p, o, out.stream(), warn);
                } else {
                    Profile p = transform.apply(load(sources, warn));
                    if (!spec.commandLine().getParseResult().hasMatchedOption("--countname")) {
                        o.countName = countName(p.valueTypes().getLast());
                    }
                    List<org.stackfold.transform.StackTransform> rw = rewrites(o);
                    FlameGraph.render(rw.isEmpty() ? p : new Transforms(List.copyOf(rw)).apply(p), o, out.stream(), warn);
                }
            } catch (FlameGraph.EmptyProfileException e) {
                if (out.target() == null && output == null) {
                    out.commit(); // to standard output, the small error picture both peers draw
                }
                err.println("stackfold: no stack counts found in "
                        + String.join(", ", sources.stream().map(s -> s.input().name()).toList()));
                err.flush();
                return 1;
            }
            out.commit();
        }
        return 0;
    }

    private FlameGraphOptions options(java.util.function.Consumer<String> warn) throws IOException {
        FlameGraphOptions o = new FlameGraphOptions();
        o.compat = switch (compat) {
            case "perl", "flamegraph.pl" -> FlameGraphOptions.Compat.PERL;
            case "inferno" -> FlameGraphOptions.Compat.INFERNO;
            default -> throw usage("--compat must be perl or inferno");
        };
        o.title = title;
        o.subtitle = subtitle;
        o.width = width;
        o.frameHeight = height;
        o.minWidth = minWidth;
        o.fontType = fontType;
        o.fontSize = fontSize;
        o.fontWidth = fontWidth;
        o.countName = countName;
        o.nameType = nameType;
        try {
            o.palette = Palette.parse(colors);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        o.bgColors = bgColors;
        if ((hash ? 1 : 0) + (random ? 1 : 0) + (deterministic ? 1 : 0) > 1) {
            throw usage("--hash, --random and --deterministic exclude each other");
        }
        o.colorMode = hash ? FlameGraphOptions.ColorMode.HASH : random ? FlameGraphOptions.ColorMode.RANDOM
                : deterministic ? FlameGraphOptions.ColorMode.DETERMINISTIC : FlameGraphOptions.ColorMode.DEFAULT;
        o.paletteFile = paletteFile != null ? paletteFile : consistentPalette ? "palette.map" : null;
        o.reverse = reverse;
        o.inverted = inverted;
        o.flameChart = flameChart;
        o.negate = negate;
        o.factor = factor;
        o.total = total;
        if (nameAttr != null) {
            o.nameAttributes = NameAttributes.read(nameAttr, warn);
        }
        o.encoding = encoding;
        o.notes = notes;
        if (searchColor != null) {
            o.searchColor = cssColor(searchColor, "--search-color");
        }
        if (strokeColor != null && !strokeColor.equals("none")) {
            o.strokeColor = cssColor(strokeColor, "--stroke-color");
        }
        if (uiColor != null) {
            o.uiColor = cssColor(uiColor, "--uicolor");
        }
        o.truncateTextRight = truncateRight || !o.inferno();
        o.base = base;
        if (colorDiffusion && !colors.equals("hot")) {
            throw usage("--colordiffusion colours by width and cannot be combined with --colors");
        }
        o.colorDiffusion = colorDiffusion;
        o.sortByWeight = switch (sort) {
            case "name" -> false;
            case "weight" -> true;
            default -> throw usage("--sort must be name or weight");
        };
        o.zoomRelativePercent = zoomPercent;
        o.fluid = fluid;
        o.noJavascript = noJavascript;
        o.prettyXml = prettyXml;
        try {
            o.validate();
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        return o;
    }

    private picocli.CommandLine.ParameterException usage(String message) {
        return new picocli.CommandLine.ParameterException(spec.commandLine(), message);
    }

    /** #rrggbb to rgb(r,g,b); anything else is refused so nothing unescaped reaches the CSS. */
    private String cssColor(String c, String option) {
        if (!c.matches("#[0-9a-fA-F]{6}")) {
            throw usage(option + " must be #rrggbb, not '" + c + "'");
        }
        int v = Integer.parseInt(c.substring(1), 16);
        return "rgb(" + (v >> 16) + "," + ((v >> 8) & 0xFF) + "," + (v & 0xFF) + ")";
    }

    private Profile load(List<ProfileLoader.Source> sources, java.util.function.Consumer<String> warn) throws IOException {
        List<Profile> profiles = new ArrayList<>();
        if (noSort && reverse) {
            warn.accept("input lines are always sorted with --reverse; --no-sort is ignored");
        }
        SortCheck sortCheck = noSort && !reverse ? new SortCheck() : null;
        for (ProfileLoader.Source s : sources) {
            profiles.add(loadOne(s, warn, sortCheck));
        }
        if (diff) {
            return Diff.of(lastColumn(profiles.get(0)), lastColumn(profiles.get(1)), normalize, stripHex);
        }
        Profile first = profiles.getFirst();
        for (int i = 1; i < profiles.size(); i++) {
            ProfileLoader.mergeInto(first, profiles.get(i), sources.get(i).input().name());
        }
        if (normalize) {
            StackTransforms.normalize(first.tree());
        }
        return first;
    }

    /** --base then --reverse, as transforms (flamegraph.pl's order: the stacks are cut, then reversed). */
    private static List<org.stackfold.transform.StackTransform> rewrites(FlameGraphOptions o) {
        List<org.stackfold.transform.StackTransform> rw = new ArrayList<>();
        if (!o.base.isEmpty()) {
            rw.add(new BaseSymbols(o.base, o.inferno()));
        }
        if (o.reverse) {
            rw.add(new Reverse());
        }
        return rw;
    }

    /** Folded inputs that --reverse or --base will rewrite anyway: read them record by record. */
    private boolean streamable(List<ProfileLoader.Source> sources, FlameGraphOptions o) {
        if (diff || noSort || !lenient || !(o.reverse || !o.base.isEmpty())) {
            return false;
        }
        return sources.stream().allMatch(s -> s.format().name().equals("folded") || s.format().name().equals("diff-folded"));
    }

    /** One folded input (not empty) drawn without --diff, --normalize, --no-sort or stack rewrites. */
    private boolean oneFoldedAsIs(List<ProfileLoader.Source> sources, FlameGraphOptions o) throws IOException {
        if (sources.size() != 1 || diff || normalize || noSort || StackTransforms.needed(o)) {
            return false;
        }
        ProfileLoader.Source s = sources.getFirst();
        return (s.format().name().equals("folded") || s.format().name().equals("diff-folded"))
                && s.input().view().size() > 0;
    }

    /** Folded input as flamegraph.pl reads it: plain or differential by the first record, bad lines skipped. */
    private FoldedReader foldedReader(ProfileLoader.Source source, java.util.function.Consumer<String> warn) {
        FoldedReader.Mode mode = source.format().name().equals("diff-folded") && from != null
                ? FoldedReader.Mode.DIFFERENTIAL : FoldedReader.Mode.AUTO;
        return new FoldedReader(mode, lenient, Runtime.getRuntime().availableProcessors(), w -> warn.accept(
                SKIPPED.matcher(w).replaceFirst("$1: ignored $2 lines with invalid format ($3)")));
    }

    /** The input with its sample order (its timeline), or a one-line refusal where its format keeps none. */
    private Profile ordered(ProfileLoader.Source source, java.util.function.Consumer<String> warn) throws IOException {
        String name = source.input().name();
        // After apply(): its --timeline default (false) must not undo the order a flame chart needs.
        Profile p = source.read(formats.apply(FormatOptions.none().set("lenient", lenient)).set("timeline", true)
                .set(org.stackfold.format.folded.FoldedFormat.TIMELINE, true)
                .set(org.stackfold.format.tachyon.TachyonOptions.TIMELINE, true).withWarnings(warn));
        if (p.timeline() == null) {
            throw new InputException(name + ": " + source.format().name() + " keeps no sample order, so it has no flame chart"
                    + " (formats with one: folded, Tachyon, JFR, speedscope); draw a flame graph without --flamechart");
        }
        return p;
    }

    private static Profile lastColumn(Profile p) {
        return p.tree().isDifferential() ? Columns.select(p, 1) : p;
    }

    /** Folded input (plain or differential, decided by the first record) as flamegraph.pl reads it; other formats by the registry. */
    private Profile loadOne(ProfileLoader.Source source, java.util.function.Consumer<String> warn, SortCheck sortCheck)
            throws IOException {
        Input in = source.input();
        String name = in.name();
        ProfileFormat f = source.format();
        if (f.name().equals("folded") || f.name().equals("diff-folded")) {
            long unsorted = sortCheck == null ? -1 : sortCheck.check(in.bytes());
            if (unsorted > 0) {
                throw InputException.atLine(name, unsorted, "unsorted input lines detected (--no-sort promises sorted input)");
            }
            if (in.view().size() == 0) {
                return new Profile(); // FoldedReader's parallel split wants at least one byte
            }
            return foldedReader(source, warn).read(in).profile(); // a stream's bytes were kept by view() above
        }
        return source.read(formats.apply(FormatOptions.none().set("lenient", lenient)).withWarnings(warn));
    }
}
