package org.stackfold.format.tachyon;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import org.stackfold.io.InputException;

/**
 * Coverage-guided fuzzing of the reader with Jazzer: any bytes must either decode or fail with an
 * {@link InputException}; nothing else may escape (no other exception, no OutOfMemoryError, no hang).
 */
class TachyonFuzzTest {
    @FuzzTest(maxDuration = "45s")
    void readAnything(byte[] data) {
        TachyonFuzzing.check(data);
    }
}
