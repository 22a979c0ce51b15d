package org.stackfold.collapse;

/**
 * Java method names in thread dumps and exception traces ({@code at pkg.Class.method(File.java:1)}),
 * shared by the jstack, IBM javacore and exception-log collapsers.
 */
final class JavaFrames {
    private JavaFrames() {
    }

    /**
     * The end of the method name of an {@code at} line whose name starts at {@code from}: the first
     * {@code (}, or the line's end (perl's {@code at ([^\(]*)}).
     */
    static int nameEnd(byte[] b, int from, int end) {
        int paren = Bytes.indexOf(b, from, end, '(');
        return paren < 0 ? end : paren;
    }

    /**
     * FlameGraph's {@code --shorten-pkgs}: {@code org.example.Foo.bar} becomes {@code o.e.Foo.bar}
     * (each package word cut to its first character); {@code noPkgs} keeps only {@code Foo.bar}.
     * A name with fewer than two dots is kept (perl makes it empty).
     */
    static String shorten(String func, boolean noPkgs) {
        int last = func.lastIndexOf('.');
        int cls = last > 0 ? func.lastIndexOf('.', last - 1) : -1;
        if (cls < 0 || cls == last - 1 || last == func.length() - 1) {
            return func;
        }
        String clsFunc = func.substring(cls + 1);
        if (noPkgs) {
            return clsFunc;
        }
        StringBuilder out = new StringBuilder(func.length());
        String pkgs = func.substring(0, cls + 1);
        boolean inWord = false;
        for (int i = 0; i < pkgs.length(); i++) {
            char c = pkgs.charAt(i);
            boolean word = c < 128 && (Character.isLetterOrDigit(c) || c == '_');
            if (!word || !inWord) {
                out.append(c);
            }
            inWord = word;
        }
        return out.append(clsFunc).toString();
    }
}
