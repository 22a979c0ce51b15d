package org.stackfold.io;

/**
 * A value the user gave on the command line is wrong (an unknown format name, a count out of
 * range). The CLI prints it as one line and exits 2, as for any other usage error. It is an
 * {@link InputException} so that code that only knows "the user's mistake" still handles it.
 */
public class UsageException extends InputException {
    public UsageException(String message) {
        super(message);
    }
}
