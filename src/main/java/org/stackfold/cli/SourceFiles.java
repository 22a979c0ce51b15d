package org.stackfold.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The text of the source files a profile names, for the viewer's source view: read where readable at
 * {@code view} time, bounded, and only for names that look like source code. A profile from elsewhere
 * may name any file (a key, a password file): only files with a source extension, regular, at most
 * {@link #MAX_FILE} bytes each, valid UTF-8 without NUL bytes, and at most {@link #MAX_TOTAL} bytes in
 * all are embedded; the rest are left out silently (the page then shows line numbers alone).
 */
final class SourceFiles {
    static final int MAX_FILE = 1 << 20;
    static final long MAX_TOTAL = 16L << 20;
    private static final Set<String> EXTENSIONS = Set.of(
            "py", "pyx", "pxd", "pyi", "java", "kt", "kts", "scala", "groovy", "clj", "c", "h", "cc", "cpp", "cxx",
            "hpp", "hh", "hxx", "inl", "ipp", "tcc", "m", "mm", "go", "s", "rs", "js", "mjs", "cjs", "jsx", "ts", "tsx",
            "mts", "cts", "vue", "svelte", "rb", "php", "cs", "fs", "vb", "swift", "zig", "d", "nim", "lua", "pl",
            "pm", "sh", "bash", "asm", "f", "f90", "f95", "hs", "ml", "mli", "ex", "exs", "erl", "hrl", "dart",
            "jl", "r", "cu", "cuh", "v", "sv", "vhd", "sql", "el", "lisp", "scm", "rkt", "ada", "adb", "ads");

    private SourceFiles() {
    }

    /** File name as the profile names it -> text, for those found (as named, then under each root). */
    static Map<String, String> read(Set<String> names, List<String> roots) {
        Map<String, String> texts = new TreeMap<>();
        long total = 0;
        List<String> dirs = roots.isEmpty() ? List.of(".") : roots;
        for (String name : names) {
            if (!isSource(name)) {
                continue;
            }
            String text = null;
            for (Path p : candidates(name, dirs)) {
                text = text(p);
                if (text != null) {
                    break;
                }
            }
            if (text == null || total + text.length() > MAX_TOTAL) {
                continue;
            }
            total += text.length();
            texts.put(name, text);
        }
        return texts;
    }

    static boolean isSource(String name) {
        int dot = name.lastIndexOf('.');
        int slash = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
        return dot > slash + 1 && EXTENSIONS.contains(name.substring(dot + 1).toLowerCase(Locale.ROOT));
    }

    /** The name as given (strip a file: URL), then under each root by its last 1..n path components, longest first. */
    private static List<Path> candidates(String name, List<String> roots) {
        String n = name.startsWith("file://") ? name.substring("file://".length()) : name;
        List<Path> out = new java.util.ArrayList<>();
        try {
            out.add(Path.of(n));
            String[] parts = n.replace('\\', '/').split("/+");
            for (String root : roots) {
                for (int k = 0; k < parts.length; k++) {
                    if (parts[k].isEmpty() || parts[k].equals("..")) {
                        continue;
                    }
                    out.add(Path.of(root, java.util.Arrays.copyOfRange(parts, k, parts.length)));
                }
            }
        } catch (InvalidPathException e) {
            // a name that is no path of this system
        }
        return out;
    }

    /** The file's text where it is a regular file of at most MAX_FILE bytes of UTF-8 without NUL, else null. */
    private static String text(Path p) {
        try {
            if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(p)) {
                return null;
            }
            byte[] b;
            try (InputStream in = Files.newInputStream(p)) {
                b = in.readNBytes(MAX_FILE + 1);
            }
            if (b.length > MAX_FILE) {
                return null;
            }
            for (byte x : b) {
                if (x == 0) {
                    return null;
                }
            }
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
        } catch (IOException | SecurityException e) {
            return null; // CharacterCodingException included: not text
        }
    }
}
