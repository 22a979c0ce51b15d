package org.stackfold.format.pprof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.RandomProfiles;
import org.stackfold.io.InputException;
import org.stackfold.model.CallTree;
import org.stackfold.model.FrameKind;
import org.stackfold.model.FrameTable;
import org.stackfold.model.Profile;

class PprofFormatTest {
    private static final PprofFormat FORMAT = new PprofFormat();
    private static final Descriptor PROFILE = PprofSchema.profile(true);
    private static final Descriptor PROFILE_UNPACKED = PprofSchema.profile(false);

    static List<Long> seeds() {
        return RandomProfiles.seeds(40);
    }

    static byte[] gunzip(byte[] gz) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
            return in.readAllBytes();
        }
    }

    private static Object field(Message m, String name) {
        return m.getField(m.getDescriptorForType().findFieldByName(name));
    }

    @SuppressWarnings("unchecked")
    private static List<Message> messages(Message m, String name) {
        return (List<Message>) field(m, name);
    }

    @SuppressWarnings("unchecked")
    private static List<Long> longs(Message m, String name) {
        return (List<Long>) field(m, name);
    }

    private static void assertNoUnknownFields(Message m) {
        assertThat(m.getUnknownFields().asMap()).as("unknown fields in " + m.getDescriptorForType().getName()).isEmpty();
        for (Map.Entry<FieldDescriptor, Object> e : m.getAllFields().entrySet()) {
            if (e.getKey().getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
                if (e.getKey().isRepeated()) {
                    for (Object o : (List<?>) e.getValue()) {
                        assertNoUnknownFields((Message) o);
                    }
                } else {
                    assertNoUnknownFields((Message) e.getValue());
                }
            }
        }
    }

    /**
     * Decodes our output with protobuf-java against the profile.proto descriptor, checks the
     * references pprof requires, and rebuilds the stacks (names, root first) independently of PprofReader.
     */
    static Map<String, Long> decodeIndependently(byte[] gz, int column) throws IOException {
        DynamicMessage m = DynamicMessage.parseFrom(PROFILE, gunzip(gz));
        assertNoUnknownFields(m);
        @SuppressWarnings("unchecked")
        List<String> strings = (List<String>) field(m, "string_table");
        assertThat(strings.getFirst()).isEmpty();
        Map<Long, Message> functions = new HashMap<>();
        for (Message f : messages(m, "function")) {
            long id = (Long) field(f, "id");
            assertThat(id).isPositive();
            assertThat((Long) field(f, "name")).isBetween(0L, strings.size() - 1L);
            assertThat((Long) field(f, "filename")).isBetween(0L, strings.size() - 1L);
            assertThat(functions.put(id, f)).as("duplicate function id").isNull();
        }
        Map<Long, Message> locations = new HashMap<>();
        for (Message l : messages(m, "location")) {
            long id = (Long) field(l, "id");
            assertThat(id).isPositive();
            for (Message line : messages(l, "line")) {
                assertThat(functions).containsKey((Long) field(line, "function_id"));
            }
            assertThat(locations.put(id, l)).as("duplicate location id").isNull();
        }
        int types = messages(m, "sample_type").size();
        Map<String, Long> stacks = new TreeMap<>();
        for (Message s : messages(m, "sample")) {
            List<Long> values = longs(s, "value");
            assertThat(values).hasSize(types);
            List<String> names = new ArrayList<>();
            for (long id : longs(s, "location_id")) {
                Message loc = locations.get(id);
                assertThat(loc).as("location " + id).isNotNull();
                for (Message line : messages(loc, "line")) { // innermost first
                    names.add(strings.get((int) (long) (Long) field(functions.get((Long) field(line, "function_id")), "name")));
                }
            }
            java.util.Collections.reverse(names);
            if (values.get(column) != 0) {
                stacks.merge(String.join(";", names), values.get(column), Long::sum);
            }
        }
        return stacks;
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void outputIsValidProfileProtoWithTheSameStacks(long seed) throws IOException {
        Profile p = RandomProfiles.plain(seed, 60, 12, true);
        byte[] gz = RandomProfiles.write(FORMAT, p, FormatOptions.none());
        assertThat(decodeIndependently(gz, 0)).isEqualTo(RandomProfiles.stacks(p));
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void roundTripKeepsStacksCountsAndFiles(long seed) throws IOException {
        Profile p = RandomProfiles.plain(seed, 60, 12, true);
        byte[] gz = RandomProfiles.write(FORMAT, p, FormatOptions.none());
        Profile back = RandomProfiles.read(FORMAT, gz, FormatOptions.none());
        assertThat(RandomProfiles.stacks(back)).isEqualTo(RandomProfiles.stacks(p));
        assertThat(back.valueTypes()).containsExactly(Profile.ValueType.SAMPLES);
        // With --lines, frames keep their line and column and show the line in the name.
        Profile withLines = RandomProfiles.read(FORMAT, gz, FormatOptions.none().set("lines", true));
        assertThat(RandomProfiles.locatedStacks(withLines)).isEqualTo(RandomProfiles.locatedStacks(lineNamed(p)));
    }

    /** The profile as --lines reads it back: located frames named name:line. */
    private static Profile lineNamed(Profile p) {
        Profile q = new Profile();
        FrameTable a = p.frames();
        FrameTable b = q.frames();
        CallTree t = p.tree();
        for (int n = 1; n < t.size(); n++) {
            if (t.self(n) == 0) {
                continue;
            }
            int[] s = t.stack(n);
            int[] m = new int[s.length];
            for (int i = 0; i < s.length; i++) {
                int f = s[i];
                m[i] = a.line(f) > 0
                        ? b.frame(a.name(f) + ":" + a.line(f), FrameKind.UNKNOWN, a.file(f), a.line(f), FrameTable.NONE,
                                a.column(f), FrameTable.NONE, FrameTable.NONE)
                        : b.frame(a.name(f), FrameKind.UNKNOWN, a.file(f), FrameTable.NONE, FrameTable.NONE,
                                FrameTable.NONE, FrameTable.NONE, FrameTable.NONE);
            }
            q.addStack(m, m.length, t.self(n));
        }
        return q;
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void differentialRoundTrip(long seed) throws IOException {
        Profile p = RandomProfiles.differential(seed, 40, 8);
        byte[] gz = RandomProfiles.write(FORMAT, p, FormatOptions.none());
        assertThat(decodeIndependently(gz, 1)).isEqualTo(RandomProfiles.stacks(p, 1));
        Profile back = RandomProfiles.read(FORMAT, gz, FormatOptions.none());
        assertThat(back.tree().isDifferential()).isTrue();
        assertThat(RandomProfiles.stacks(back, 0)).isEqualTo(RandomProfiles.stacks(p, 0));
        assertThat(RandomProfiles.stacks(back, 1)).isEqualTo(RandomProfiles.stacks(p, 1));
        Profile after = RandomProfiles.read(FORMAT, gz, FormatOptions.none().set("sample-type", "samples/after"));
        assertThat(RandomProfiles.stacks(after)).isEqualTo(RandomProfiles.stacks(p, 1));
    }

    @Test
    void inlinedFramesShareALocation() throws IOException {
        Profile p = new Profile();
        FrameTable ft = p.frames();
        int[] s = {ft.frame("main", FrameKind.JIT), ft.frame("helper", FrameKind.INLINED),
            ft.frame("tiny", FrameKind.INLINED), ft.frame("leaf", FrameKind.NATIVE)};
        p.addStack(s, 4, 9);
        byte[] gz = RandomProfiles.write(FORMAT, p, FormatOptions.none());
        DynamicMessage m = DynamicMessage.parseFrom(PROFILE, gunzip(gz));
        assertThat(messages(m, "location")).hasSize(2);
        assertThat(messages(messages(m, "location").stream()
                .filter(l -> messages(l, "line").size() == 3).findFirst().orElseThrow(), "line")).hasSize(3);
        Profile back = RandomProfiles.read(FORMAT, gz, FormatOptions.none());
        assertThat(RandomProfiles.stacks(back)).containsExactlyEntriesOf(Map.of("main;helper;tiny;leaf", 9L));
        int[] got = back.tree().stack(back.tree().size() - 1);
        assertThat(got).hasSize(4);
        assertThat(back.frames().kind(got[1])).isEqualTo(FrameKind.INLINED);
        assertThat(back.frames().kind(got[2])).isEqualTo(FrameKind.INLINED);
        assertThat(back.frames().kind(got[0])).isEqualTo(FrameKind.UNKNOWN);
    }

    /** A profile written by protobuf-java itself (not our encoder), packed or not, read by PprofReader. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void readsWhatProtobufJavaWrites(boolean packed) throws IOException {
        Descriptor d = packed ? PROFILE : PROFILE_UNPACKED;
        List<String> strings = List.of("", "alloc_objects", "count", "alloc_space", "bytes", "main", "main.go",
                "compute", "inlinedHelper", "thread", "worker-1");
        DynamicMessage.Builder b = DynamicMessage.newBuilder(d);
        b.setField(d.findFieldByName("string_table"), strings);
        b.addRepeatedField(d.findFieldByName("sample_type"), valueType(d, 1, 2));
        b.addRepeatedField(d.findFieldByName("sample_type"), valueType(d, 3, 4));
        b.addRepeatedField(d.findFieldByName("function"), function(d, 1, 5, 6));
        b.addRepeatedField(d.findFieldByName("function"), function(d, 2, 7, 6));
        b.addRepeatedField(d.findFieldByName("function"), function(d, 3, 8, 6));
        b.addRepeatedField(d.findFieldByName("location"), location(d, 10, new long[][] {{1, 12}}));
        // Location 11: compute with inlinedHelper inlined into it (innermost first).
        b.addRepeatedField(d.findFieldByName("location"), location(d, 11, new long[][] {{3, 40}, {2, 31}}));
        b.addRepeatedField(d.findFieldByName("location"), location(d, 12, new long[0][]));
        b.addRepeatedField(d.findFieldByName("sample"), sample(d, new long[] {11, 10}, new long[] {3, 300}, 10));
        b.addRepeatedField(d.findFieldByName("sample"), sample(d, new long[] {10}, new long[] {1, 50}, 0));
        b.addRepeatedField(d.findFieldByName("sample"), sample(d, new long[] {12, 10}, new long[] {2, 0}, 0));
        byte[] raw = b.build().toByteArray();

        Profile p = RandomProfiles.read(FORMAT, raw, FormatOptions.none());
        assertThat(p.valueTypes()).containsExactly(new Profile.ValueType("alloc_space", "bytes"));
        assertThat(RandomProfiles.stacks(p)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "main;compute;inlinedHelper", 300L, "main", 50L));
        Profile objects = RandomProfiles.read(FORMAT, raw, FormatOptions.none().set("sample-type", "alloc_objects"));
        assertThat(RandomProfiles.stacks(objects)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "main;compute;inlinedHelper", 3L, "main", 1L, "main;0xbeef", 2L));
        Profile threads = RandomProfiles.read(FORMAT, raw, FormatOptions.none().set("thread-frames", true)
                .set("lines", true));
        assertThat(RandomProfiles.stacks(threads)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "worker-1;main:12;compute:31;inlinedHelper:40", 300L, "main:12", 50L));
        // The same bytes, gzip-compressed as pprof files usually are.
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (java.util.zip.GZIPOutputStream z = new java.util.zip.GZIPOutputStream(gz)) {
            z.write(raw);
        }
        assertThat(RandomProfiles.stacks(RandomProfiles.read(FORMAT, gz.toByteArray(), FormatOptions.none())))
                .isEqualTo(RandomProfiles.stacks(p));
        assertThat(FORMAT.sniff(raw, raw.length)).isTrue();
        java.io.StringWriter info = new java.io.StringWriter();
        try (org.stackfold.io.Input in = org.stackfold.io.Input.ofBytes("x.pb", raw)) {
            assertThat(FORMAT.describe(in, FormatOptions.none(), new java.io.PrintWriter(info, true))).isTrue();
        }
        assertThat(info.toString()).contains("alloc_objects/count: total 6")
                .contains("alloc_space/bytes (read by default): total 350");
    }

    private static Message valueType(Descriptor d, long type, long unit) {
        Descriptor vt = d.findFieldByName("sample_type").getMessageType();
        return DynamicMessage.newBuilder(vt).setField(vt.findFieldByName("type"), type)
                .setField(vt.findFieldByName("unit"), unit).build();
    }

    private static Message function(Descriptor d, long id, long name, long file) {
        Descriptor f = d.findFieldByName("function").getMessageType();
        return DynamicMessage.newBuilder(f).setField(f.findFieldByName("id"), id).setField(f.findFieldByName("name"), name)
                .setField(f.findFieldByName("filename"), file).build();
    }

    private static Message location(Descriptor d, long id, long[][] lines) {
        Descriptor l = d.findFieldByName("location").getMessageType();
        Descriptor line = l.findFieldByName("line").getMessageType();
        DynamicMessage.Builder b = DynamicMessage.newBuilder(l).setField(l.findFieldByName("id"), id)
                .setField(l.findFieldByName("address"), 0xbeefL);
        for (long[] x : lines) {
            b.addRepeatedField(l.findFieldByName("line"), DynamicMessage.newBuilder(line)
                    .setField(line.findFieldByName("function_id"), x[0]).setField(line.findFieldByName("line"), x[1]).build());
        }
        return b.build();
    }

    private static Message sample(Descriptor d, long[] locs, long[] values, long threadStr) {
        Descriptor s = d.findFieldByName("sample").getMessageType();
        DynamicMessage.Builder b = DynamicMessage.newBuilder(s);
        for (long l : locs) {
            b.addRepeatedField(s.findFieldByName("location_id"), l);
        }
        for (long v : values) {
            b.addRepeatedField(s.findFieldByName("value"), v);
        }
        if (threadStr != 0) {
            Descriptor label = s.findFieldByName("label").getMessageType();
            b.addRepeatedField(s.findFieldByName("label"), DynamicMessage.newBuilder(label)
                    .setField(label.findFieldByName("key"), 9L).setField(label.findFieldByName("str"), threadStr).build());
        }
        return b.build();
    }

    @Test
    void lyingLengthIsAnErrorWithOffset() throws IOException {
        Profile p = RandomProfiles.plain(7, 10, 5, false);
        byte[] raw = gunzip(RandomProfiles.write(FORMAT, p, FormatOptions.none()));
        // The first field is sample_type: tag 0x0a, then its length. Claim 2^31 - 1 bytes instead.
        byte[] lying = new byte[raw.length + 4];
        lying[0] = 0x0a;
        lying[1] = (byte) 0xff;
        lying[2] = (byte) 0xff;
        lying[3] = (byte) 0xff;
        lying[4] = (byte) 0xff;
        lying[5] = 0x07;
        System.arraycopy(raw, 2, lying, 6, raw.length - 2);
        assertThatThrownBy(() -> RandomProfiles.read(FORMAT, lying, FormatOptions.none()))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("at byte offset 1")
                .hasMessageContaining("length 2147483647 exceeds");
        byte[] truncated = java.util.Arrays.copyOf(raw, raw.length - 3);
        assertThatThrownBy(() -> RandomProfiles.read(FORMAT, truncated, FormatOptions.none()))
                .isInstanceOf(InputException.class).hasMessageContaining("at byte offset");
    }

    /** Random corruption of a valid file: the reader either reads it or says what is wrong; nothing else. */
    @ParameterizedTest
    @MethodSource("seeds")
    void corruptedInputFailsCleanly(long seed) throws IOException {
        SplittableRandom r = new SplittableRandom(seed);
        Profile p = RandomProfiles.plain(seed, 30, 8, true);
        byte[] raw = gunzip(RandomProfiles.write(FORMAT, p, FormatOptions.none()));
        for (int round = 0; round < 50; round++) {
            byte[] bad = raw.clone();
            int edits = 1 + r.nextInt(4);
            for (int e = 0; e < edits; e++) {
                int at = r.nextInt(bad.length);
                switch (r.nextInt(3)) {
                    case 0 -> bad[at] = (byte) r.nextInt(256);
                    case 1 -> bad[at] = (byte) (bad[at] | 0x80);
                    default -> bad = java.util.Arrays.copyOf(bad, at + 1);
                }
            }
            try {
                RandomProfiles.read(FORMAT, bad, FormatOptions.none());
            } catch (InputException expected) {
                assertThat(expected.getMessage()).contains("pprof");
            } catch (RuntimeException | OutOfMemoryError e) {
                fail("seed " + seed + " round " + round + ": " + e, e);
            }
        }
    }
}
