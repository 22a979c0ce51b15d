package org.stackfold.collapse.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one-pass parse of usual event lines (a comm seen before, then PID, [CPU], timestamp, period,
 * event) must give exactly the fields of the general word-table rules, on usual lines and on the
 * unusual ones that only look alike.
 */
class EventLineUsualTest {
    private static final String[] COMMS = {"java", "perf", "V8 WorkerThread", "Web Content 2", "x 1.5:", "[x]",
        "a 1 [2]", "kworker/0:1", "sh", "swapper", "12", "a:", "V8"};
    private static final String[] EVENTS = {"cycles:", "cycles:u:", "sched:sched_switch:", "cpu-clock:", "123:",
        "PERF_RECORD_MMAP2:", "x:", ":"};
    private static final String[] RESTS = {"", " ", "  ffffffff9aa3c8de [unknown] ([unknown])",
        " prev_comm=perf prev_pid=9", " PERF_RECORD_COMM: x", "\r"};
    private static final String[] SPACES = {" ", " ", " ", "  ", "\t", " \t "};

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void sameFieldsAsTheGeneralRules(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        EventLine warm = new EventLine(); // remembers comms from line to line, as in a parse
        int usual = 0;
        for (int i = 0; i < 5000; i++) {
            String line = line(r);
            byte[] b = ("##" + line + "##").getBytes(StandardCharsets.ISO_8859_1);
            int s = 2;
            int e = b.length - 2;
            EventLine fresh = new EventLine();
            boolean expected = fresh.parseAny(b, s, e);
            boolean got = warm.parse(b, s, e);
            assertThat(got).as(line).isEqualTo(expected);
            if (expected) {
                assertThat(fields(warm)).as(line).isEqualTo(fields(fresh));
                usual++;
            }
        }
        assertThat(usual).isGreaterThan(1000);
    }

    @Test
    void aCommSeenBeforeDoesNotHideAnEarlierTimestampWord() {
        EventLine ev = new EventLine();
        byte[] first = "a 5 [001] 2.0: cycles:".getBytes(StandardCharsets.US_ASCII);
        assertThat(ev.parse(first, 0, first.length)).isTrue();
        byte[] second = "a 7 1.0: 5 [001] 2.0: cycles:".getBytes(StandardCharsets.US_ASCII);
        assertThat(ev.parse(second, 0, second.length)).isTrue();
        EventLine fresh = new EventLine();
        assertThat(fresh.parseAny(second, 0, second.length)).isTrue();
        assertThat(fields(ev)).isEqualTo(fields(fresh));
        assertThat(new String(second, ev.pidStart, ev.pidEnd - ev.pidStart, StandardCharsets.US_ASCII)).isEqualTo("7");
    }

    /** Lines without a timestamp, after a timestamped line has made their comm a usual one. */
    @Test
    void linesWithoutTimestampGiveTheFieldsOfTheGeneralRules() {
        String[] comms = {"java", "Web Content 2", "a 1/2", "a b", "kworker/0:1", "x y/", "V8 12/"};
        String[] rests = {"123 cpu-clock:", "123 5 cpu-clock:", "123 [001] cpu-clock:", "123/45 cycles:u:",
            "123 5 1.5:", "123 1.5:", "123 cpu-clock: x", "123 PERF_RECORD_MMAP2:", "123 5 6 cycles:",
            "123 123456789012345678901 cycles:", "123 :", "123 cycles", "123 [001] 7 sched:sched_switch:  "};
        for (String comm : comms) {
            for (String rest : rests) {
                EventLine warm = new EventLine();
                byte[] first = (comm + " 9 [000] 1.0: cycles:").getBytes(StandardCharsets.US_ASCII);
                assertThat(warm.parse(first, 0, first.length)).isTrue();
                String line = comm + " " + rest;
                byte[] b = line.getBytes(StandardCharsets.US_ASCII);
                EventLine fresh = new EventLine();
                boolean expected = fresh.parseAny(b, 0, b.length);
                assertThat(warm.parse(b, 0, b.length)).as(line).isEqualTo(expected);
                if (expected) {
                    assertThat(fields(warm)).as(line).isEqualTo(fields(fresh));
                }
            }
        }
    }

    private static String line(SplittableRandom r) {
        StringBuilder sb = new StringBuilder();
        sb.append(COMMS[r.nextInt(COMMS.length)]).append(space(r));
        int pid = r.nextInt(100000);
        sb.append(r.nextInt(8) == 0 ? "x" + pid : pid);
        if (r.nextBoolean()) {
            sb.append('/').append(r.nextInt(5) == 0 ? "" : String.valueOf(r.nextInt(100000)));
        }
        sb.append(space(r));
        if (r.nextInt(3) > 0) {
            sb.append('[').append(String.format("%03d", r.nextInt(64))).append(']').append(space(r));
        }
        if (r.nextInt(10) > 0) {
            sb.append(r.nextInt(10_000_000)).append('.').append(String.format("%06d", r.nextInt(1_000_000)))
                    .append(r.nextInt(20) == 0 ? "" : ":").append(space(r));
        }
        if (r.nextBoolean()) {
            sb.append(r.nextInt(30) == 0 ? "123456789012345678901234" : String.valueOf(1 + r.nextInt(1_000_000)))
                    .append(space(r));
        }
        sb.append(EVENTS[r.nextInt(EVENTS.length)]);
        sb.append(RESTS[r.nextInt(RESTS.length)]);
        return sb.toString();
    }

    private static String space(SplittableRandom r) {
        return SPACES[r.nextInt(SPACES.length)];
    }

    private static String fields(EventLine ev) {
        String comm = ev.commStart + "-" + ev.commEnd + (ev.sideBand ? " side band" : "");
        if (ev.sideBand) {
            return comm;
        }
        return comm + " pid " + ev.pidStart + "-" + ev.pidEnd + " tid " + ev.tidStart + "-" + ev.tidEnd
                + " event " + ev.eventStart + "-" + ev.eventEnd + "/" + ev.baseEventEnd + " period " + ev.period
                + " rest " + ev.restStart + " perl " + ev.perlSeesEvent + " time " + ev.hasTimestamp;
    }
}
