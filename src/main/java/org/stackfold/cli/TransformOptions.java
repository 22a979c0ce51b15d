package org.stackfold.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.stackfold.io.UsageException;
import org.stackfold.model.Profile;
import org.stackfold.transform.CollapseRecursion;
import org.stackfold.transform.Focus;
import org.stackfold.transform.FocusPath;
import org.stackfold.transform.FramePattern;
import org.stackfold.transform.Hide;
import org.stackfold.transform.Ignore;
import org.stackfold.transform.PruneFrom;
import org.stackfold.transform.Rename;
import org.stackfold.transform.RootFilter;
import org.stackfold.transform.Show;
import org.stackfold.transform.ShowFrom;
import org.stackfold.transform.TimeRange;
import org.stackfold.transform.TopStacks;
import org.stackfold.transform.Transform;
import org.stackfold.transform.Transforms;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The transforms every command that reads profiles takes (docs/transforms.md), pprof's names where
 * pprof has the option. Each may be repeated; all apply in the order they are given on the command
 * line, to the profile as read (merged), before the command's own work.
 */
final class TransformOptions {
    @Option(names = "--focus", paramLabel = "RE", description = "Keep the stacks with a frame matching RE (pprof's -focus).")
    List<String> focus;

    @Option(names = "--ignore", paramLabel = "RE", description = "Drop the stacks with a frame matching RE (pprof's -ignore).")
    List<String> ignore;

    @Option(names = "--hide", paramLabel = "RE", description = "Remove frames matching RE from the stacks (pprof's -hide).")
    List<String> hide;

    @Option(names = "--show", paramLabel = "RE", description = "Keep only frames matching RE in the stacks (pprof's -show).")
    List<String> show;

    @Option(names = "--show-from", paramLabel = "RE",
            description = "Cut each stack above its outermost frame matching RE; drop stacks without one (pprof's -show_from).")
    List<String> showFrom;

    @Option(names = "--prune-from", paramLabel = "RE",
            description = "Cut each stack below its innermost frame matching RE (pprof's -prune_from).")
    List<String> pruneFrom;

    @Option(names = "--merge", paramLabel = "RE",
            description = "Merge functions matching RE into their callers (the viewer's Merge; the same rule as --hide).")
    List<String> merge;

    @Option(names = "--collapse-recursion", paramLabel = "RE",
            description = "Collapse direct and indirect recursion of functions matching RE: a;f;b;f;c becomes a;f;c.")
    List<String> collapseRecursion;

    @Option(names = "--map", paramLabel = "RE=NAME",
            description = "Rename frames: matches of RE replaced by NAME ($1 a group), e.g. '<.*>=' strips template arguments.")
    List<String> map;

    @Option(names = "--focus-path", paramLabel = "F1;F2;...",
            description = "Keep the stacks that begin with these frames (exact names, root first), cut so the last is the root.")
    List<String> focusPath;

    @Option(names = "--root", paramLabel = "RE",
            description = "Keep the stacks whose root frame (a thread or process) matches RE.")
    List<String> root;

    @Option(names = "--top-stacks", paramLabel = "N", description = "Keep the N heaviest stacks.")
    List<Integer> topStacks;

    @Option(names = "--time-range", paramLabel = "FROM:TO",
            description = "Keep the samples FROM to TO seconds after the first (profiles with timestamps).")
    List<String> timeRange;

    @Option(names = "--transforms", paramLabel = "HASH",
            description = "Replay a viewer URL's transforms (the URL, its #hash or its t= value) on the same profile.")
    List<String> viewerChain;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /** The option names of these transforms, for commands that must know whether any was given. */
    static final List<String> NAMES = List.of("--focus", "--ignore", "--hide", "--show", "--show-from", "--prune-from",
            "--merge", "--collapse-recursion", "--map", "--focus-path", "--root", "--top-stacks", "--time-range",
            "--transforms");

    /** The transforms in command-line order (picocli keeps each option's values; its parse result, their order). */
    Transforms transforms() {
        if (command == null || command.commandLine() == null || command.commandLine().getParseResult() == null) {
            return Transforms.none();
        }
        List<Transform> steps = new ArrayList<>();
        Map<OptionSpec, Integer> used = new HashMap<>();
        for (ArgSpec a : command.commandLine().getParseResult().matchedArgs()) {
            if (!(a instanceof OptionSpec o) || !NAMES.contains(o.longestName())) {
                continue;
            }
            int i = used.merge(o, 1, Integer::sum) - 1;
            List<String> values = o.stringValues();
            if (i >= values.size()) {
                continue;
            }
            steps.add(step(o.longestName(), values.get(i)));
        }
        return new Transforms(steps);
    }

    /** The profile through the transforms; the profile itself when there are none (no pass). */
    Profile apply(Profile p) {
        Transforms t = transforms();
        if (t.isEmpty()) {
            return p;
        }
        try {
            return Transforms.withUsedFrames(t.apply(p));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    boolean any() {
        return !transforms().isEmpty();
    }

    static Transform step(String option, String value) {
        try {
            return switch (option) {
                case "--focus" -> new Focus(FramePattern.regex(value));
                case "--ignore" -> new Ignore(FramePattern.regex(value));
                case "--hide" -> new Hide(FramePattern.regex(value));
                case "--show" -> new Show(FramePattern.regex(value));
                case "--show-from" -> new ShowFrom(FramePattern.regex(value));
                case "--prune-from" -> new PruneFrom(FramePattern.regex(value));
                case "--merge" -> new Hide(FramePattern.regex(value), "--merge");
                case "--collapse-recursion" -> new CollapseRecursion(FramePattern.regex(value));
                case "--map" -> Rename.parse(value);
                case "--focus-path" -> new FocusPath(List.of(value.split(";", -1)));
                case "--root" -> new RootFilter(FramePattern.regex(value));
                case "--top-stacks" -> new TopStacks(Integer.parseInt(value));
                case "--time-range" -> TimeRange.parse(value);
                case "--transforms" -> new ViewerTransforms(value);
                default -> throw new IllegalStateException(option);
            };
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }
}
