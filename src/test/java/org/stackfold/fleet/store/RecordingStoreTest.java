package org.stackfold.fleet.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.fleet.query.FleetQuery;
import org.stackfold.io.UsageException;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

/** The labels {@code record --store} gives a profile, and the library path it takes, without recording. */
class RecordingStoreTest {
    @TempDir
    Path dir;

    private static Labels labels(List<String> given, List<String> command, List<Integer> pids) {
        return RecordingStore.labels(given, command, pids, pid -> pid == 42 ? "kworker/0:1" : null, "build-7.example");
    }

    @Test
    void labelsGivenWin() {
        assertThat(labels(List.of("service=api", "host=h1", "env=prod"), List.of("make"), List.of()))
                .isEqualTo(new Labels("api", "h1", "env=prod"));
    }

    @Test
    void hostDefaultsToTheMachinesNameServiceToTheCommandsName() {
        assertThat(labels(List.of(), List.of("/usr/bin/python3", "app.py"), List.of()))
                .isEqualTo(new Labels("python3", "build-7.example", ""));
        assertThat(labels(List.of("version=2"), List.of("make", "-j2"), List.of()))
                .isEqualTo(new Labels("make", "build-7.example", "version=2"));
    }

    @Test
    void serviceOfProcessesIsTheFirstOnesNameMadeFitForADirectory() {
        assertThat(labels(List.of(), List.of(), List.of(42, 7)).service()).isEqualTo("kworker_0_1");
        assertThat(labels(List.of(), List.of(), List.of(7)).service()).as("gone before it was read")
                .isEqualTo(RecordingStore.WHOLE_SYSTEM);
    }

    @Test
    void aWholeSystemRecordingIsServiceSystem() {
        assertThat(labels(List.of(), List.of(), List.of()).service()).isEqualTo("system");
        assertThat(RecordingStore.labels(List.of(), List.of(), List.of(), pid -> null, null))
                .isEqualTo(new Labels("system", "", ""));
    }

    @Test
    void labelValuesKeepOnlySafeCharacters() {
        assertThat(RecordingStore.labelValue("my app (v2)")).isEqualTo("my_app__v2_");
        assertThat(RecordingStore.labelValue("..")).isEqualTo("__");
        assertThat(RecordingStore.labelValue("a.b-c_d9")).isEqualTo("a.b-c_d9");
        assertThat(RecordingStore.labelValue(" ")).isEmpty();
        assertThat(RecordingStore.labelValue(null)).isEmpty();
    }

    @Test
    void aMistypedLabelFailsBeforeRecording() {
        assertThatThrownBy(() -> RecordingStore.begin(dir, List.of("service"), List.of(), List.of()))
                .isInstanceOf(UsageException.class).hasMessageContaining("NAME=VALUE");
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void theSourceColumnSaysWhatWasRecorded() {
        assertThat(RecordingStore.source(List.of("make", "-j2"), List.of())).isEqualTo("record -- make -j2");
        assertThat(RecordingStore.source(List.of(), List.of(1, 2))).isEqualTo("record -p 1,2");
        assertThat(RecordingStore.source(List.of(), List.of())).isEqualTo("record");
    }

    @Test
    void aProfileIsStoredWithItsLabelsAndTheStartTime() throws IOException {
        Path table = dir.resolve("fleet");
        Instant before = Instant.now();
        RecordingStore s = RecordingStore.begin(table, List.of("env=ci"), List.of("/bin/true"), List.of());
        Instant after = Instant.now();
        Profile p = new Profile();
        FrameTable f = p.frames();
        p.addStack(new int[] {f.plain("main"), f.plain("work")}, 2, 5);
        p.addStack(new int[] {f.plain("main")}, 1, 2);
        StringWriter err = new StringWriter();
        FleetStore.Written w = s.store(p, new PrintWriter(err, true));
        assertThat(w).isEqualTo(new FleetStore.Written(1, 2, 7));
        assertThat(err.toString()).contains("stored the profile (2 stacks, 7 samples)").contains("service=true")
                .contains("env=ci");
        try (FleetQuery q = FleetQuery.open(table)) {
            List<List<String>> rows = q.sql("SELECT DISTINCT service, host, labels, profile, epoch_us(time) FROM samples");
            assertThat(rows).hasSize(2);
            List<String> row = rows.get(1);
            assertThat(row.subList(0, 4)).containsExactly("true", hostName(), "env=ci", "record -- /bin/true");
            // Parquet keeps microseconds.
            long micros = Long.parseLong(row.get(4));
            assertThat(Instant.EPOCH.plusNanos(micros * 1000)).isBetween(before.minusNanos(1000), after);
            assertThat(q.merge("service = 'true'").tree().totalSamples()).isEqualTo(7);
        }
    }

    @Test
    void anEmptyRecordingStoresNothing() throws IOException {
        Path table = dir.resolve("fleet");
        StringWriter err = new StringWriter();
        RecordingStore.begin(table, List.of(), List.of(), List.of()).store(new Profile(), new PrintWriter(err, true));
        assertThat(err.toString()).contains("no samples; nothing stored");
        try (var files = Files.walk(table)) {
            assertThat(files.filter(Files::isRegularFile)).isEmpty();
        }
    }

    private static String hostName() throws IOException {
        return RecordingStore.labelValue(Files.readString(Path.of("/proc/sys/kernel/hostname")));
    }
}
