package org.stackfold.collapse.perf;

import org.stackfold.perf.PerfBytes;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The line cache's run comparison: a guess is compared together with the lines first seen after
 * it, and the bytes it reports equal must cover whole lines (with their newlines) only where they
 * are the input's lines; the parser then takes every entry after the guess within those bytes.
 */
class LineCacheTest {
    private static final String[] LINES = {"\t 1 a (m)", "\t 2 bb (m)", "\t 3 ccc (m)", "\t 4 dddd (m)"};

    /** A cache holding the four lines in order, each guessed after the one before. */
    private static LineCache cache(boolean... javaOfLine) {
        LineCache c = new LineCache();
        for (int i = 0; i < LINES.length; i++) {
            byte[] b = LINES[i].getBytes(StandardCharsets.US_ASCII);
            int id = c.put(PerfBytes.hash(b, 0, b.length), javaOfLine.length > 0 && javaOfLine[i], b, 0, b.length, ~i);
            assertThat(id).isEqualTo(i);
            if (i > 0) {
                c.followed(i - 1, i);
            }
        }
        return c;
    }

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** The entries the parser takes: the guess, then each next entry wholly within the bytes matched. */
    private static int taken(LineCache c, int matched, boolean java) {
        if (matched == 0) {
            return 0;
        }
        int id = c.runFirst;
        int n = 0;
        int at = 0;
        while (true) {
            n++;
            at += c.length(id) + 1;
            if (!c.inRun(++id, at, matched, java)) {
                return n;
            }
        }
    }

    @Test
    void oneComparisonCoversTheLinesFirstSeenTogether() {
        LineCache c = cache();
        byte[] b = text(LINES[1] + "\n" + LINES[2] + "\n" + LINES[3] + "\n\n");
        int m = c.matchRun(0, b, 0, b.length, -1);
        assertThat(c.runFirst).isEqualTo(1);
        assertThat(m).isGreaterThanOrEqualTo(b.length - 1);
        assertThat(taken(c, m, false)).isEqualTo(3);
    }

    @Test
    void theRunStopsAtTheFirstLineThatDiffers() {
        LineCache c = cache();
        byte[] b = text(LINES[1] + "\n" + LINES[2] + "X\n" + LINES[3] + "\n");
        int m = c.matchRun(0, b, 0, b.length, -1);
        assertThat(taken(c, m, false)).isEqualTo(1);
        // A line that is a prefix of the cached one is not it.
        b = text(LINES[1] + "\n\t 3 cc\n");
        assertThat(taken(c, c.matchRun(0, b, 0, b.length, -1), false)).isEqualTo(1);
    }

    @Test
    void aLineCutByTheBlockEndIsNotTaken() {
        LineCache c = cache();
        byte[] b = text(LINES[1] + "\n" + LINES[2] + "\n" + LINES[3]);
        assertThat(taken(c, c.matchRun(0, b, 0, b.length, -1), false)).isEqualTo(2);
        // Nor is the guess itself without its newline in the block.
        assertThat(c.matchRun(0, b, 0, LINES[1].length(), -1)).isZero();
    }

    @Test
    void aGuessThatIsNotTheLineMatchesNothing() {
        LineCache c = cache();
        byte[] b = text(LINES[3] + "\n");
        assertThat(c.matchRun(0, b, 0, b.length, -1)).isZero();
        assertThat(c.matchRun(3, b, 0, b.length, -1)).isZero(); // no guess after the last line
    }

    @Test
    void theSecondGuessIsTriedToo() {
        LineCache c = cache();
        c.followed(0, 3); // now 3 first, 1 second
        byte[] b = text(LINES[1] + "\n" + LINES[2] + "\n");
        int m = c.matchRun(0, b, 0, b.length, -1);
        assertThat(c.runFirst).isEqualTo(1);
        assertThat(taken(c, m, false)).isEqualTo(2);
    }

    @Test
    void aSecondGuessThatWasRightBecomesTheFirst() {
        LineCache c = cache();
        c.followed(0, 3);
        byte[] b = text(LINES[1] + "\n");
        assertThat(c.matchRun(0, b, 0, b.length, -1)).isPositive();
        // Line 3 is now the second guess: a known mismatch on 1 leaves only it to try.
        b = text(LINES[3] + "\n");
        assertThat(c.matchRun(0, b, 0, b.length, 1)).isPositive();
        assertThat(c.runFirst).isEqualTo(3);
    }

    @Test
    void anEntryKnownToDifferIsNotTried() {
        LineCache c = cache();
        byte[] b = text(LINES[1] + "\n");
        assertThat(c.matchRun(0, b, 0, b.length, 1)).isZero();
    }

    @Test
    void entriesOfTheOtherKindOfProcessEndTheRun() {
        // Lines 2 and 3 were put for a Java process: a non-Java sample's run stops before them.
        LineCache c = cache(false, false, true, true);
        byte[] b = text(LINES[1] + "\n" + LINES[2] + "\n" + LINES[3] + "\n");
        assertThat(taken(c, c.matchRun(0, b, 0, b.length, -1), false)).isEqualTo(1);
    }
}
