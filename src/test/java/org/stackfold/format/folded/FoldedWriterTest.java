package org.stackfold.format.folded;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.testing.Folded;

/** One test per writing rule of docs/formats/folded.md. */
class FoldedWriterTest {
    private static String normalise(String text) {
        return Folded.write(Folded.read(text).profile());
    }

    @Test
    void oneSpaceNoLeadingOrTrailingWhiteSpaceFinalNewline() {
        assertThat(normalise("  a;b \t 3  \r\n")).isEqualTo("a;b 3\n");
    }

    @Test
    void noDuplicatesAndNoEmptyLines() {
        assertThat(normalise("a 1\n\nb 2\na 3\n\n")).isEqualTo("a 4\nb 2\n");
    }

    @Test
    void emptyProfileWritesNothing() {
        assertThat(normalise("")).isEmpty();
    }

    @Test
    void zeroCountsAreLeftOut() {
        assertThat(normalise("a 0\nb 1\n")).isEqualTo("b 1\n");
    }

    @Test
    void orderIsTheByteOrderOfStacksAsSortWouldGive() {
        String in = "main;foo 1\nmain 2\nmain;Foo 3\nmain;foo;bar 4\nmain;foo1 5\nmain;foo 1;x 6\n"
                + "main;foo!;x 7\nmain;fo 8\nzeta 9\nAlpha 10\nmain;\u00e9 11\n";
        String out = normalise(in);
        List<String> lines = Arrays.asList(out.split("\n"));
        List<String> stacksSorted = new ArrayList<>(lines);
        // LC_ALL=C sort of the stack field: compare as UTF-8 bytes, unsigned.
        stacksSorted.sort((x, y) -> Arrays.compareUnsigned(stack(x), stack(y)));
        assertThat(lines).isEqualTo(stacksSorted);
    }

    @Test
    void aRecordPrecedesASiblingsSubtreeWhereByteOrderSaysSo() {
        // "a;x" < "a;x!;y" < "a;x;z" in byte order, though frame "x!" ranks before frame "x".
        assertThat(normalise("a;x;z 3\na;x!;y 2\na;x 1\n")).isEqualTo("a;x 1\na;x!;y 2\na;x;z 3\n");
        assertThat(normalise("r;ab;q 1\nr;abc!;q 2\nr;abc 3\nr;abc;q 4\nr;ab 5\n"))
                .isEqualTo("r;ab 5\nr;ab;q 1\nr;abc 3\nr;abc!;q 2\nr;abc;q 4\n");
    }

    @Test
    void differentialWritesBothCounts() {
        Profile p = Folded.read("a;b 1 2\nc 0 5\n".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                FoldedReader.Mode.DIFFERENTIAL, false, 1, new ArrayList<>()).profile();
        assertThat(Folded.write(p)).isEqualTo("a;b 1 2\nc 0 5\n");
    }

    @Test
    void framesThatDifferOnlyInLocationBecomeOneName() {
        Profile p = new Profile();
        FrameTable f = p.frames();
        int main = f.plain("main");
        int l1 = f.frame("work", FrameKind.PYTHON, "a.py", 10, 10, 0, 5, FrameTable.NONE);
        int l2 = f.frame("work", FrameKind.PYTHON, "a.py", 20, 20, 0, 5, FrameTable.NONE);
        p.addStack(new int[] {main, l1}, 2, 3);
        p.addStack(new int[] {main, l2}, 2, 4);
        assertThat(Folded.write(p)).isEqualTo("main;work 7\n");
    }

    @Test
    void consumingTheTreeWritesWhatCopyingItWrites() throws java.io.IOException {
        // Names that differ only by white space at their ends merge when written: the consuming
        // writer renames the tree in place of copying it, and must give the same bytes.
        String[] names = {"a", " a", "a ", "b", "b\t", "c", " c ", "d"};
        for (long seed = 1; seed <= 40; seed++) {
            java.util.Random r = new java.util.Random(seed);
            boolean diff = seed % 2 == 0;
            StringBuilder text = new StringBuilder();
            for (int line = 0; line < 60; line++) {
                int depth = 1 + r.nextInt(5);
                for (int d = 0; d < depth; d++) {
                    text.append(d == 0 ? "" : ";").append(names[r.nextInt(names.length)]).append(d == depth - 1 ? "x" : "");
                }
                text.append(' ').append(r.nextInt(4));
                if (diff) {
                    text.append(' ').append(r.nextInt(4));
                }
                text.append('\n');
            }
            byte[] data = text.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            FoldedReader.Mode mode = diff ? FoldedReader.Mode.DIFFERENTIAL : FoldedReader.Mode.PLAIN;
            Profile copied = Folded.read(data, mode, false, 1, new ArrayList<>()).profile();
            Profile consumed = Folded.read(data, mode, false, 1, new ArrayList<>()).profile();
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            new FoldedWriter(diff).consumingTree().write(consumed, out);
            assertThat(out.toString(java.nio.charset.StandardCharsets.UTF_8)).as("seed %d", seed).isEqualTo(Folded.write(copied));
            assertThat(consumed.tree().size()).as("the consumed tree is left empty").isEqualTo(1);
        }
    }

    private static byte[] stack(String line) {
        return line.substring(0, line.lastIndexOf(' ')).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}
