package org.stackfold.record;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.stackfold.record.bpf.ErrnoException;
import org.stackfold.record.bpf.Syscalls;

/**
 * Asks a running HotSpot JVM to write /tmp/perf-PID.map (what {@code jcmd PID Compiler.perfmap} does)
 * through the JVM's attach protocol, without starting a jcmd JVM (~0.5 s of CPU each time): create
 * {@code .attach_pidN}, send SIGQUIT, connect to the {@code /tmp/.java_pidN} socket the JVM then
 * opens, send {@code 1\0jcmd\0Compiler.perfmap\0\0\0}, read the status line.
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

    /** Asks the JVM to write its perf map; false when it could not be asked (gone, not ready, refused). */
    static boolean request(int pid) {
        try {
            String status = ProcFiles.read(Path.of("/proc/" + pid + "/status"));
            int nsPid = namespacePid(status, pid);
            Path socket = Path.of("/proc/" + pid + "/root/tmp/.java_pid" + nsPid);
            if (!Files.exists(socket) && !startAttachListener(pid, nsPid, status, socket)) {
                return false;
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

    private static boolean startAttachListener(int pid, int nsPid, String status, Path socket) throws IOException {
        if (!handlesSigquit(status)) {
            return false;
        }
        Path trigger = Path.of("/proc/" + pid + "/cwd/.attach_pid" + nsPid);
        try {
            Files.createFile(trigger);
        } catch (IOException e) {
            trigger = Path.of("/proc/" + pid + "/root/tmp/.attach_pid" + nsPid);
            Files.deleteIfExists(trigger);
            Files.createFile(trigger);
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
            Files.deleteIfExists(trigger);
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
