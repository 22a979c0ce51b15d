package org.stackfold.format.v8log;

import java.io.BufferedInputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.stackfold.format.FormatOptions;
import org.stackfold.io.Input;
import org.stackfold.io.InputException;
import org.stackfold.io.TempFiles;

/**
 * A raw {@code isolate-*.log} of {@code node --prof}. Its ticks are addresses that only V8's tick
 * processor (code-creation and code-move events, shared libraries' symbols through {@code nm})
 * turns into functions, so rather than repeating it this runs {@code node --prof-process
 * --preprocess}, the step speedscope asks its users to run by hand, and reads its JSON.
 */
final class IsolateLog {
    private IsolateLog() {
    }

    /** The log's first line: "v8-version,MAJOR,...". */
    static boolean looksLikeOne(String head) {
        return head.startsWith("v8-version,");
    }

    /** The preprocessed JSON of the log, in a temporary file the caller reads and deletes. */
    static Path preprocess(Input in) throws IOException {
        String node = nodeExecutable();
        if (node == null) {
            throw new InputException(in.name() + ": a V8 --prof log; reading it needs node (not found on PATH): "
                    + "run 'node --prof-process --preprocess LOG > profile.v8log.json' where node is, and read that");
        }
        Path log = in.file();
        Path json = TempFiles.create("v8log");
        Path errors = TempFiles.create("v8log-err");
        try {
            Process p = new ProcessBuilder(List.of(node, "--prof-process", "--preprocess", log.toString()))
                    .redirectOutput(json.toFile()).redirectError(errors.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            int exit;
            try {
                exit = p.waitFor();
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new InputException(in.name() + ": interrupted while node --prof-process ran");
            }
            if (exit != 0 || Files.size(json) == 0) {
                String why = Files.readAllLines(errors, StandardCharsets.UTF_8).stream()
                        .filter(l -> !l.isBlank()).findFirst().orElse("exit status " + exit);
                TempFiles.delete(json);
                throw new InputException(in.name() + ": node --prof-process --preprocess failed: " + why);
            }
            return json;
        } finally {
            TempFiles.delete(errors);
        }
    }

    /**
     * The JSON output as an input named after the log. Lines before the JSON (node prints "Testing v8
     * version different from logging version" there for an older node's log) become warnings.
     */
    static Input openJson(String logName, Path json, FormatOptions options) throws IOException {
        BufferedInputStream s = new BufferedInputStream(Files.newInputStream(json), 1 << 16);
        try {
            StringBuilder line = new StringBuilder();
            while (true) {
                s.mark(1);
                int c = s.read();
                if (c < 0 || (c == '{' && line.isEmpty())) {
                    s.reset();
                    break;
                }
                if (c == '\n') {
                    if (!line.toString().isBlank()) {
                        options.warn(logName + ": node --prof-process: " + line.toString().trim());
                    }
                    line.setLength(0);
                } else if (line.length() < 200) {
                    line.append((char) c);
                }
            }
            return Input.ofStream(logName, s);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private static String nodeExecutable() {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            for (String name : List.of("node", "nodejs")) {
                Path p = Path.of(dir.isEmpty() ? "." : dir, name);
                if (Files.isExecutable(p)) {
                    return p.toString();
                }
            }
        }
        return null;
    }
}
