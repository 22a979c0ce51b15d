package org.stackfold.format.tachyon;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The text of a Tachyon frame in folded output. The default reproduces CPython's
 * {@code CollapsedStackCollector}: {@code basename(file):function:line}, with line 0 where the
 * location is unknown, and the bare function name for the profiler's synthetic frames (file
 * {@code ~}, line 0, e.g. {@code <GC>}, {@code <native>}).
 */
final class FrameLabels {
    /** Frames of the profiler's own start-up code, which CPython's collectors leave out. */
    private static final byte[] INTERNAL_SUFFIX = "_sync_coordinator.py".getBytes(StandardCharsets.US_ASCII);

    private FrameLabels() {
    }

    static boolean isInternal(byte[] file) {
        int n = INTERNAL_SUFFIX.length;
        if (file.length < n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (file[file.length - n + i] != INTERNAL_SUFFIX[i]) {
                return false;
            }
        }
        return true;
    }

    static boolean isSynthetic(byte[] file) {
        return file.length == 1 && file[0] == '~';
    }

    static byte[] label(TachyonOptions.Naming naming, byte[] file, byte[] func, int line) {
        int shownLine = line == Tachyon.NO_LOCATION ? 0 : line;
        if (isSynthetic(file) && shownLine == 0 || naming == TachyonOptions.Naming.FUNCTION) {
            return func;
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream(file.length + func.length + 12);
        if (naming == TachyonOptions.Naming.CPYTHON) {
            int slash = file.length - 1;
            while (slash >= 0 && file[slash] != '/') {
                slash--;
            }
            b.write(file, slash + 1, file.length - slash - 1);
        } else {
            b.writeBytes(file);
        }
        b.write(':');
        b.writeBytes(func);
        if (naming != TachyonOptions.Naming.FILE) {
            b.write(':');
            b.writeBytes(Integer.toString(shownLine).getBytes(StandardCharsets.US_ASCII));
        }
        return b.toByteArray();
    }
}
