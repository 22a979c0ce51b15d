package org.stackfold.format.perfdata;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.stackfold.io.InputException;

/**
 * The header of a perf.data file ({@code perf record}'s "PERFILE2" format) over its bytes: the
 * event attributes with their ids, the data section, and the feature sections Stackfold uses
 * (EVENT_DESC names, BUILD_ID, HOSTNAME, OSRELEASE, VERSION, ARCH, CMDLINE). Either byte order;
 * every offset and size is checked against the file, so a lying header is a one-line error with
 * its byte offset. Pipe-mode files ({@code perf record -o -}) carry their attributes as records.
 */
final class PerfDataFile {
    static final long MAGIC_LE = 0x32454c4946524550L; // "PERFILE2" read little-endian
    static final int HEADER_SIZE = 104;
    static final int PIPE_HEADER_SIZE = 16;

    private static final ValueLayout.OfLong LE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt LE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort LE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Pipe mode's header records: what a file keeps in its header and feature sections. */
    static final int RECORD_HEADER_ATTR = 64;
    static final int RECORD_HEADER_BUILD_ID = 67;
    static final int RECORD_EVENT_UPDATE = 78;
    static final int RECORD_HEADER_FEATURE = 80;
    static final int FEAT_BUILD_ID = 2;
    private static final long EVENT_UPDATE_NAME = 2;
    static final int FEAT_HOSTNAME = 3;
    static final int FEAT_OSRELEASE = 4;
    static final int FEAT_VERSION = 5;
    static final int FEAT_ARCH = 6;
    static final int FEAT_CMDLINE = 11;
    static final int FEAT_EVENT_DESC = 12;

    final String name;
    final MemorySegment data;
    final ByteOrder order;
    /**
     * Little-endian, the usual case. Reads go through the constant layouts below rather than a
     * layout chosen at run time: only a constant layout lets the JIT turn a read into one load.
     */
    final boolean little;
    final boolean pipe;
    final List<PerfEventAttr> attrs = new ArrayList<>();
    final long dataOffset;
    final long dataSize;
    /** Feature values as text (hostname, os release, perf version, arch, cmdline), in file order. */
    final Map<String, String> features = new LinkedHashMap<>();
    /** Build ids by file name (BUILD_ID feature), hexadecimal. */
    final Map<String, String> buildIds = new LinkedHashMap<>();

    PerfDataFile(String name, MemorySegment data) {
        this.name = name;
        this.data = data;
        if (data.byteSize() < PIPE_HEADER_SIZE) {
            throw InputException.atOffset(name, 0, "not a perf.data file: " + data.byteSize() + " bytes, shorter than its header");
        }
        long magic = data.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0);
        if (magic == MAGIC_LE) {
            order = ByteOrder.LITTLE_ENDIAN;
        } else if (magic == Long.reverseBytes(MAGIC_LE)) {
            order = ByteOrder.BIG_ENDIAN;
        } else {
            throw InputException.atOffset(name, 0, "not a perf.data file (no PERFILE2 magic)");
        }
        little = order == ByteOrder.LITTLE_ENDIAN;
        long headerSize = u64(8);
        if (headerSize == PIPE_HEADER_SIZE) {
            pipe = true;
            dataOffset = PIPE_HEADER_SIZE;
            dataSize = data.byteSize() - PIPE_HEADER_SIZE;
            return;
        }
        pipe = false;
        if (headerSize != HEADER_SIZE) {
            throw InputException.atOffset(name, 8, "perf.data header size " + headerSize + ", expected " + HEADER_SIZE);
        }
        need(0, HEADER_SIZE, "the header");
        long attrSize = u64(16);
        long attrsOffset = u64(24);
        long attrsSize = u64(32);
        dataOffset = u64(40);
        dataSize = u64(48);
        need(40, dataOffset, dataSize, "the data section");
        need(24, attrsOffset, attrsSize, "the attribute section");
        if (attrSize < 64 + 16 || attrSize > 4096) {
            throw InputException.atOffset(name, 16, "attribute size " + attrSize + " out of range");
        }
        for (long at = attrsOffset; at + attrSize <= attrsOffset + attrsSize; at += attrSize) {
            attrs.add(attr(at, attrSize - 16, ids(at + attrSize - 16)));
        }
        readFeatures();
    }

    long u64(long at) {
        return little ? data.get(LE64, at) : data.get(BE64, at);
    }

    int u32(long at) {
        return little ? data.get(LE32, at) : data.get(BE32, at);
    }

    int u16(long at) {
        return (little ? data.get(LE16, at) : data.get(BE16, at)) & 0xffff;
    }

    /** {@code n} u64 words from {@code at} into {@code to}, with one bounds check. */
    void u64s(long at, long[] to, int n) {
        MemorySegment.copy(data, little ? LE64 : BE64, at, to, 0, n);
    }

    /** Fails unless [at, at+size) lies in the file; {@code where} is the offset of the field that said so. */
    void need(long where, long at, long size, String what) {
        if (at < 0 || size < 0 || at > data.byteSize() || size > data.byteSize() - at) {
            throw InputException.atOffset(name, where, what + " (" + size + " bytes at offset " + at
                    + ") lies outside the file of " + data.byteSize() + " bytes");
        }
    }

    private void need(long at, long size, String what) {
        need(at, at, size, what);
    }

    /** A perf_event_attr at {@code at}, {@code size} bytes of it readable. */
    PerfEventAttr attr(long at, long size, long[] ids) {
        need(at, 80, "an event attribute");
        int type = u32(at);
        long config = u64(at + 8);
        long sampleType = u64(at + 24);
        long readFormat = u64(at + 32);
        long flags = u64(at + 40);
        // Bit fields are allocated from the other end of the word on big-endian machines.
        int idAllBit = order == ByteOrder.LITTLE_ENDIAN ? 18 : 63 - 18;
        long branch = size >= 80 ? u64(at + 72) : 0;
        long regsUser = size >= 88 ? u64(at + 80) : 0;
        // sample_period, unless the freq bit says the word is a frequency: the weight of samples that
        // record no period (perf: evsel__parse_sample starts from attr.sample_period)
        int freqBit = order == ByteOrder.LITTLE_ENDIAN ? 10 : 63 - 10;
        long fixedPeriod = (flags >>> freqBit & 1) != 0 ? 0 : Math.max(0, u64(at + 16));
        return new PerfEventAttr(type, config, sampleType, readFormat, (flags >>> idAllBit & 1) != 0, branch,
                EventNames.of(type, config), ids, regsUser, fixedPeriod);
    }

    private long[] ids(long sectionAt) {
        long off = u64(sectionAt);
        long size = u64(sectionAt + 8);
        need(sectionAt, off, size, "an event's id list");
        long[] ids = new long[(int) Math.min(size / 8, 1 << 24)];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = u64(off + 8L * i);
        }
        return ids;
    }

    private void readFeatures() {
        long table = dataOffset + dataSize;
        int index = 0;
        for (int bit = 0; bit < 256; bit++) {
            long word = u64(72 + 8L * (bit / 64));
            if ((word >>> (bit % 64) & 1) == 0) {
                continue;
            }
            long entry = table + 16L * index++;
            need(entry, 16, "the feature table");
            long off = u64(entry);
            long size = u64(entry + 8);
            need(entry, off, size, "feature section " + bit);
            feature(bit, off, size);
        }
    }

    /** Pipe mode: the attribute and its ids as a record; returns it. */
    PerfEventAttr headerAttr(long at, int size) {
        long attrSize = u32(at + 8 + 4) & 0xffffffffL;
        if (attrSize < 64 || attrSize > size - 8) {
            throw InputException.atOffset(name, at, "attribute record with attr size " + attrSize);
        }
        long[] ids = new long[(int) ((size - 8 - attrSize) / 8)];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = u64(at + 8 + attrSize + 8L * i);
        }
        PerfEventAttr a = attr(at + 8, attrSize, ids);
        attrs.add(a);
        return a;
    }

    /**
     * Pipe mode: a header record other than an attribute. BUILD_ID comes one record a file;
     * HEADER_FEATURE a feature section a record (read: host, OS release, perf version, arch, cmdline
     * and the events' names); EVENT_UPDATE of type NAME names an event by its first id.
     */
    void pipeHeader(int type, long at, int size) {
        if (type == RECORD_HEADER_BUILD_ID) {
            buildIds(at, at + size);
        } else if (type == RECORD_HEADER_FEATURE) {
            if (size < 16) {
                throw InputException.atOffset(name, at, "feature record of " + size + " bytes");
            }
            long bit = u64(at + 8);
            if (bit == FEAT_HOSTNAME || bit == FEAT_OSRELEASE || bit == FEAT_VERSION || bit == FEAT_ARCH
                    || bit == FEAT_CMDLINE || bit == FEAT_EVENT_DESC) {
                feature((int) bit, at + 16, size - 16);
            }
        } else if (type == RECORD_EVENT_UPDATE && size >= 24 && u64(at + 8) == EVENT_UPDATE_NAME) {
            nameEvent(-1, u64(at + 16), cString(at + 24, at + size));
        }
    }

    /** What {@code info} shows of a pipe: its header records, read through to the end. */
    void readPipeHeaders() {
        long end = dataOffset + dataSize;
        for (long at = dataOffset; end - at >= 8; ) {
            int type = u32(at);
            int size = u16(at + 6);
            if (size < 8 || size > end - at) {
                throw InputException.atOffset(name, at, "record of type " + type + " claims " + size
                        + " bytes (" + (end - at) + " left in the data section)");
            }
            if (type == RECORD_HEADER_ATTR) {
                headerAttr(at, size);
            } else if (type == RECORD_HEADER_BUILD_ID || type == RECORD_HEADER_FEATURE || type == RECORD_EVENT_UPDATE) {
                pipeHeader(type, at, size);
            }
            at += size;
        }
    }

    /** One feature section's bytes: from the table after the data, or a pipe's HEADER_FEATURE record. */
    void feature(int bit, long off, long size) {
        switch (bit) {
            case FEAT_HOSTNAME -> features.put("hostname", string(off, off + size));
            case FEAT_OSRELEASE -> features.put("os release", string(off, off + size));
            case FEAT_VERSION -> features.put("perf version", string(off, off + size));
            case FEAT_ARCH -> features.put("arch", string(off, off + size));
            case FEAT_CMDLINE -> features.put("cmdline", cmdline(off, off + size));
            case FEAT_EVENT_DESC -> eventDesc(off, off + size);
            case FEAT_BUILD_ID -> buildIds(off, off + size);
            default -> {
            }
        }
    }

    /** A perf string: u32 length, then that many bytes, NUL-padded. */
    private String string(long at, long end) {
        need(at, 4, "a string");
        long len = u32(at) & 0xffffffffL;
        if (len > end - at - 4) {
            throw InputException.atOffset(name, at, "string of " + len + " bytes runs past its section");
        }
        return cString(at + 4, at + 4 + len);
    }

    String cString(long from, long to) {
        long e = from;
        while (e < to && data.get(ValueLayout.JAVA_BYTE, e) != 0) {
            e++;
        }
        byte[] b = new byte[(int) (e - from)];
        MemorySegment.copy(data, ValueLayout.JAVA_BYTE, from, b, 0, b.length);
        return new String(b, StandardCharsets.UTF_8);
    }

    private String cmdline(long at, long end) {
        need(at, 4, "the command line");
        long n = u32(at) & 0xffffffffL;
        StringBuilder sb = new StringBuilder();
        long p = at + 4;
        for (long i = 0; i < n && p < end; i++) {
            String s = string(p, end);
            sb.append(sb.isEmpty() ? "" : " ").append(s);
            p += 4 + (u32(p) & 0xffffffffL);
        }
        return sb.toString();
    }

    /** EVENT_DESC: u32 count, u32 attr size, then per event its attr, u32 id count, name, ids. */
    private void eventDesc(long at, long end) {
        need(at, 8, "the event descriptions");
        long n = u32(at) & 0xffffffffL;
        long attrSize = u32(at + 4) & 0xffffffffL;
        long p = at + 8;
        for (long i = 0; i < n; i++) {
            if (attrSize > end - p || end - p - attrSize < 4) {
                throw InputException.atOffset(name, p, "event description runs past its section");
            }
            long q = p + attrSize;
            long ids = u32(q) & 0xffffffffL;
            String event = string(q + 4, end);
            q += 8 + (u32(q + 4) & 0xffffffffL);
            if (ids > (end - q) / 8) {
                throw InputException.atOffset(name, p + attrSize, ids + " event ids run past their section");
            }
            long firstId = ids > 0 ? u64(q) : -1;
            nameEvent((int) i, firstId, event);
            p = q + 8 * ids;
        }
    }

    /** Names the attribute holding {@code firstId}; the index-th where none does (and index >= 0). */
    void nameEvent(int index, long firstId, String event) {
        for (int k = 0; k < attrs.size(); k++) {
            for (long id : attrs.get(k).ids()) {
                if (id == firstId) {
                    attrs.set(k, attrs.get(k).named(event));
                    return;
                }
            }
        }
        if (index >= 0 && index < attrs.size()) {
            attrs.set(index, attrs.get(index).named(event));
        }
    }

    /** BUILD_ID: build_id_event records (header, pid, 24 id bytes, file name). */
    void buildIds(long at, long end) {
        long p = at;
        while (end - p >= 8 + 4 + 24) {
            int misc = u16(p + 4);
            int size = u16(p + 6);
            if (size < 36 || size > end - p) {
                throw InputException.atOffset(name, p, "build id record of " + size + " bytes");
            }
            int idLen = (misc & 0x8000) != 0 ? data.get(ValueLayout.JAVA_BYTE, p + 12 + 20) & 0xff : 20;
            StringBuilder hex = new StringBuilder();
            for (int i = 0; i < Math.min(idLen, 20); i++) {
                hex.append(String.format("%02x", data.get(ValueLayout.JAVA_BYTE, p + 12 + i)));
            }
            buildIds.put(cString(p + 36, p + size), hex.toString());
            p += size;
        }
    }
}
