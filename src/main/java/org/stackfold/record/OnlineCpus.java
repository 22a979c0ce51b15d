package org.stackfold.record;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The online CPUs, from /sys/devices/system/cpu/online ("0-3,5,7-8"). */
final class OnlineCpus {
    private OnlineCpus() {
    }

    static List<Integer> read() throws IOException {
        return parse(ProcFiles.read(Path.of("/sys/devices/system/cpu/online")));
    }

    static List<Integer> parse(String list) {
        List<Integer> cpus = new ArrayList<>();
        for (String part : list.strip().split(",")) {
            if (part.isEmpty()) {
                continue;
            }
            int dash = part.indexOf('-');
            int from = Integer.parseInt(dash < 0 ? part : part.substring(0, dash));
            int to = dash < 0 ? from : Integer.parseInt(part.substring(dash + 1));
            for (int c = from; c <= to; c++) {
                cpus.add(c);
            }
        }
        return cpus;
    }
}
