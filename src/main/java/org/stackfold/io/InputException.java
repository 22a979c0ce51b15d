package org.stackfold.io;

/**
 * Bad input: the message names the source (file, line or byte offset) and what was wrong. The CLI
 * prints it as one line and exits 1; it is never a stack trace. Control characters quoted from the
 * input are shown escaped ({@link Printable}).
 */
public class InputException extends RuntimeException {
    public InputException(String message) {
        super(Printable.of(message));
    }

    public InputException(String message, Throwable cause) {
        super(Printable.of(message), cause);
    }

    /** "{@code source}:{@code line}: {@code what}" */
    public static InputException atLine(String source, long line, String what) {
        return new InputException(source + ":" + line + ": " + what);
    }

    /** "{@code source}: at byte offset {@code offset}: {@code what}" */
    public static InputException atOffset(String source, long offset, String what) {
        return new InputException(source + ": at byte offset " + offset + ": " + what);
    }
}
