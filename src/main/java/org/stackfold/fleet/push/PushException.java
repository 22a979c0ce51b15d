package org.stackfold.fleet.push;

import java.io.IOException;

/** An upload that failed for good: where it went and why (the last attempt's answer). */
public final class PushException extends IOException {
    public PushException(String message) {
        super(message);
    }
}
