package org.stackfold.fleet.store;

/** SQL literals for the statements the fleet code builds (paths, options). */
public final class Sql {
    private Sql() {
    }

    /** A single-quoted SQL string literal. */
    public static String string(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}
