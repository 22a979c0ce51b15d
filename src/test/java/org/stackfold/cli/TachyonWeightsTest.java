package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tachyon stores one record per sample: weights that are times become one sample per interval, and
 * more samples than the writer's limit is a one-line refusal, never an endless write.
 */
class TachyonWeightsTest {
    @TempDir
    Path dir;

    private static final String TWO = "/formats/speedscope/0.6.0_two-sampled.speedscope.json";

    @Test
    void timeWeightsBecomeOneSamplePerInterval() throws Exception {
        Path bin = dir.resolve("two.bin");
        run(0, "convert", res(TWO), "-o", bin.toString()); // 28 s of weights in seconds
        assertThat(run(0, "convert", bin.toString(), "--to", "folded"))
                .isEqualTo("tid:0;a;b 10000\ntid:0;a;b;c 10000\ntid:0;a;b;d 8000\n");
        run(0, "convert", res(TWO), "--tachyon-interval", "1000000", "-o", bin.toString());
        assertThat(run(0, "convert", bin.toString(), "--to", "folded"))
                .isEqualTo("tid:0;a;b 10\ntid:0;a;b;c 10\ntid:0;a;b;d 8\n");
    }

    @Test
    void countsPastTheLimitAreRefusedInOneLine() throws Exception {
        Path in = Files.writeString(dir.resolve("big.folded"), "a;b 100000000000\n");
        Path out = dir.resolve("big.bin");
        StringWriter err = new StringWriter();
        int code = Main.run(new String[] {"convert", in.toString(), "-o", out.toString()}, new ByteArrayOutputStream(),
                new PrintWriter(err, true));
        assertThat(code).isEqualTo(1);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .contains("more than 10000000 Tachyon samples");
        assertThat(out).doesNotExist();
    }

    @Test
    void timesPastTheLimitSayWhichOptionHelps() throws Exception {
        Path in = Files.writeString(dir.resolve("long.speedscope.json"), """
                {"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"}]},
                 "profiles":[{"type":"sampled","name":"p","unit":"seconds","startValue":0,"endValue":100000,
                 "samples":[[0]],"weights":[100000]}]}""");
        StringWriter err = new StringWriter();
        int code = Main.run(new String[] {"convert", in.toString(), "-o", dir.resolve("x.bin").toString()},
                new ByteArrayOutputStream(), new PrintWriter(err, true));
        assertThat(code).isEqualTo(1);
        assertThat(err.toString()).contains("--tachyon-interval");
    }

    private static String res(String name) throws URISyntaxException {
        return Path.of(TachyonWeightsTest.class.getResource(name).toURI()).toString();
    }

    private static String run(int expected, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        assertThat(Main.run(args, out, new PrintWriter(err, true))).as(err.toString()).isEqualTo(expected);
        return out.toString(StandardCharsets.UTF_8);
    }
}
