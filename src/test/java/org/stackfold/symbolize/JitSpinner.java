package org.stackfold.symbolize;

/** A child JVM for {@link JvmPerfMapTest}: compiles a hot method, says so, then waits for stdin to close. */
public final class JitSpinner {
    private JitSpinner() {
    }

    static double hotLeafMath(double x) {
        return Math.sqrt(x * 1.0001 + 3) * 0.5;
    }

    public static void main(String[] args) throws Exception {
        double sum = 0;
        for (int i = 0; i < 3_000_000; i++) {
            sum += hotLeafMath(i);
        }
        System.out.println("ready " + (sum > 0));
        System.out.flush();
        while (System.in.read() >= 0) {
            Thread.onSpinWait();
        }
    }
}
