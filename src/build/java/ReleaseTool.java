import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Helpers of scripts/release, run from source by the JDK (no zip or XML tool needed on the build machine):
 * <ul>
 * <li>{@code slim JAR OUT REGEX DIR}: copies JAR to OUT without the entries whose names match REGEX
 * (the natives of other platforms), and writes those entries named {@code linux/amd64/NAME} or
 * ending in {@code _linux_amd64} into DIR as {@code NAME} (DuckDB's as {@code libduckdb_java.so}), where
 * System.loadLibrary finds them through java.library.path: nothing is unpacked to /tmp at run time.</li>
 * <li>{@code aot-args POM ID}: the arguments of the pom's exec execution ID (the AOT training runs),
 * one a line, with ${project.basedir}, ${project.build.directory} and the pom's properties replaced:
 * the release trains its caches exactly as the development build does.</li>
 * </ul>
 */
public class ReleaseTool {
    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "slim" -> slim(Path.of(args[1]), Path.of(args[2]), Pattern.compile(args[3]), Path.of(args[4]));
            case "aot-args" -> aotArgs(Path.of(args[1]), args[2]);
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    static void slim(Path jar, Path out, Pattern drop, Path natives) throws IOException {
        Files.createDirectories(natives);
        int kept = 0;
        int dropped = 0;
        try (JarFile in = new JarFile(jar.toFile(), false); OutputStream fo = Files.newOutputStream(out);
                JarOutputStream jo = new JarOutputStream(fo)) {
            for (Enumeration<JarEntry> e = in.entries(); e.hasMoreElements();) {
                JarEntry entry = e.nextElement();
                String name = entry.getName();
                if (drop.matcher(name).matches()) {
                    dropped++;
                    String file = null;
                    if (name.startsWith("linux/amd64/")) {
                        file = name.substring("linux/amd64/".length());
                    } else if (name.endsWith("_linux_amd64") && name.startsWith("libduckdb_java.so")) {
                        file = "libduckdb_java.so";
                    }
                    if (file != null && !file.isEmpty()) {
                        try (InputStream is = in.getInputStream(entry)) {
                            Files.copy(is, natives.resolve(file), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                        }
                    }
                    continue;
                }
                JarEntry copy = new JarEntry(name);
                copy.setTime(entry.getTime());
                jo.putNextEntry(copy);
                try (InputStream is = in.getInputStream(entry)) {
                    is.transferTo(jo);
                }
                jo.closeEntry();
                kept++;
            }
        }
        System.out.println("ReleaseTool: " + out.getFileName() + ": " + kept + " entries kept, " + dropped + " dropped");
    }

    static void aotArgs(Path pom, String id) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        Document doc = f.newDocumentBuilder().parse(pom.toFile());
        Map<String, String> props = new HashMap<>();
        Path base = pom.toAbsolutePath().getParent();
        props.put("project.basedir", base.toString());
        props.put("project.build.directory", base.resolve("target").toString());
        NodeList p = doc.getElementsByTagName("properties");
        for (int i = 0; i < p.getLength(); i++) {
            NodeList kids = p.item(i).getChildNodes();
            for (int k = 0; k < kids.getLength(); k++) {
                if (kids.item(k) instanceof Element e) {
                    props.putIfAbsent(e.getTagName(), e.getTextContent().trim());
                }
            }
        }
        NodeList ids = doc.getElementsByTagName("id");
        for (int i = 0; i < ids.getLength(); i++) {
            if (!ids.item(i).getTextContent().trim().equals(id)) {
                continue;
            }
            Element execution = (Element) ids.item(i).getParentNode();
            NodeList arguments = execution.getElementsByTagName("argument");
            List<String> out = new ArrayList<>();
            for (int a = 0; a < arguments.getLength(); a++) {
                out.add(expand(arguments.item(a).getTextContent().trim(), props));
            }
            StringBuilder sb = new StringBuilder();
            out.forEach(s -> sb.append(s).append('\n'));
            System.out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
            System.out.flush();
            return;
        }
        throw new IllegalArgumentException("no execution " + id + " in " + pom);
    }

    private static String expand(String s, Map<String, String> props) {
        for (int round = 0; round < 5 && s.contains("${"); round++) {
            Matcher m = Pattern.compile("\\$\\{([^}]+)}").matcher(s);
            StringBuilder sb = new StringBuilder();
            while (m.find()) {
                String v = props.get(m.group(1));
                m.appendReplacement(sb, Matcher.quoteReplacement(v == null ? m.group() : v));
            }
            m.appendTail(sb);
            s = sb.toString();
        }
        return s;
    }
}
