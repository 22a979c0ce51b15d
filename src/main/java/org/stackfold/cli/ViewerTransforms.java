package org.stackfold.cli;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.render.viewer.ViewerData;
import org.stackfold.transform.CollapseRecursion;
import org.stackfold.transform.FocusPath;
import org.stackfold.transform.FramePattern;
import org.stackfold.transform.Hide;
import org.stackfold.transform.Ignore;
import org.stackfold.transform.ShowFrom;
import org.stackfold.transform.Transform;

/**
 * {@code --transforms HASH}: a viewer URL's transform chain (its {@code t=} value:
 * {@code focus:3.7,merge:12,...}) replayed on the profile. The page numbers frames in the order of
 * its preorder ({@link ViewerData#frameOrder}), so the numbers mean the same frames only for the same
 * profile read the same way; each viewer transform is the Java rule with the same result
 * (docs/transforms.md): focus → {@link FocusPath}, focusfn → {@link ShowFrom}, merge → {@link Hide},
 * drop → {@link Ignore}, rec → {@link CollapseRecursion}, each on the exact frame id. As in the
 * viewer, a focus whose path no stack begins with any more (after an earlier transform) changes nothing.
 */
public final class ViewerTransforms implements Transform {
    private final String text;
    private final List<String[]> items = new ArrayList<>();

    public ViewerTransforms(String spec) {
        this.text = spec;
        String t = spec;
        int hash = t.indexOf('#');
        if (hash >= 0) {
            t = t.substring(hash + 1);
        }
        if (t.contains("=") || t.contains("&")) {
            String found = null;
            for (String kv : t.split("&")) {
                if (kv.startsWith("t=")) {
                    found = java.net.URLDecoder.decode(kv.substring(2), java.nio.charset.StandardCharsets.UTF_8);
                }
            }
            if (found == null) {
                throw new IllegalArgumentException("--transforms: no t= (transforms) in '" + spec + "'");
            }
            t = found;
        }
        for (String item : t.split(",")) {
            if (item.isEmpty()) {
                continue;
            }
            String[] kv = item.split(":", 2);
            if (kv.length != 2 || !List.of("focus", "focusfn", "merge", "drop", "rec").contains(kv[0])
                    || !kv[1].matches("[0-9]+(\\.[0-9]+)*") || (!kv[0].equals("focus") && kv[1].contains("."))) {
                throw new IllegalArgumentException("--transforms: '" + item + "' is not a viewer transform"
                        + " (focus:F.F..., focusfn:F, merge:F, drop:F, rec:F)");
            }
            items.add(kv);
        }
    }

    @Override
    public String describe() {
        return "--transforms " + text;
    }

    @Override
    public Profile apply(Profile p) {
        int[] ids = ViewerData.frameOrder(p);
        FrameTable frames = p.frames();
        for (String[] item : items) {
            String[] parts = item[1].split("\\.");
            int[] path = new int[parts.length];
            List<String> names = new ArrayList<>();
            for (int i = 0; i < parts.length; i++) {
                int v = Integer.parseInt(parts[i]);
                if (v >= ids.length) {
                    throw new IllegalArgumentException("--transforms: frame " + v + " of '" + item[0] + ":" + item[1]
                            + "' is not in this profile (" + ids.length + " frames): replay a URL on the profile it was made from");
                }
                path[i] = ids[v];
                names.add(frames.name(ids[v]));
            }
            // A page frame is a function: every model frame of its name and file (ViewerData).
            BitSet one = new BitSet();
            String key = ViewerData.functionKey(frames, path[0]);
            for (int f = 0; f < frames.size(); f++) {
                if (ViewerData.functionKey(frames, f).equals(key)) {
                    one.set(f);
                }
            }
            FramePattern f = FramePattern.ids(one, names.getFirst());
            Transform step = switch (item[0]) {
                case "focus" -> new FocusPath(path, names);
                case "focusfn" -> new ShowFrom(f);
                case "merge" -> new Hide(f, "--merge");
                case "drop" -> new Ignore(f);
                default -> new CollapseRecursion(f);
            };
            Profile next = step.apply(p);
            if (!(step instanceof FocusPath && next.isEmpty() && !p.isEmpty())) {
                p = next;
            }
        }
        return p;
    }
}
