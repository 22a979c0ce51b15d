package org.stackfold.format.tachyon;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/** Our writer, given the samples of each CPython-written fixture, writes CPython's bytes. */
class TachyonWriterTest {
    static final List<String> GOOD = Fixtures.GOOD;

    static byte[] rewrite(TachyonFile f, TachyonWriter.Settings settings) throws IOException {
        TachyonWriter w = new TachyonWriter(settings, FrameSource.of(f));
        for (ArrivalOrder.Sample s : ArrivalOrder.of(f)) {
            w.sample(s.tid(), s.interp(), s.status(), s.timestamp(), s.frames(), s.frames().length);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        w.finish(out);
        return out.toByteArray();
    }

    @ParameterizedTest
    @FieldSource("GOOD")
    void sameBytesAsCPython(String name) throws IOException {
        TachyonFile f = Fixtures.open(name);
        byte[] ours = rewrite(f, TachyonWriter.Settings.of(f));
        byte[] theirs = Fixtures.bytes(name + ".bin");
        assertThat(ours.length).isEqualTo(theirs.length);
        assertThat(java.util.Arrays.mismatch(ours, theirs)).isEqualTo(-1);
    }

    @ParameterizedTest
    @FieldSource("GOOD")
    void otherByteOrderAndCompressionDecodeTheSame(String name) throws IOException {
        TachyonFile f = Fixtures.open(name);
        List<String> expected = Fixtures.decodeSamples(f);
        TachyonWriter.Settings s = TachyonWriter.Settings.of(f);
        ByteOrder other = f.byteOrder() == ByteOrder.BIG_ENDIAN ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
        for (TachyonWriter.Settings variant : List.of(s.withOrder(other),
                s.withCompression(1 - s.compression()), s.withOrder(other).withCompression(1 - s.compression()))) {
            byte[] b = rewrite(f, variant);
            TachyonFile g = TachyonFile.open("rewritten", MemorySegment.ofArray(b));
            assertThat(g.byteOrder()).isEqualTo(variant.order());
            assertThat(Fixtures.decodeSamples(g)).isEqualTo(expected);
        }
    }
}
