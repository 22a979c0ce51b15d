package org.stackfold.format.perfdata;

/**
 * One event of a perf.data file: the parts of {@code struct perf_event_attr} that shape its records,
 * its name (from the EVENT_DESC feature) and the sample ids that point at it.
 *
 * @param sampleType       PERF_SAMPLE_* bits: which fields a sample record carries, in kernel order
 * @param readFormat       PERF_FORMAT_* bits: the layout of a PERF_SAMPLE_READ value
 * @param sampleIdAll      other records end with the sample_id fields (time, id, ...)
 * @param branchSampleType PERF_SAMPLE_BRANCH_* bits (HW_INDEX adds a word to branch stacks)
 * @param name             as perf names it ("cpu-clock:pppH"; without EVENT_DESC perf's name of a generic
 *                         event, see {@link EventNames}), or a made-up "type:config"
 * @param ids              the sample ids of this event
 * @param sampleRegsUser   PERF_SAMPLE_REGS_USER's register mask (which registers a sample carries, by bit)
 * @param fixedPeriod      attr.sample_period where it is a period (not a frequency), else 0
 */
record PerfEventAttr(int type, long config, long sampleType, long readFormat, boolean sampleIdAll,
                     long branchSampleType, String name, long[] ids, long sampleRegsUser,
                     long fixedPeriod) {
    static final long SAMPLE_IP = 1L;
    static final long SAMPLE_TID = 1L << 1;
    static final long SAMPLE_TIME = 1L << 2;
    static final long SAMPLE_ADDR = 1L << 3;
    static final long SAMPLE_READ = 1L << 4;
    static final long SAMPLE_CALLCHAIN = 1L << 5;
    static final long SAMPLE_ID = 1L << 6;
    static final long SAMPLE_CPU = 1L << 7;
    static final long SAMPLE_PERIOD = 1L << 8;
    static final long SAMPLE_STREAM_ID = 1L << 9;
    static final long SAMPLE_RAW = 1L << 10;
    static final long SAMPLE_BRANCH_STACK = 1L << 11;
    static final long SAMPLE_REGS_USER = 1L << 12;
    static final long SAMPLE_STACK_USER = 1L << 13;
    static final long SAMPLE_IDENTIFIER = 1L << 16;

    static final long FORMAT_TOTAL_TIME_ENABLED = 1;
    static final long FORMAT_TOTAL_TIME_RUNNING = 1 << 1;
    static final long FORMAT_ID = 1 << 2;
    static final long FORMAT_GROUP = 1 << 3;
    static final long FORMAT_LOST = 1 << 4;

    static final long BRANCH_HW_INDEX = 1L << 17;

    boolean has(long bit) {
        return (sampleType & bit) != 0;
    }

    PerfEventAttr named(String n) {
        return new PerfEventAttr(type, config, sampleType, readFormat, sampleIdAll, branchSampleType, n, ids, sampleRegsUser, fixedPeriod);
    }

    /** The bytes of one PERF_SAMPLE_READ value. */
    long readBytes(long groupMembers) {
        if ((readFormat & FORMAT_GROUP) != 0) {
            long perMember = 8 + ((readFormat & FORMAT_ID) != 0 ? 8 : 0) + ((readFormat & FORMAT_LOST) != 0 ? 8 : 0);
            return 8 + timeWords() * 8 + groupMembers * perMember;
        }
        return 8 + timeWords() * 8 + ((readFormat & FORMAT_ID) != 0 ? 8 : 0) + ((readFormat & FORMAT_LOST) != 0 ? 8 : 0);
    }

    private int timeWords() {
        return ((readFormat & FORMAT_TOTAL_TIME_ENABLED) != 0 ? 1 : 0) + ((readFormat & FORMAT_TOTAL_TIME_RUNNING) != 0 ? 1 : 0);
    }
}
