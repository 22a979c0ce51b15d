import java.io.IOException;
import java.io.OutputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassFileVersion;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collections;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * Build step (run by the pom on the shaded jar, before the AOT training run): rewrites the class files
 * older than Java 6 (picocli's, compiled for Java 5) as Java 8 class files with stack maps.
 *
 * <p>Why: JDK 25's AOT cache stores classes loaded and linked, but not classes of version 49 or older
 * ("Old class has been linked": they are checked by the old type-inferring verifier at run time), so
 * without this every run loads, parses and verifies picocli's ~170 classes again. Only the version
 * and the stack maps change; the code is the same instructions, and each rewritten class must pass
 * the class-file verifier here or the build fails.
 *
 * <p>Usage: {@code java src/build/java/LinkableClasses.java JAR} (rewrites JAR in place).
 */
public final class LinkableClasses {
    private static final int OLDEST_LINKABLE = ClassFile.JAVA_6_VERSION;
    private static final int TARGET = ClassFile.JAVA_8_VERSION;

    public static void main(String[] args) throws IOException {
        Path jar = Path.of(args[0]);
        Path out = jar.resolveSibling(jar.getFileName() + ".tmp");
        int rewritten = 0;
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null);
                ZipFile in = new ZipFile(jar.toFile());
                OutputStream file = Files.newOutputStream(out);
                ZipOutputStream zip = new ZipOutputStream(file)) {
            // Stack maps need the supertypes of the jar's own classes: read them from the jar itself.
            ClassFile cf = ClassFile.of(ClassFile.StackMapsOption.GENERATE_STACK_MAPS,
                    ClassFile.ClassHierarchyResolverOption.of(ClassHierarchyResolver.defaultResolver()
                            .orElse(ClassHierarchyResolver.ofResourceParsing(loader))));
            for (ZipEntry e : Collections.list(in.entries())) {
                byte[] bytes = in.getInputStream(e).readAllBytes();
                if (e.getName().endsWith(".class") && !e.getName().startsWith("META-INF/") && major(bytes) < OLDEST_LINKABLE) {
                    bytes = upgrade(cf, bytes, e.getName());
                    rewritten++;
                }
                ZipEntry copy = new ZipEntry(e.getName());
                copy.setTime(e.getTime());
                zip.putNextEntry(copy);
                zip.write(bytes);
                zip.closeEntry();
            }
        }
        Files.move(out, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        System.out.println("LinkableClasses: " + rewritten + " class files of " + jar.getFileName() + " now version " + TARGET);
    }

    private static int major(byte[] c) {
        return c.length < 8 ? Integer.MAX_VALUE : ((c[6] & 0xff) << 8) | (c[7] & 0xff);
    }

    private static byte[] upgrade(ClassFile cf, byte[] bytes, String name) {
        // Passing each method body through a code transform makes the library write it anew, with
        // stack maps computed for the new version.
        byte[] upgraded = cf.transformClass(cf.parse(bytes), ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL)
                .andThen((builder, element) -> {
                    if (element instanceof ClassFileVersion) {
                        builder.withVersion(TARGET, 0);
                    } else {
                        builder.with(element);
                    }
                }));
        List<VerifyError> errors = cf.verify(upgraded);
        if (!errors.isEmpty()) {
            throw new IllegalStateException(name + " does not verify once rewritten: " + errors);
        }
        return upgraded;
    }
}
