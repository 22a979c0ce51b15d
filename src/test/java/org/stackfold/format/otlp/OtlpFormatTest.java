package org.stackfold.format.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.ProfilesData;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.Stack;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.format.folded.FoldedReader;
import org.stackfold.format.pprof.PprofWriter;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;
import org.stackfold.model.Timeline;

class OtlpFormatTest {
    private static final Instant T0 = Instant.parse("2026-11-01T12:00:00Z");
    private static final long T0_NANOS = T0.getEpochSecond() * 1_000_000_000L;

    static byte[] bytes(Profile p, OtlpMeta meta) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        OtlpWriter.write(p, meta, out);
        return out.toByteArray();
    }

    static Profile read(byte[] data) throws IOException {
        return new OtlpFormat().read(Input.ofBytes("x.otlp.pb", data), FormatOptions.none());
    }

    static Profile folded(String text) throws IOException {
        return new FoldedReader(FoldedReader.Mode.AUTO, true, 1, w -> { })
                .read(Input.ofBytes("x.folded", text.getBytes(StandardCharsets.UTF_8))).profile();
    }

    /** Every stack with a count: frames as name/kind/file/line/column, root first. */
    static Map<String, List<Long>> stacks(Profile p) {
        Map<String, List<Long>> out = new TreeMap<>();
        FrameTable f = p.frames();
        CallTree t = p.tree();
        for (int n = 1; n < t.size(); n++) {
            List<Long> v = new ArrayList<>();
            boolean any = false;
            for (int c = 0; c < t.weights(); c++) {
                v.add(t.self(n, c));
                any |= t.self(n, c) != 0;
            }
            if (!any) {
                continue;
            }
            StringBuilder key = new StringBuilder();
            for (int fr : t.stack(n)) {
                key.append(f.name(fr)).append('|').append(f.kind(fr)).append('|').append(f.file(fr)).append('|')
                        .append(f.line(fr)).append('|').append(f.column(fr)).append(';');
            }
            out.merge(key.toString(), v, (a, b) -> {
                List<Long> s = new ArrayList<>();
                for (int i = 0; i < a.size(); i++) {
                    s.add(a.get(i) + b.get(i));
                }
                return s;
            });
        }
        return out;
    }

    @Test
    void writesTheDictionaryAsProfilesProtoSays() throws IOException {
        Profile p = folded("main;run;work 5\nmain;idle 2\n");
        ProfilesData d = ProfilesData.parseFrom(bytes(p, new OtlpMeta(T0, 60_000_000_000L, Map.of("service.name", "api"), 100, true)));
        ProfilesDictionary dict = d.getDictionary();
        assertThat(dict.getStringTable(0)).isEmpty();
        assertThat(dict.getMappingTable(0)).isEqualTo(io.opentelemetry.proto.profiles.v1development.Mapping.getDefaultInstance());
        assertThat(dict.getLocationTable(0)).isEqualTo(Location.getDefaultInstance());
        assertThat(dict.getStackTable(0)).isEqualTo(Stack.getDefaultInstance());
        assertThat(dict.getLinkTable(0).getTraceId().size()).isEqualTo(16);
        assertThat(dict.getLinkTable(0).getSpanId().size()).isEqualTo(8);
        assertThat(d.getResourceProfiles(0).getResource().getAttributes(0).getKey()).isEqualTo("service.name");
        assertThat(d.getResourceProfiles(0).getScopeProfiles(0).getScope().getName()).isEqualTo("stackfold");
        var prof = d.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0);
        assertThat(dict.getStringTable(prof.getSampleType().getTypeStrindex())).isEqualTo("samples");
        assertThat(dict.getStringTable(prof.getSampleType().getUnitStrindex())).isEqualTo("count");
        assertThat(prof.getTimeUnixNano()).isEqualTo(T0_NANOS);
        assertThat(prof.getDurationNano()).isEqualTo(60_000_000_000L);
        assertThat(prof.getPeriod()).isEqualTo(10_000_000L);
        Map<String, Long> got = new TreeMap<>();
        for (Sample s : prof.getSamplesList()) {
            List<String> names = new ArrayList<>();
            // leaf first in the stack: reverse to read it as a folded line
            Stack st = dict.getStackTable(s.getStackIndex());
            for (int i = st.getLocationIndicesCount() - 1; i >= 0; i--) {
                Location loc = dict.getLocationTable(st.getLocationIndices(i));
                names.add(dict.getStringTable(dict.getFunctionTable(loc.getLines(0).getFunctionIndex()).getNameStrindex()));
            }
            got.put(String.join(";", names), s.getValues(0));
        }
        assertThat(got).isEqualTo(Map.of("main;run;work", 5L, "main;idle", 2L));
        // one function and one location per frame, however many stacks use it
        assertThat(dict.getFunctionTableCount()).isEqualTo(1 + 4);
        assertThat(dict.getLocationTableCount()).isEqualTo(1 + 4);
    }

    @Test
    void inlinedFramesShareTheirCallersLocationInnermostFirst() throws IOException {
        Profile p = new Profile();
        FrameTable f = p.frames();
        int main = f.frame("main", FrameKind.NATIVE, "main.c", 10, FrameTable.NONE, 3, FrameTable.NONE, FrameTable.NONE);
        int inl = f.frame("helper", FrameKind.INLINED, "util.h", 42, FrameTable.NONE, FrameTable.NONE, FrameTable.NONE, FrameTable.NONE);
        int leaf = f.frame("memcpy", FrameKind.KERNEL);
        p.addStack(new int[] {main, inl, leaf}, 3, 7);
        ProfilesData d = ProfilesData.parseFrom(bytes(p, new OtlpMeta(T0, 0, Map.of(), 0, true)));
        ProfilesDictionary dict = d.getDictionary();
        Stack st = dict.getStackTable(d.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0).getSamples(0).getStackIndex());
        assertThat(st.getLocationIndicesCount()).isEqualTo(2);
        Location caller = dict.getLocationTable(st.getLocationIndices(1));
        assertThat(caller.getLinesList()).extracting(l -> dict.getStringTable(dict.getFunctionTable(l.getFunctionIndex()).getNameStrindex()))
                .containsExactly("helper", "main");
        assertThat(caller.getLines(0).getLine()).isEqualTo(42);
        assertThat(caller.getLines(1).getColumn()).isEqualTo(3);
        var attr = dict.getAttributeTable(caller.getAttributeIndices(0));
        assertThat(dict.getStringTable(attr.getKeyStrindex())).isEqualTo("profile.frame.type");
        assertThat(attr.getValue().getStringValue()).isEqualTo("native");
        assertThat(stacks(read(bytes(p, OtlpMeta.defaults())))).isEqualTo(stacks(p));
    }

    static IntStream seeds() {
        return IntStream.range(0, 40);
    }

    /** Random profiles of located frames of every kind that survives (inlined frames below a caller). */
    static Profile random(SplittableRandom r) {
        boolean diff = r.nextInt(5) == 0;
        Profile p = diff ? Profile.differential() : new Profile();
        FrameTable f = p.frames();
        FrameKind[] kinds = {FrameKind.UNKNOWN, FrameKind.KERNEL, FrameKind.NATIVE, FrameKind.PYTHON, FrameKind.JIT};
        int nFrames = 1 + r.nextInt(30);
        int[] pool = new int[nFrames];
        for (int i = 0; i < nFrames; i++) {
            String name = r.nextInt(10) == 0 ? "f\u00e9;\"<x>\" " + i : "f" + r.nextInt(nFrames);
            boolean located = r.nextBoolean();
            FrameKind k = i > 0 && r.nextInt(4) == 0 ? FrameKind.INLINED : kinds[r.nextInt(kinds.length)];
            pool[i] = located ? f.frame(name, k, "src/" + r.nextInt(4) + ".c", 1 + r.nextInt(500), FrameTable.NONE,
                    r.nextBoolean() ? 1 + r.nextInt(80) : FrameTable.NONE, FrameTable.NONE, FrameTable.NONE)
                    : f.frame(name, k);
        }
        int stacks = 1 + r.nextInt(60);
        for (int s = 0; s < stacks; s++) {
            int depth = 1 + r.nextInt(12);
            int[] st = new int[depth];
            for (int d = 0; d < depth; d++) {
                st[d] = pool[r.nextInt(nFrames)];
                if (d == 0) {
                    // the root is a caller: nothing is inlined into nothing
                    while (f.kind(st[0]) == FrameKind.INLINED) {
                        st[0] = pool[r.nextInt(nFrames)];
                    }
                }
            }
            int node = p.tree().path(st, 0, depth);
            for (int c = 0; c < p.tree().weights(); c++) {
                p.tree().addSelf(node, c, r.nextInt(3) == 0 ? 0 : 1 + r.nextLong(1L << 40));
            }
        }
        return p;
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void roundTripsStacksKindsLocationsAndCounts(int seed) throws IOException {
        Profile p = random(new SplittableRandom(seed));
        Profile back = read(bytes(p, OtlpMeta.defaults()));
        assertThat(stacks(back)).as("seed %d", seed).isEqualTo(stacks(p));
        assertThat(back.valueTypes()).isEqualTo(p.valueTypes());
        assertThat(back.tree().isDifferential()).isEqualTo(p.tree().isDifferential());
        // and again: what the reader made writes the same message
        assertThat(stacks(read(bytes(back, OtlpMeta.defaults())))).isEqualTo(stacks(p));
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void timelinesKeepTimeOrderThreadsAndWeights(int seed) throws IOException {
        SplittableRandom r = new SplittableRandom(seed);
        Profile p = folded("main;a 1\nmain;b 1\nmain;b;c 1\n");
        p.tree().setSelf(1, 0, 0);
        int[] nodes = new int[p.tree().size() - 1];
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = i + 1;
            p.tree().setSelf(i + 1, 0, 0);
        }
        Timeline tl = new Timeline("microseconds");
        long t = r.nextLong(1_000_000);
        int n = 1 + r.nextInt(200);
        for (int i = 0; i < n; i++) {
            // distinct times: OTLP groups observations by stack and thread, so only time orders them
            t += (1 + r.nextInt(3)) * 1000L;
            long thread = 100 + r.nextInt(4);
            int node = nodes[r.nextInt(nodes.length)];
            long w = r.nextInt(4) == 0 ? 1 + r.nextInt(9) : 1;
            tl.add(thread, 0, t, 0, node, w);
            p.tree().addSelf(node, 0, w);
        }
        tl.nameThread(100, "main");
        tl.nameThread(102, "worker-2");
        p.setTimeline(tl);
        Profile back = read(bytes(p, new OtlpMeta(T0, -1, Map.of(), 0, true)));
        assertThat(stacks(back)).isEqualTo(stacks(p));
        Timeline bt = back.timeline();
        assertThat(bt).isNotNull();
        assertThat(bt.timeUnit()).isEqualTo("nanoseconds");
        assertThat(bt.size()).isEqualTo(n);
        for (int i = 0; i < n; i++) {
            assertThat(bt.timestamp(i)).as("sample %d", i).isEqualTo((tl.timestamp(i) - tl.timestamp(0)) * 1000);
            assertThat(bt.threadId(i)).isEqualTo(tl.threadId(i));
            assertThat(bt.weight(i)).isEqualTo(tl.weight(i));
            assertThat(back.tree().stack(bt.node(i))).containsExactly(names(back, p.tree().stack(tl.node(i)), p));
        }
        for (int i = 0; i < n; i++) {
            assertThat(bt.threadName(bt.threadId(i))).isEqualTo(tl.threadName(tl.threadId(i)));
        }
    }

    /** The frame ids in {@code to} of the frames {@code ids} of {@code from}, by name. */
    private static int[] names(Profile to, int[] ids, Profile from) {
        int[] out = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            out[i] = to.frames().plain(from.frames().name(ids[i]));
        }
        return out;
    }

    @Test
    void aTimelineThatIsLineOrderIsWrittenAsCounts() throws IOException {
        Profile p = folded("main;a 3\n");
        Timeline tl = new Timeline("count");
        tl.add(0, 0, 0, 0, 2, 3);
        p.setTimeline(tl);
        ProfilesData d = ProfilesData.parseFrom(bytes(p, new OtlpMeta(T0, -1, Map.of(), 0, true)));
        Sample s = d.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0).getSamples(0);
        assertThat(s.getTimestampsUnixNanoCount()).isZero();
        assertThat(s.getValuesList()).containsExactly(3L);
        assertThat(read(bytes(p, OtlpMeta.defaults())).timeline()).isNull();
    }

    @Test
    void detectsByContentAndNotPprofOrText() throws IOException {
        Profile p = folded("main;a 3\n");
        byte[] otlp = bytes(p, OtlpMeta.defaults());
        assertThat(Formats.sniffed(Input.ofBytes("noname", otlp)).name()).isEqualTo("otlp");
        ByteArrayOutputStream pprof = new ByteArrayOutputStream();
        new PprofWriter().write(p, pprof);
        assertThat(Formats.sniffed(Input.ofBytes("noname", pprof.toByteArray())).name()).isEqualTo("pprof");
        OtlpFormat f = new OtlpFormat();
        byte[] blank = "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n".getBytes(StandardCharsets.US_ASCII);
        assertThat(f.sniff(blank, blank.length)).isFalse();
        byte[] text = "main;a 3\n".getBytes(StandardCharsets.US_ASCII);
        assertThat(f.sniff(text, text.length)).isFalse();
        // a head cut anywhere still sniffs
        for (int cut = 8; cut < otlp.length; cut += 7) {
            assertThat(f.sniff(otlp, cut)).as("cut at %d", cut).isTrue();
        }
        assertThat(Formats.forOutput("x.otlp.pb", null, "folded").name()).isEqualTo("otlp");
        assertThat(Formats.forOutput("x.otlp.pb.gz", null, "folded").name()).isEqualTo("otlp");
        assertThat(Formats.forOutput("x.pb", null, "folded").name()).isEqualTo("pprof");
    }

    @Test
    void readsEveryResourceAndAChosenSampleType() throws IOException {
        ProfilesData one = ProfilesData.parseFrom(bytes(folded("main;a 3\n"), OtlpMeta.defaults()));
        // two resources with the same sample type add up; a second type is read on request
        var two = one.toBuilder().addResourceProfiles(one.getResourceProfiles(0));
        Profile both = new OtlpReader(null).read(two.build(), "x");
        assertThat(both.tree().totalSamples()).isEqualTo(6);
        assertThatThrownBy(() -> new OtlpReader("cpu").read(one, "x.otlp.pb"))
                .isInstanceOf(InputException.class).hasMessage("x.otlp.pb: no sample type 'cpu'; the file has [samples]");
        assertThat(new OtlpReader("0").read(one, "x").tree().totalSamples()).isEqualTo(3);
    }

    @Test
    void badInputIsOneLineNamingWhere() throws IOException {
        byte[] good = bytes(folded("main;a 3\nmain;b 4\n"), OtlpMeta.defaults());
        for (int cut = 1; cut < good.length; cut += 3) {
            byte[] part = java.util.Arrays.copyOf(good, cut);
            try {
                read(part);
            } catch (InputException e) {
                assertThat(e.getMessage()).startsWith("x.otlp.pb");
                assertThat(e.getMessage()).doesNotContain("\n");
            }
        }
        assertThatThrownBy(() -> read(java.util.Arrays.copyOf(good, good.length - 1)))
                .isInstanceOf(InputException.class).hasMessageContaining("x.otlp.pb").hasMessageContaining("byte");
        ProfilesData d = ProfilesData.parseFrom(good);
        var b = d.toBuilder();
        b.getResourceProfilesBuilder(0).getScopeProfilesBuilder(0).getProfilesBuilder(0).getSamplesBuilder(1).setStackIndex(99);
        assertThatThrownBy(() -> new OtlpReader(null).read(b.build(), "y.otlp.pb")).isInstanceOf(InputException.class)
                .hasMessage("y.otlp.pb: resource 0 scope 0 profile 0 sample 1 refers to stack index 99, but stack_table has 3 entries");
        var c = d.toBuilder();
        c.getDictionaryBuilder().getLocationTableBuilder(1).getLinesBuilder(0).setFunctionIndex(-5);
        assertThatThrownBy(() -> new OtlpReader(null).read(c.build(), "y")).isInstanceOf(InputException.class)
                .hasMessageContaining("location 1 refers to function index -5");
        var e = d.toBuilder();
        e.getResourceProfilesBuilder(0).getScopeProfilesBuilder(0).getProfilesBuilder(0).getSamplesBuilder(0).clearValues();
        assertThatThrownBy(() -> new OtlpReader(null).read(e.build(), "y")).isInstanceOf(InputException.class)
                .hasMessageContaining("sample 0 has 0 values and 0 timestamps");
        var g = d.toBuilder();
        g.getResourceProfilesBuilder(0).getScopeProfilesBuilder(0).getProfilesBuilder(0).getSamplesBuilder(0).setValues(0, -2);
        assertThatThrownBy(() -> new OtlpReader(null).read(g.build(), "y")).isInstanceOf(InputException.class)
                .hasMessageContaining("negative value -2");
        assertThatThrownBy(() -> new OtlpReader(null).read(ProfilesData.getDefaultInstance(), "y"))
                .isInstanceOf(InputException.class).hasMessage("y: the OTLP message holds no profile");
    }

    /** Mutated files (flipped bytes, huge lengths, cuts) read or fail with one line naming the file; nothing else. */
    @ParameterizedTest
    @MethodSource("seeds")
    void mutatedFilesReadOrFailWithOneLine(int seed) throws IOException {
        SplittableRandom r = new SplittableRandom(seed);
        Profile p = random(new SplittableRandom(seed + 1000));
        byte[] good = bytes(p, OtlpMeta.defaults());
        for (int round = 0; round < 25; round++) {
            byte[] b = good.clone();
            switch (r.nextInt(3)) {
                case 0 -> {
                    for (int k = 0; k < 1 + r.nextInt(4); k++) {
                        b[r.nextInt(b.length)] = (byte) r.nextInt(256);
                    }
                }
                case 1 -> {
                    int at = r.nextInt(b.length);
                    // a length that lies: a 5-byte varint near 4 GiB
                    b[at] = (byte) 0xFF;
                    if (at + 4 < b.length) {
                        b[at + 1] = (byte) 0xFF;
                        b[at + 2] = (byte) 0xFF;
                        b[at + 3] = (byte) 0xFF;
                        b[at + 4] = (byte) 0x0F;
                    }
                }
                default -> b = java.util.Arrays.copyOf(b, r.nextInt(b.length));
            }
            try {
                read(b);
            } catch (InputException e) {
                assertThat(e.getMessage()).as("seed %d round %d", seed, round).startsWith("x.otlp.pb").doesNotContain("\n");
            }
        }
    }

    @Test
    void aSampleWithTimestampsOnlyCountsOneEach() throws IOException {
        ProfilesData d = ProfilesData.parseFrom(bytes(folded("main;a 3\n"), OtlpMeta.defaults()));
        var b = d.toBuilder();
        b.getResourceProfilesBuilder(0).getScopeProfilesBuilder(0).getProfilesBuilder(0).getSamplesBuilder(0)
                .clearValues().addTimestampsUnixNano(T0_NANOS + 5).addTimestampsUnixNano(T0_NANOS);
        Profile p = new OtlpReader(null).read(b.build(), "y");
        assertThat(p.tree().totalSamples()).isEqualTo(2);
        assertThat(p.timeline().size()).isEqualTo(2);
        assertThat(p.timeline().timestamp(0)).isZero();
        assertThat(p.timeline().timestamp(1)).isEqualTo(5);
    }
}
