package org.stackfold.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Small text files given as options (a palette map, a name-attributes file): read as strict UTF-8
 * lines, and every problem an {@link InputException} naming the file and, for bad bytes, the line.
 */
public final class TextFiles {
    /** Option files are hand-written: anything larger is a mistake (a profile given by error). */
    private static final long MAX = 64L << 20;

    private TextFiles() {
    }

    public static List<String> readLines(Path file) {
        String name = file.toString();
        if (Files.isDirectory(file)) {
            throw new InputException(name + ": is a directory");
        }
        byte[] b;
        try {
            if (Files.size(file) > MAX) {
                throw new InputException(name + ": larger than " + Sizes.format(MAX) + "; not an option file");
            }
            // Bounded as it is read: a device or pipe (/dev/zero) reports no size and never ends.
            try (java.io.InputStream in = Files.newInputStream(file)) {
                b = in.readNBytes((int) MAX + 1);
            }
            if (b.length > MAX) {
                throw new InputException(name + ": more than " + Sizes.format(MAX) + "; not an option file");
            }
        } catch (NoSuchFileException e) {
            throw new InputException(name + ": no such file");
        } catch (AccessDeniedException e) {
            throw new InputException(name + ": permission denied");
        } catch (IOException e) {
            throw new InputException(name + ": cannot read: " + Input.reason(e), e);
        }
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        List<String> lines = new ArrayList<>();
        int start = b.length >= 3 && (b[0] & 0xff) == 0xEF && (b[1] & 0xff) == 0xBB && (b[2] & 0xff) == 0xBF ? 3 : 0;
        for (int i = start; i <= b.length; i++) {
            if (i == b.length || b[i] == '\n') {
                if (i == b.length && i == start) {
                    break; // no text after the last newline
                }
                int end = i > start && b[i - 1] == '\r' ? i - 1 : i;
                try {
                    lines.add(utf8.decode(ByteBuffer.wrap(b, start, end - start)).toString());
                } catch (CharacterCodingException e) {
                    throw InputException.atLine(name, lines.size() + 1, "not valid UTF-8 text");
                }
                start = i + 1;
            }
        }
        return lines;
    }
}
