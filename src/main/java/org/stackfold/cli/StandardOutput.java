package org.stackfold.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import org.stackfold.io.StandardStreams;

/**
 * The process's standard output, which remembers why it failed: a full device ({@code >/dev/full}),
 * a closed descriptor ({@code >&-}, where the JVM has put a file of its own on descriptor 1, so
 * nothing may be written there), a reader gone away. {@link Main} turns that into one line.
 */
final class StandardOutput extends OutputStream {
    private final OutputStream fd = new FileOutputStream(FileDescriptor.out);
    private final boolean closed = StandardStreams.stdoutClosed();
    private String failure;
    private boolean readerGone;

    String failure() {
        return failure;
    }

    /** The reading end of a pipe was closed (EPIPE): the reader chose to stop, which is no error to report. */
    boolean readerGone() {
        return readerGone;
    }

    /** True for the error AtomicOutput reports when the reader of standard output has gone. */
    static boolean isReaderGone(java.io.IOException e) {
        return "standard output: Broken pipe".equals(e.getMessage());
    }

    private IOException fail(IOException e) {
        if (failure == null) {
            String m = e.getMessage();
            readerGone = "Broken pipe".equals(m);
            failure = m == null ? e.toString()
                    : m.equals("Broken pipe") ? "broken pipe (the reading end was closed)" : m;
        }
        return e;
    }

    private void check() throws IOException {
        if (closed) {
            throw fail(new IOException("closed (the command started with >&-); use -o FILE"));
        }
    }

    @Override
    public void write(int b) throws IOException {
        check();
        try {
            fd.write(b);
        } catch (IOException e) {
            throw fail(e);
        }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        check();
        try {
            fd.write(b, off, len);
        } catch (IOException e) {
            throw fail(e);
        }
    }
}
