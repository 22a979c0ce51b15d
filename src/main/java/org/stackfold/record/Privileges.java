package org.stackfold.record;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.stackfold.record.bpf.Bpf;
import org.stackfold.record.bpf.BpfMap;
import org.stackfold.record.bpf.ErrnoException;
import org.stackfold.record.bpf.Syscalls;

/**
 * Whether this process may record, and if not, one line saying what is missing and how to grant it.
 * Needs CAP_BPF and CAP_PERFMON (Linux 5.8 and later) or CAP_SYS_ADMIN (root); with those,
 * kernel.perf_event_paranoid does not matter. A probe map catches kernels or sandboxes that refuse
 * bpf(2) anyway.
 */
public final class Privileges {
    private static final int CAP_SYS_ADMIN = 21;
    private static final int CAP_PERFMON = 38;
    private static final int CAP_BPF = 39;

    private Privileges() {
    }

    /** Null when recording can work here, else the one-line reason. */
    public static String missing() {
        if (!Syscalls.supportedPlatform()) {
            return "recording needs Linux on x86-64 (this is " + System.getProperty("os.name") + " on "
                    + System.getProperty("os.arch") + ")";
        }
        long caps = effectiveCapabilities();
        boolean admin = (caps >>> CAP_SYS_ADMIN & 1) != 0;
        boolean bpfAndPerfmon = (caps >>> CAP_BPF & 1) != 0 && (caps >>> CAP_PERFMON & 1) != 0;
        if (!admin && !bpfAndPerfmon) {
            return "recording needs CAP_BPF and CAP_PERFMON (or root): run it with sudo, or grant them with"
                    + " 'sudo setcap cap_bpf,cap_perfmon+ep " + javaBinary() + "'" + sysctls();
        }
        try (BpfMap probe = BpfMap.create("sf_probe", Bpf.MAP_TYPE_ARRAY, 4, 8, 1)) {
            return null;
        } catch (ErrnoException e) {
            return "recording: the kernel refused bpf(2) (" + ErrnoException.name(e.errno())
                    + "): a kernel without CONFIG_BPF_SYSCALL, or a sandbox (container seccomp profile) that blocks it"
                    + sysctls();
        }
    }

    private static long effectiveCapabilities() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("CapEff:")) {
                    return Long.parseUnsignedLong(line.substring(7).strip(), 16);
                }
            }
        } catch (IOException | NumberFormatException e) {
            // No /proc: treated as no capabilities, the probe would fail too.
        }
        return 0;
    }

    private static String sysctls() {
        return " (kernel.perf_event_paranoid=" + sysctl("perf_event_paranoid") + ", kernel.unprivileged_bpf_disabled="
                + sysctl("unprivileged_bpf_disabled") + ")";
    }

    private static String sysctl(String name) {
        try {
            return ProcFiles.read(Path.of("/proc/sys/kernel/" + name)).strip();
        } catch (IOException e) {
            return "?";
        }
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
