package org.stackfold.format;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.util.List;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/**
 * One file format Stackfold reads and/or writes. Each format package has one implementation,
 * registered in {@link Formats}; {@code stackfold convert} and every command that takes a profile
 * find formats through there.
 */
public interface ProfileFormat {
    /** Name used with {@code --from}/{@code --to}, e.g. "folded", "tachyon". */
    String name();

    /** File name endings, without the dot, longest first ("diff.folded" before "folded"). */
    List<String> extensions();

    /** File name beginnings that name this format ("callgrind.out" for callgrind.out.1234). */
    default List<String> namePrefixes() {
        return List.of();
    }

    /** True where the first bytes of a file (decompressed, at most 4 KiB) are surely this format. */
    default boolean sniff(byte[] head, int length) {
        return false;
    }

    default boolean canRead() {
        return true;
    }

    default boolean canWrite() {
        return true;
    }

    /**
     * False where what is written cannot give back the stacks it was given: callgrind writes a call
     * graph, and reading a graph back makes a tree by a rule, not the original stacks.
     */
    default boolean keepsStacks() {
        return true;
    }

    /** True where {@link #write} compresses by itself (pprof is gzip by definition), so no .gz layer goes around it. */
    default boolean writesCompressed() {
        return false;
    }

    Profile read(Input in, FormatOptions options) throws IOException;

    void write(Profile profile, OutputStream out, FormatOptions options) throws IOException;

    /**
     * Prints what {@code stackfold info} shows for a file of this format, where the format knows more
     * than the generic profile summary (headers, statistics, encodings). Returns false to get the
     * generic summary instead.
     */
    default boolean describe(Input in, FormatOptions options, PrintWriter out) throws IOException {
        return false;
    }
}
