package org.stackfold.record.python;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads another process's memory through {@code /proc/PID/mem} (positional reads, nothing
 * written, no signal sent: the process is never stopped). Every read either returns all the bytes
 * asked for or throws {@link MemoryFault}, as a failed {@code bpf_probe_read_user} would.
 */
public final class ProcessMemory implements Closeable {
    private final int pid;
    private final FileChannel channel;
    private final ByteBuffer word = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
    private long reads;

    /** A read of unmapped memory, or of a process that is gone. */
    public static final class MemoryFault extends IOException {
        MemoryFault(String message) {
            super(message);
        }
    }

    private ProcessMemory(int pid, FileChannel channel) {
        this.pid = pid;
        this.channel = channel;
    }

    public static ProcessMemory open(int pid) throws IOException {
        return new ProcessMemory(pid, FileChannel.open(Path.of("/proc/" + pid + "/mem"), StandardOpenOption.READ));
    }

    public int pid() {
        return pid;
    }

    /** How many reads were made (one per call, as each would be one probe read in BPF). */
    public long reads() {
        return reads;
    }

    /** Reads {@code n} bytes at {@code address} into a new array. */
    public byte[] read(long address, int n) throws MemoryFault {
        byte[] b = new byte[n];
        read(address, ByteBuffer.wrap(b));
        return b;
    }

    private void read(long address, ByteBuffer into) throws MemoryFault {
        reads++;
        if (address <= 0 || address + into.remaining() < address) {
            throw new MemoryFault(String.format("pid %d: bad address 0x%x", pid, address));
        }
        try {
            long at = address;
            while (into.hasRemaining()) {
                int got = channel.read(into, at);
                if (got <= 0) {
                    throw new MemoryFault(String.format("pid %d: nothing at 0x%x", pid, at));
                }
                at += got;
            }
        } catch (MemoryFault e) {
            throw e;
        } catch (IOException e) {
            throw new MemoryFault(String.format("pid %d: cannot read 0x%x: %s", pid, address, e.getMessage()));
        }
    }

    public long u64(long address) throws MemoryFault {
        word.clear();
        read(address, word);
        return word.getLong(0);
    }

    public int u32(long address) throws MemoryFault {
        word.clear().limit(4);
        read(address, word);
        return word.getInt(0);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
