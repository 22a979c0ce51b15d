package org.stackfold.io;

import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/** gzip and zstd input streams whose corrupt or truncated data is an {@link InputException} naming the input. */
final class Decompression {
    private Decompression() {
    }

    static InputStream gunzip(String name, InputStream raw) throws IOException {
        InputStream in;
        try {
            in = new GZIPInputStream(raw, 1 << 16); // reads every member of a multi-member file
        } catch (EOFException | ZipException e) {
            throw corrupt(name, "gzip", e);
        }
        return named(name, "gzip", in);
    }

    static InputStream unzstd(String name, InputStream raw) throws IOException {
        // zstd-jni is loaded only when a zstd input shows up.
        InputStream in = new com.github.luben.zstd.ZstdInputStream(raw);
        return named(name, "zstd", in);
    }

    private static InputStream named(String name, String kind, InputStream in) {
        return new FilterInputStream(in) {
            @Override
            public int read() throws IOException {
                try {
                    return super.read();
                } catch (EOFException | ZipException e) {
                    throw corrupt(name, kind, e);
                } catch (IOException e) {
                    throw rethrow(kind, name, e);
                }
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                try {
                    return super.read(b, off, len);
                } catch (EOFException | ZipException e) {
                    throw corrupt(name, kind, e);
                } catch (IOException e) {
                    throw rethrow(kind, name, e);
                }
            }
        };
    }

    /** zstd-jni reports corrupt data as ZstdIOException; other IOExceptions are I/O errors. */
    private static IOException rethrow(String kind, String name, IOException e) {
        if (kind.equals("zstd") && (e instanceof com.github.luben.zstd.ZstdIOException || e instanceof EOFException)) {
            throw corrupt(name, kind, e);
        }
        return e;
    }

    private static InputException corrupt(String name, String kind, IOException e) {
        return new InputException(name + ": truncated or corrupt " + kind + " data"
                + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")"), e);
    }
}
