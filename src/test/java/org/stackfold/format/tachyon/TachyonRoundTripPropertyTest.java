package org.stackfold.format.tachyon;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded property: random sample streams (threads in several interpreters, stacks that grow,
 * shrink, change at the bottom or stay, deep stacks, every status byte, odd time steps including
 * backwards ones) written by our writer in either byte order, raw or zstd, read back as the same
 * samples per thread (stacks cut to their innermost 256 frames).
 */
class TachyonRoundTripPropertyTest {
    static IntStream seeds() {
        return IntStream.range(0, 40);
    }

    private record Frame(String file, String func, int line, int endLine, int col, int endCol, int opcode) {
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void writtenSamplesReadBack(int seed) throws IOException {
        SplittableRandom r = new SplittableRandom(seed);
        int nFrames = 1 + r.nextInt(60);
        List<Frame> frames = new ArrayList<>();
        for (int i = 0; i < nFrames; i++) {
            int line = r.nextInt(5) == 0 ? -1 : r.nextInt(2000);
            int endLine = line == -1 ? -1 : line + r.nextInt(3);
            int col = r.nextInt(4) == 0 ? -1 : r.nextInt(80);
            int endCol = col == -1 ? -1 : col + r.nextInt(20);
            frames.add(new Frame(r.nextInt(6) == 0 ? "~" : "/src/m" + r.nextInt(5) + ".py", "f" + r.nextInt(40) + "é",
                    line, endLine, col, endCol, r.nextInt(3) == 0 ? 255 : r.nextInt(255)));
        }
        FrameSource src = new FrameSource() {
            @Override
            public byte[] file(int f) {
                return frames.get(f).file().getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public byte[] function(int f) {
                return frames.get(f).func().getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public int line(int f) {
                return frames.get(f).line();
            }

            @Override
            public int endLine(int f) {
                return frames.get(f).endLine();
            }

            @Override
            public int column(int f) {
                return frames.get(f).col();
            }

            @Override
            public int endColumn(int f) {
                return frames.get(f).endCol();
            }

            @Override
            public int opcode(int f) {
                return frames.get(f).opcode();
            }
        };
        int nThreads = 1 + r.nextInt(6);
        long[] tids = new long[nThreads];
        int[] interps = new int[nThreads];
        int[][] stacks = new int[nThreads][];
        long[] time = new long[nThreads];
        for (int t = 0; t < nThreads; t++) {
            tids[t] = r.nextInt(3) == 0 ? r.nextLong() : r.nextInt(100);
            interps[t] = r.nextInt(4) == 0 ? r.nextInt() : 0;
            stacks[t] = new int[0];
        }
        TachyonWriter.Settings settings = TachyonWriter.Settings.defaults()
                .withCompression(r.nextBoolean() ? 1 : 0)
                .withOrder(r.nextBoolean() ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN)
                .withTiming(r.nextLong(), 1 + r.nextInt(5000));
        TachyonWriter w = new TachyonWriter(settings, src);
        List<String> expected = new ArrayList<>();
        for (int t = 0; t < nThreads; t++) {
            time[t] = settings.startTime();
        }
        int n = r.nextInt(3000);
        for (int i = 0; i < n; i++) {
            int t = r.nextInt(nThreads);
            int[] s = stacks[t];
            switch (r.nextInt(6)) {
                case 0 -> { // push
                    int k = 1 + r.nextInt(4);
                    int[] b = new int[s.length + k];
                    for (int j = 0; j < k; j++) {
                        b[j] = r.nextInt(nFrames);
                    }
                    System.arraycopy(s, 0, b, k, s.length);
                    s = b;
                }
                case 1 -> s = Arrays.copyOfRange(s, Math.min(s.length, r.nextInt(4)), s.length); // pop
                case 2 -> { // fresh stack, sometimes deep
                    s = new int[r.nextInt(8) == 0 ? 250 + r.nextInt(20) : r.nextInt(12)];
                    for (int j = 0; j < s.length; j++) {
                        s[j] = r.nextInt(nFrames);
                    }
                }
                case 3 -> { // change the top frame
                    if (s.length > 0) {
                        s = s.clone();
                        s[0] = r.nextInt(nFrames);
                    }
                }
                default -> {
                    // unchanged: a repeat
                }
            }
            stacks[t] = s;
            long step = switch (r.nextInt(20)) {
                case 0 -> -r.nextInt(100_000);
                case 1 -> 0;
                case 2 -> 1L << (30 + r.nextInt(20));
                default -> r.nextInt(2000);
            };
            time[t] += step;
            int status = r.nextInt(256);
            w.sample(tids[t], interps[t], status, time[t], s, s.length);
            expected.add(line(tids[t], interps[t], status, time[t],
                    Arrays.stream(s).limit(256).mapToObj(f -> String.valueOf(frames.get(f))).toList()));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        w.finish(out);

        TachyonFile f = TachyonFile.open("rt", MemorySegment.ofArray(out.toByteArray()));
        assertThat(f.byteOrder()).isEqualTo(settings.order());
        assertThat(f.sampleCount()).isEqualTo(n);
        List<String> actual = new ArrayList<>();
        new TachyonReplay(f).run((t, status, ts, k) -> {
            List<String> fr = new ArrayList<>();
            for (int i = t.depth() - 1; i >= 0; i--) {
                int x = t.frame(i);
                fr.add(String.valueOf(new Frame(new String(f.string(f.frameFile(x)), StandardCharsets.UTF_8),
                        new String(f.string(f.frameFunc(x)), StandardCharsets.UTF_8), f.frameLine(x),
                        f.frameEndLine(x), f.frameColumn(x), f.frameEndColumn(x), f.frameOpcode(x))));
            }
            for (int i = 0; i < k; i++) {
                actual.add(line(t.threadId(), t.interpreterId(), status, ts[i], fr));
            }
        });
        // Records of different threads interleave differently (repeats are written late): compare per thread.
        assertThat(byThread(actual)).isEqualTo(byThread(expected));
    }

    private static String line(long tid, int interp, int status, long ts, List<String> frames) {
        return tid + "/" + interp + " " + status + " " + ts + " " + frames;
    }

    private static List<String> byThread(List<String> lines) {
        return lines.stream().sorted(java.util.Comparator.comparing(s -> s.substring(0, s.indexOf(' ')))).toList();
    }
}
