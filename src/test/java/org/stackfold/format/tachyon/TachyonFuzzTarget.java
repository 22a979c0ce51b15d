package org.stackfold.format.tachyon;

/** Entry point for Jazzer run as a program ({@code com.code_intelligence.jazzer.Jazzer --target_class=...}). */
public final class TachyonFuzzTarget {
    private TachyonFuzzTarget() {
    }

    public static void fuzzerTestOneInput(byte[] data) {
        TachyonFuzzing.check(data);
    }
}
