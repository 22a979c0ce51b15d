package org.stackfold.cli;

import java.io.PrintWriter;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.stackfold.fleet.push.ProfilePusher;
import org.stackfold.fleet.push.Protocol;
import org.stackfold.fleet.push.PushException;
import org.stackfold.fleet.push.Upload;
import org.stackfold.fleet.store.Labels;
import org.stackfold.io.UsageException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "push", mixinStandardHelpOptions = true,
        description = {"Send profiles to a continuous-profiling server, one upload each: Grafana Pyroscope's ingest API",
                "(folded or pprof) or OpenTelemetry's OTLP/HTTP profiles export. Retries connection errors, timeouts,",
                "429 and 5xx (honouring Retry-After); says which uploads failed and why (docs/fleet.md)."},
        footer = {"", "Examples:",
                "  stackfold push http://pyroscope:4040 cpu.folded --app myapp.cpu --label env=prod --label host=h1",
                "  stackfold push http://127.0.0.1:4040 a.jfr b.pb.gz --protocol pyroscope-pprof --start 2026-11-01T12:00:00Z --end 2026-11-01T12:01:00Z",
                "  stackfold push http://collector:4318 cpu.folded --protocol otlp --gzip --app checkout --label deployment.environment=prod"})
final class PushCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "URL", description = "The server's base URL (http or https).")
    URI url;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "IN", description = "Profiles, one upload each ('-' for stdin).")
    List<String> inputs;

    @Mixin
    PushOptions push;

    @Option(names = "--label", paramLabel = "NAME=VALUE", description = "A label of the series (repeatable; OTLP: a resource attribute).")
    List<String> labels = new ArrayList<>();

    @Option(names = "--start", paramLabel = "T", description = "Start of the profiled time (default: --end minus 10 s).")
    String from;

    @Option(names = "--end", paramLabel = "T", description = "End of the profiled time (default now).")
    String until;

    @Option(names = "--sample-rate", paramLabel = "HZ", description = "Sampling frequency (default ${DEFAULT-VALUE}).")
    int sampleRate = 100;

    @Mixin
    ReadOptions read;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        ProfilePusher pusher = push.pusher(url);
        Map<String, String> labelMap = Labels.map(labels);
        Instant end = until == null ? Instant.now() : StoreCommand.parseTime(until);
        Instant start = from == null ? end.minusSeconds(10) : StoreCommand.parseTime(from);
        if (start.isAfter(end)) {
            throw new UsageException("--start is after --end");
        }
        if (sampleRate < 1) {
            throw new UsageException("--sample-rate must be at least 1");
        }
        ProfileLoader.checkStdinOnce(inputs);
        Upload upload = new Upload(push.app, labelMap, start, end, sampleRate);
        PrintWriter err = spec.commandLine().getErr();
        int failed = 0;
        // Each input is its own upload: one that cannot be read or sent is reported and the others go on
        // (docs/fleet.md); the exit code is 1 if any failed.
        for (String in : inputs) {
            org.stackfold.model.Profile profile;
            try {
                profile = ProfileLoader.load(in, read.formatOptions(), read.from);
            } catch (UsageException e) {
                throw e;
            } catch (org.stackfold.io.InputException e) {
                failed++;
                err.println("stackfold: push " + org.stackfold.io.Printable.of(in) + ": not sent: "
                        + org.stackfold.io.Printable.of(e.getMessage()));
                continue;
            }
            try {
                pusher.push(profile, upload);
            } catch (PushException e) {
                failed++;
                err.println("stackfold: push " + org.stackfold.io.Printable.of(in) + " to " + e.getMessage());
            }
        }
        err.printf("stackfold: pushed %d of %d profiles to %s%n", inputs.size() - failed, inputs.size(),
                org.stackfold.io.Printable.of(ProfilePusher.shown(url.toString())));
        return failed == 0 ? 0 : 1;
    }

    /** How to reach the server, shared by {@code push} and {@code record --push}. */
    static final class PushOptions {
        @Option(names = "--protocol", paramLabel = "P",
                description = "pyroscope (folded to /ingest, the default), pyroscope-pprof (pprof to /ingest) or otlp (OTLP/HTTP /v1development/profiles).")
        String protocol = "pyroscope";

        @Option(names = "--app", paramLabel = "NAME", description = "Application name of the series; OTLP: service.name (default ${DEFAULT-VALUE}).")
        String app = "stackfold.cpu";

        @Option(names = "--attempts", paramLabel = "N", description = "Tries per upload (default ${DEFAULT-VALUE}).")
        int attempts = 4;

        @Option(names = "--timeout", paramLabel = "SECONDS", description = "Time each attempt may take (default ${DEFAULT-VALUE}).")
        double timeout = 10;

        @Option(names = "--gzip", description = "OTLP: send the request body gzip-compressed (Content-Encoding: gzip).")
        boolean gzip;

        /** The longest --timeout, an hour: longer is a mistake, and far from overflowing a Duration in millis. */
        static final double MAX_TIMEOUT = 3600;
        /** An application name: it becomes a Pyroscope series name, where {, }, = and , would add labels. */
        private static final java.util.regex.Pattern APP = java.util.regex.Pattern.compile("[A-Za-z_][A-Za-z0-9_.:/-]*");

        static void checkUrl(URI url) {
            String scheme = url.getScheme();
            String shown = org.stackfold.io.Printable.of(ProfilePusher.shown(url.toString()));
            if (scheme == null || !(scheme.equals("http") || scheme.equals("https")) || url.getHost() == null) {
                throw new UsageException("URL must be http://HOST[:PORT] or https://..., not '" + shown + "'");
            }
            if (url.getPort() > 65535 || url.getPort() == 0) {
                throw new UsageException("URL port must be 1-65535, not " + url.getPort() + " ('" + shown + "')");
            }
            if (url.getRawQuery() != null || url.getRawFragment() != null) {
                throw new UsageException("URL is the server's base URL and takes no ?query or #fragment ('" + shown + "')");
            }
        }

        ProfilePusher pusher(URI url) {
            checkUrl(url);
            if (attempts < 1 || attempts > 100) {
                throw new UsageException("--attempts must be from 1 to 100, not " + attempts);
            }
            if (!(timeout > 0 && timeout <= MAX_TIMEOUT)) {
                throw new UsageException("--timeout must be above 0 and at most " + (int) MAX_TIMEOUT + " seconds, not " + timeout);
            }
            if (!APP.matcher(app).matches()) {
                throw new UsageException("--app '" + org.stackfold.io.Printable.of(app) + "' must match " + APP.pattern()
                        + " (labels go in --label)");
            }
            Protocol p;
            try {
                p = Protocol.byName(protocol);
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
            if (gzip && p != Protocol.OTLP) {
                throw new UsageException("--gzip applies to --protocol otlp only");
            }
            return new ProfilePusher(new ProfilePusher.Target(url, p, attempts,
                    Duration.ofMillis(Math.max(1, (long) (timeout * 1000))), Duration.ofMillis(250), gzip));
        }
    }
}
