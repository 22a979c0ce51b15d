package org.stackfold.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stackfold.cli.CliRun.run;

import io.opentelemetry.proto.profiles.v1development.ProfilesData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** OTLP files through the CLI: convert both ways, detection without a telling name, info, bad files; record --push's checks. */
class OtlpCliTest {
    @TempDir
    Path dir;

    @Test
    void convertsToOtlpAndBack() throws IOException {
        Path in = dir.resolve("in.folded");
        Files.writeString(in, "main;a;b 3\nmain;c 4\nmain;a 1\n");
        Path otlp = dir.resolve("out.otlp.pb");
        assertThat(run("convert", in.toString(), "-o", otlp.toString()).code()).isZero();
        ProfilesData d = ProfilesData.parseFrom(Files.readAllBytes(otlp));
        assertThat(d.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0).getSamplesCount()).isEqualTo(3);
        Path plain = dir.resolve("no-extension");
        assertThat(run("convert", in.toString(), "--to", "otlp", "-o", plain.toString()).code()).isZero();
        Path gz = dir.resolve("out.otlp.pb.gz");
        assertThat(run("convert", in.toString(), "-o", gz.toString()).code()).isZero();
        for (Path p : new Path[] {otlp, plain, gz}) {
            CliRun back = run("convert", p.toString());
            assertThat(back.code()).as(back.err()).isZero();
            assertThat(back.out()).isEqualTo("main;a 1\nmain;a;b 3\nmain;c 4\n");
        }
        CliRun info = run("info", plain.toString());
        assertThat(info.code()).as(info.err()).isZero();
        assertThat(info.out()).contains("format             otlp").contains("stacks             4")
                .contains("  profile 0.0      samples/count (type 0): 3 samples, 3 observations, total 8");
    }

    @Test
    void aDamagedFileIsOneLineNamingIt() throws IOException {
        Path in = dir.resolve("in.folded");
        Files.writeString(in, "main;a;b 3\nmain;c 4\n");
        Path otlp = dir.resolve("x.otlp.pb");
        run("convert", in.toString(), "-o", otlp.toString());
        byte[] b = Files.readAllBytes(otlp);
        Files.write(otlp, java.util.Arrays.copyOf(b, b.length - 3));
        CliRun r = run("convert", otlp.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).startsWith("stackfold: " + otlp).contains("byte").hasLineCount(1);
    }

    @Test
    void recordPushGzipReachesThePusher() {
        picocli.CommandLine cl = Main.commandLine("record", "--push", "http://127.0.0.1:1", "--push-protocol", "otlp",
                "--push-gzip", "-d", "1");
        cl.parseArgs("record", "--push", "http://127.0.0.1:1", "--push-protocol", "otlp", "--push-gzip", "-d", "1");
        RecordCommand record = cl.getSubcommands().get("record").getCommand();
        record.push.checkTogether();
        assertThat(record.push.options.gzip).isTrue();
    }

    @Test
    void recordPushOptionsAreCheckedBeforeRecording() {
        assertThat(run("record", "--push", "ftp://x", "-d", "1").code()).isEqualTo(2);
        assertThat(run("record", "--push", "http://127.0.0.1:1", "--label", "bad", "-d", "1").code()).isEqualTo(2);
        assertThat(run("record", "--push", "http://127.0.0.1:1", "--push-protocol", "grpc", "-d", "1").code()).isEqualTo(2);
        CliRun gzipPyroscope = run("record", "--push", "http://127.0.0.1:1", "--push-gzip", "-d", "1");
        assertThat(gzipPyroscope.code()).isEqualTo(2);
        assertThat(gzipPyroscope.err()).contains("--push-gzip applies to --push-protocol otlp only");
        CliRun gzipAlone = run("record", "--push-gzip", "-d", "1");
        assertThat(gzipAlone.code()).isEqualTo(2);
        assertThat(gzipAlone.err()).contains("--push-gzip needs --push URL");
        CliRun labelAlone = run("record", "--label", "version=1", "-d", "1");
        assertThat(labelAlone.code()).isEqualTo(2);
        assertThat(labelAlone.err()).contains("--label needs --store DIR or --push URL");
        assertThat(run("record", "--help").out()).contains("--push=URL").contains("--push-protocol");
    }
}
