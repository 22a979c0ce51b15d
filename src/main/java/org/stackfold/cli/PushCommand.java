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
        for (String in : inputs) {
            try {
                pusher.push(ProfileLoader.load(in, read.formatOptions(), read.from), upload);
            } catch (PushException e) {
                failed++;
                err.println("stackfold: push " + org.stackfold.io.Printable.of(in) + " to " + e.getMessage());
            }
        }
        err.printf("stackfold: pushed %d of %d profiles to %s%n", inputs.size() - failed, inputs.size(), url);
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

        static void checkUrl(URI url) {
            String scheme = url.getScheme();
            if (scheme == null || !(scheme.equals("http") || scheme.equals("https")) || url.getHost() == null) {
                throw new UsageException("URL must be http://HOST[:PORT] or https://..., not '" + url + "'");
            }
        }

        ProfilePusher pusher(URI url) {
            checkUrl(url);
            if (attempts < 1 || !(timeout > 0)) {
                throw new UsageException("--attempts must be at least 1 and --timeout above 0");
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
                    Duration.ofMillis((long) (timeout * 1000)), Duration.ofMillis(250), gzip));
        }
    }
}
