/** Test workload for stackfold record: a JIT-compiled Java method that burns CPU until its time is up. */
public class Hot {
    static volatile long sink;

    static long burnInJava(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) {
            s += i * 31 ^ (s >>> 3);
        }
        return s;
    }

    public static void main(String[] args) {
        long until = System.nanoTime() + (long) (Double.parseDouble(args[0]) * 1e9);
        while (System.nanoTime() < until) {
            sink += burnInJava(200_000);
        }
    }
}
