package org.stackfold.record;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import org.stackfold.io.TempFiles;
import org.stackfold.record.bpf.ErrnoException;
import org.stackfold.record.bpf.Syscalls;

/**
 * Asks a running HotSpot JVM to write /tmp/perf-PID.map (what {@code jcmd PID Compiler.perfmap} does)
 * through the JVM's attach protocol, without starting a jcmd JVM (~0.5 s of CPU each time): connect
 * to the {@code /tmp/.java_pidN} socket, send {@code 1\0jcmd\0Compiler.perfmap\0\0\0}, read the
 * status line.
 *
 * <p>A recording runs beside other people's programs, so it is passive by default (docs/record.md):
 * it only connects to an attach listener that is already running (its socket exists, is a socket,
 * belongs to the JVM's user, and this process may use it: the same user, or root). Starting a
 * listener means creating {@code .attach_pidN} in the JVM's directory and sending SIGQUIT, which a
 * JVM started with {@code -XX:+DisableAttachMechanism} (or one that has not installed its handlers
 * yet) answers with a thread dump on its own stdout, or by dying: that is done only for processes
 * the recording started itself, or with {@code record --jvm-attach}. The trigger file is removed
 * whatever happens, also when the recorder is interrupted (a shutdown hook through
 * {@link TempFiles}).
 *
 * <p>SIGQUIT is only sent once the JVM has installed its handler (SigCgt in /proc/PID/status): before
 * that, the signal's default action would kill it.
 */
final class JvmPerfMap {
    private static final int SIGQUIT = 3;
    private static final long WAIT_NANOS = 3_000_000_000L;

    private JvmPerfMap() {
    }

    /** True when the process runs a JVM: its executable is "java" or it has libjvm.so mapped. */
    static boolean isJvm(int pid) {
        try {
            Path exe = Files.readSymbolicLink(Path.of("/proc/" + pid + "/exe"));
            if (exe.getFileName() != null && exe.getFileName().toString().equals("java")) {
                return true;
            }
            return ProcFiles.read(Path.of("/proc/" + pid + "/maps")).contains("/libjvm.so");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Where the JVM {@code pid} writes its perf map, as this process sees it. */
    static Path perfMapPath(int pid) {
        try {
            String status = ProcFiles.read(Path.of("/proc/" + pid + "/status"));
            return Path.of("/proc/" + pid + "/root/tmp/perf-" + namespacePid(status, pid) + ".map");
        } catch (IOException | RuntimeException e) {
            return Path.of("/tmp/perf-" + pid + ".map");
        }
    }

    /**
     * Asks the JVM to write its perf map; false when it could not be asked (gone, not ready, refused,
     * no running attach listener and {@code mayStartListener} false).
     */
    static boolean request(int pid, boolean mayStartListener) {
        try {
            String status = ProcFiles.read(Path.of("/proc/" + pid + "/status"));
            int nsPid = namespacePid(status, pid);
            Path socket = Path.of("/proc/" + pid + "/root/tmp/.java_pid" + nsPid);
            if (!usableSocket(socket, status, ourEffectiveUid())) {
                if (!mayStartListener || attachDisabled(pid) || !startAttachListener(pid, nsPid, status, socket)
                        || !usableSocket(socket, status, ourEffectiveUid())) {
                    return false;
                }
            }
            try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
                ch.write(ByteBuffer.wrap("1\0jcmd\0Compiler.perfmap\0\0\0".getBytes(StandardCharsets.US_ASCII)));
                ByteBuffer reply = ByteBuffer.allocate(4096);
                while (ch.read(reply) >= 0 && reply.hasRemaining()) {
                    // read until the JVM closes the connection
                }
                String text = new String(reply.array(), 0, reply.position(), StandardCharsets.UTF_8);
                return text.startsWith("0\n");
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Whether {@code socket} is a running attach listener this process may use: a socket (not a file
     * someone planted), owned by the JVM's effective user, and that user is us or we are root (HotSpot
     * accepts only those peers).
     */
    static boolean usableSocket(Path socket, String status, int ourUid) {
        try {
            BasicFileAttributes a = Files.readAttributes(socket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isOther()) {
                return false;
            }
            int owner = (Integer) Files.getAttribute(socket, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            int mode = (Integer) Files.getAttribute(socket, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            boolean isSocket = (mode & 0170000) == 0140000;
            int jvmUid = effectiveUid(status);
            return isSocket && owner == jvmUid && (ourUid == 0 || ourUid == jvmUid);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Whether the JVM was told not to listen: {@code -XX:+DisableAttachMechanism} on its command line or in its environment. */
    static boolean attachDisabled(int pid) {
        for (String file : new String[] {"cmdline", "environ"}) {
            try {
                if (ProcFiles.read(Path.of("/proc/" + pid + "/" + file)).contains("DisableAttachMechanism")) {
                    return true;
                }
            } catch (IOException | RuntimeException e) {
                if (file.equals("cmdline")) {
                    return true; // cannot tell: do not signal
                }
            }
        }
        return false;
    }

    private static boolean startAttachListener(int pid, int nsPid, String status, Path socket) throws IOException {
        if (!handlesSigquit(status)) {
            return false;
        }
        Path trigger = Path.of("/proc/" + pid + "/cwd/.attach_pid" + nsPid);
        try {
            if (Files.exists(trigger, LinkOption.NOFOLLOW_LINKS)) {
                return false; // someone else's attach in progress: their file, not ours to remove
            }
            TempFiles.register(trigger);
            Files.createFile(trigger);
        } catch (IOException e) {
            TempFiles.forget(trigger);
            trigger = Path.of("/proc/" + pid + "/root/tmp/.attach_pid" + nsPid);
            if (Files.exists(trigger, LinkOption.NOFOLLOW_LINKS)) {
                return false;
            }
            TempFiles.register(trigger);
            try {
                Files.createFile(trigger);
            } catch (IOException again) {
                TempFiles.forget(trigger);
                return false;
            }
        }
        try {
            Syscalls.kill(pid, SIGQUIT);
            long until = System.nanoTime() + WAIT_NANOS;
            while (!Files.exists(socket)) {
                if (System.nanoTime() > until) {
                    return false;
                }
                Thread.sleep(20);
            }
            return true;
        } catch (ErrnoException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            TempFiles.delete(trigger);
        }
    }

    /** Whether SIGQUIT is caught (bit 2 of SigCgt): the JVM's signal handlers are in place. */
    static boolean handlesSigquit(String status) {
        for (String line : status.split("\n")) {
            if (line.startsWith("SigCgt:")) {
                return (Long.parseUnsignedLong(line.substring(7).strip(), 16) >>> (SIGQUIT - 1) & 1) != 0;
            }
        }
        return false;
    }

    /** The effective uid of a /proc/PID/status (the second field of {@code Uid:}), or -1. */
    static int effectiveUid(String status) {
        for (String line : status.split("\n")) {
            if (line.startsWith("Uid:")) {
                String[] f = line.substring(4).strip().split("\\s+");
                return f.length > 1 ? Integer.parseInt(f[1]) : -1;
            }
        }
        return -1;
    }

    private static int ourEffectiveUid() {
        try {
            return effectiveUid(ProcFiles.read(Path.of("/proc/self/status")));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The pid inside the process's own pid namespace (the last NSpid field), which names its files. */
    static int namespacePid(String status, int pid) {
        for (String line : status.split("\n")) {
            if (line.startsWith("NSpid:")) {
                String[] f = line.substring(6).strip().split("\\s+");
                return Integer.parseInt(f[f.length - 1]);
            }
        }
        return pid;
    }
}
