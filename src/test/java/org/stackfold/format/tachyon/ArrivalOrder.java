package org.stackfold.format.tachyon;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Recovers, from a file CPython wrote, an order in which its writer can have received the samples,
 * so that writing them again in that order must give the same bytes. Stack changes are written at
 * once, so they keep their file order; repeated samples wait in a per-thread buffer, which is
 * written when the thread's stack changes (just before that record), when the buffer is full (when
 * the next repeated sample arrives: the first sample of the thread's next REPEAT record), or at the
 * end, threads in order of first appearance. The first sample of a thread that starts with a
 * REPEAT record (an empty stack) may have come at any earlier time; it is placed so that the
 * threads flushed at the end appear in the order their final records have.
 */
final class ArrivalOrder {
    record Sample(long tid, int interp, int status, long timestamp, int[] frames) {
    }

    private record Rec(int thread, int enc, List<Sample> samples) {
    }

    private ArrivalOrder() {
    }

    static List<Sample> of(TachyonFile f) {
        List<Rec> recs = new ArrayList<>();
        new TachyonReplay(f).run(new SampleListener() {
            @Override
            public void record(TachyonThread t, int enc) {
                recs.add(new Rec(t.ordinal(), enc, new ArrayList<>()));
            }

            @Override
            public void samples(TachyonThread t, int status, long[] ts, int n) {
                int[] frames = new int[t.depth()];
                for (int i = 0; i < frames.length; i++) {
                    frames[i] = t.frame(frames.length - 1 - i);
                }
                for (int i = 0; i < n; i++) {
                    recs.getLast().samples().add(new Sample(t.threadId(), t.interpreterId(), status, ts[i], frames));
                }
            }
        });
        int nThreads = 0;
        for (Rec r : recs) {
            nThreads = Math.max(nThreads, r.thread() + 1);
        }
        List<List<Sample>> perThread = new ArrayList<>();
        List<List<Integer>> recsOf = new ArrayList<>();
        for (int i = 0; i < nThreads; i++) {
            perThread.add(new ArrayList<>());
            recsOf.add(new ArrayList<>());
        }
        // Where each record's samples start in its thread's sequence.
        int[] startInThread = new int[recs.size()];
        for (int i = 0; i < recs.size(); i++) {
            Rec r = recs.get(i);
            startInThread[i] = perThread.get(r.thread()).size();
            perThread.get(r.thread()).addAll(r.samples());
            recsOf.get(r.thread()).add(i);
        }
        // Emission "up to" index (exclusive) in the thread's sequence, at each record.
        int[] emitUpTo = new int[recs.size()];
        java.util.Arrays.fill(emitUpTo, -1);
        int[] nextRec = new int[recs.size()];
        java.util.Arrays.fill(nextRec, -1);
        for (List<Integer> l : recsOf) {
            for (int k = 0; k + 1 < l.size(); k++) {
                nextRec[l.get(k)] = l.get(k + 1);
            }
        }
        for (int i = 0; i < recs.size(); i++) {
            Rec r = recs.get(i);
            if (r.enc() != Tachyon.REPEAT) {
                emitUpTo[i] = startInThread[i] + 1;
            } else if (nextRec[i] >= 0 && recs.get(nextRec[i]).enc() == Tachyon.REPEAT) {
                emitUpTo[i] = startInThread[nextRec[i]] + 1; // the sample that did not fit
            }
        }
        // Natural first emission of each thread, and whether its first sample could be earlier.
        int[] natural = new int[nThreads];
        java.util.Arrays.fill(natural, recs.size());
        boolean[] flexible = new boolean[nThreads];
        for (int t = 0; t < nThreads; t++) {
            List<Integer> l = recsOf.get(t);
            flexible[t] = recs.get(l.getFirst()).enc() == Tachyon.REPEAT;
            for (int i : l) {
                if (emitUpTo[i] > 0) {
                    natural[t] = i;
                    break;
                }
            }
        }
        // Threads flushed at the end: those whose last record is a REPEAT, in that record's order.
        List<Integer> finalOrder = new ArrayList<>();
        for (int i = 0; i < recs.size(); i++) {
            Rec r = recs.get(i);
            if (r.enc() == Tachyon.REPEAT && recsOf.get(r.thread()).getLast() == i) {
                finalOrder.add(r.thread());
            }
        }
        Map<Integer, List<Integer>> hoists = new HashMap<>();
        double last = -1;
        for (int t : finalOrder) {
            if (!flexible[t]) {
                last = natural[t];
            } else {
                int q = last == Math.floor(last) ? (int) last + 1 : (int) Math.ceil(last);
                hoists.computeIfAbsent(q, k -> new ArrayList<>()).add(t);
                last = q - 0.5;
            }
        }
        int[] emitted = new int[nThreads];
        List<Sample> out = new ArrayList<>();
        for (int i = 0; i <= recs.size(); i++) {
            for (int t : hoists.getOrDefault(i, List.of())) {
                if (emitted[t] == 0) {
                    out.add(perThread.get(t).getFirst());
                    emitted[t] = 1;
                }
            }
            if (i == recs.size()) {
                break;
            }
            int t = recs.get(i).thread();
            while (emitted[t] < emitUpTo[i]) {
                out.add(perThread.get(t).get(emitted[t]++));
            }
        }
        for (int t = 0; t < nThreads; t++) {
            while (emitted[t] < perThread.get(t).size()) {
                out.add(perThread.get(t).get(emitted[t]++));
            }
        }
        return out;
    }
}
