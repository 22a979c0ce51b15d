package org.stackfold.cli;

import java.io.PrintWriter;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import org.stackfold.fleet.push.ProfilePusher;
import org.stackfold.fleet.push.Protocol;
import org.stackfold.fleet.push.PushException;
import org.stackfold.fleet.push.Upload;
import org.stackfold.fleet.store.Labels;
import org.stackfold.model.Profile;
import org.stackfold.io.UsageException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code record --push URL}: the recorded profile sent as {@code push} sends it, over the recording's
 * time (from when the command started to when the recording ended). Options are checked while the
 * command line is parsed, so a bad URL fails before the recording, not after.
 */
final class RecordPush {
    private final Instant started = Instant.now();
    final PushCommand.PushOptions options = new PushCommand.PushOptions();
    private URI url;

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--push", paramLabel = "URL",
            description = "Also send the profile to this server when the recording ends (as 'stackfold push' does).")
    void url(URI value) {
        url = value;
        check(() -> PushCommand.PushOptions.checkUrl(value));
    }

    @Option(names = "--push-protocol", paramLabel = "P", description = "For --push: pyroscope (default), pyroscope-pprof or otlp.")
    void protocol(String value) {
        options.protocol = value;
        check(() -> {
            try {
                Protocol.byName(value);
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
        });
    }

    @Option(names = "--push-app", paramLabel = "NAME", description = "For --push: the application name (default stackfold.cpu).")
    void app(String value) {
        options.app = value;
        check(() -> {
            if (!value.matches("[A-Za-z_][A-Za-z0-9_.:/-]*")) {
                throw new UsageException("--push-app '" + org.stackfold.io.Printable.of(value)
                        + "' must match [A-Za-z_][A-Za-z0-9_.:/-]* (labels go in --label)");
            }
        });
    }

    @Option(names = "--push-gzip", description = "For --push with --push-protocol otlp: send the body gzip-compressed.")
    void gzip(boolean value) {
        options.gzip = value;
    }

    /**
     * Checks what the options say only together (--push-gzip needs --push and otlp), before the
     * recording starts rather than when it is sent.
     */
    void checkTogether() {
        if (options.gzip && url == null) {
            throw new ParameterException(spec.commandLine(), "--push-gzip needs --push URL");
        }
        // --push-protocol named a protocol when it was parsed.
        if (options.gzip && Protocol.byName(options.protocol) != Protocol.OTLP) {
            throw new ParameterException(spec.commandLine(), "--push-gzip applies to --push-protocol otlp only");
        }
    }

    /** A usage error while parsing is picocli's, so that it reads as every other bad option does. */
    private void check(Runnable r) {
        try {
            r.run();
        } catch (UsageException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    URI url() {
        return url;
    }

    /** True where --push was given. */
    boolean given() {
        return url != null;
    }

    /**
     * Sends the recorded profile where {@code --push} was given. Returns false, after one line on
     * {@code err}, where the upload failed; the recording's output is written either way.
     */
    boolean send(Profile profile, int frequency, List<String> labels, PrintWriter err) throws InterruptedException, java.io.IOException {
        if (url == null) {
            return true;
        }
        ProfilePusher pusher = options.pusher(url);
        Instant end = Instant.now();
        try {
            pusher.push(profile, new Upload(options.app, Labels.map(labels), started, end, frequency));
            err.println("stackfold: pushed the recording to " + org.stackfold.io.Printable.of(ProfilePusher.shown(url.toString())));
            return true;
        } catch (PushException e) {
            err.println("stackfold: push of the recording to " + e.getMessage());
            return false;
        }
    }
}
