package org.stackfold.format;

import java.nio.charset.StandardCharsets;

/** Content detection of the JSON formats: the head of a file as text, where it holds a JSON object. */
public final class JsonHead {
    private JsonHead() {
    }

    /**
     * The head from its first byte past JSON white space, as ISO-8859-1 text (one char a byte, so key
     * names can be searched for), where that byte opens an object; null otherwise.
     */
    public static String objectText(byte[] head, int length) {
        int i = 0;
        while (i < length && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) {
            i++;
        }
        if (i >= length || head[i] != '{') {
            return null;
        }
        return new String(head, i, length - i, StandardCharsets.ISO_8859_1);
    }
}
