package org.stackfold.fleet.push;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.ProfilesData;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.zip.GZIPOutputStream;
import org.stackfold.format.folded.FoldedWriter;
import org.stackfold.format.otlp.OtlpMeta;
import org.stackfold.format.otlp.OtlpWriter;
import org.stackfold.format.pprof.PprofWriter;
import org.stackfold.model.Profile;

/**
 * The ways {@code push} can send a profile, each as the server documents it (versions in
 * docs/fleet.md):
 * <ul>
 * <li>{@link #PYROSCOPE}: Pyroscope's {@code POST /ingest}, {@code format=folded}, folded lines;</li>
 * <li>{@link #PYROSCOPE_PPROF}: the same endpoint with a {@code multipart/form-data} body, the gzipped
 * pprof in the part {@code profile} and the sample types' meaning in {@code sample_type_config}. No
 * {@code format} parameter: Pyroscope's handler reads the body of a {@code format=pprof} request as
 * bare pprof and looks for the multipart form only without one;</li>
 * <li>{@link #OTLP}: OTLP/HTTP, {@code POST /v1development/profiles} with an
 * {@code ExportProfilesServiceRequest} in binary protobuf, optionally gzip-encoded; sample type
 * (samples, count) with period type (cpu, nanoseconds), which Pyroscope reads as {@code process_cpu},
 * and one value a sample, as Pyroscope's converter requires.</li>
 * </ul>
 */
public enum Protocol {
    PYROSCOPE("pyroscope"),
    PYROSCOPE_PPROF("pyroscope-pprof"),
    OTLP("otlp");

    /** The OTLP/HTTP path of profiles, appended to a base URL that does not end with it already. */
    public static final String OTLP_PATH = "/v1development/profiles";

    private final String cliName;

    Protocol(String cliName) {
        this.cliName = cliName;
    }

    public String cliName() {
        return cliName;
    }

    public static Protocol byName(String name) {
        for (Protocol p : values()) {
            if (p.cliName.equals(name)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown protocol '" + name + "'; known: pyroscope, pyroscope-pprof, otlp");
    }

    Payload payload(URI base, Profile profile, Upload u, boolean gzip) throws IOException {
        String root = base.toString().replaceAll("/+$", "");
        return switch (this) {
            case PYROSCOPE -> {
                ByteArrayOutputStream body = new ByteArrayOutputStream();
                new FoldedWriter(false).write(profile, body);
                yield new Payload(URI.create(root + "/ingest?" + ingestQuery(u) + "&format=folded&units=samples"
                        + "&aggregationType=sum"), "text/plain; charset=utf-8", null, body.toByteArray());
            }
            case PYROSCOPE_PPROF -> pprofForm(URI.create(root + "/ingest?" + ingestQuery(u)), profile);
            case OTLP -> otlp(URI.create(root.endsWith(OTLP_PATH) ? root : root + OTLP_PATH), profile, u, gzip);
        };
    }

    /** The query parameters every /ingest request has: the series name with labels, time range, rate, spy. */
    static String ingestQuery(Upload u) {
        String name = u.app() + "{" + u.labels().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(",")) + "}";
        return "name=" + URLEncoder.encode(name, StandardCharsets.UTF_8) + "&from=" + u.from().getEpochSecond()
                + "&until=" + u.until().getEpochSecond() + "&sampleRate=" + u.sampleRate() + "&spyName=stackfold";
    }

    private static Payload pprofForm(URI uri, Profile profile) throws IOException {
        ByteArrayOutputStream pprof = new ByteArrayOutputStream();
        new PprofWriter().write(profile, pprof);
        String boundary = "stackfold-" + UUID.randomUUID();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        part(body, boundary, "profile", "profile.pb.gz", "application/octet-stream", pprof.toByteArray());
        part(body, boundary, "sample_type_config", "config.json", "application/json", sampleTypeConfig(profile));
        body.write(("--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII));
        return new Payload(uri, "multipart/form-data; boundary=" + boundary, null, body.toByteArray());
    }

    private static void part(ByteArrayOutputStream out, String boundary, String field, String file, String type,
                             byte[] content) throws IOException {
        out.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + field + "\"; filename=\"" + file
                + "\"\r\nContent-Type: " + type + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(content);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * Pyroscope's sample type configuration for the profile's value types: summed, sampled, in
     * {@code bytes} or {@code objects} where the unit says so, else {@code samples}. A display name that
     * Pyroscope does not recognise as a profile kind gets the prefix {@code cpu_}, so that the series
     * is {@code process_cpu} (what Stackfold records) rather than the bare type name.
     */
    static byte[] sampleTypeConfig(Profile profile) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.writeStartObject();
            for (Profile.ValueType vt : profile.valueTypes()) {
                String type = vt.type();
                String unit = vt.unit().toLowerCase(Locale.ROOT);
                g.writeObjectFieldStart(type);
                g.writeStringField("units", unit.equals("bytes") || unit.equals("objects") ? unit : "samples");
                g.writeStringField("aggregation", "sum");
                g.writeStringField("display-name", known(type) ? type : "cpu_" + type);
                g.writeBooleanField("sampled", true);
                g.writeEndObject();
            }
            g.writeEndObject();
        }
        return out.toByteArray();
    }

    /** The names Pyroscope maps to a profile kind (its metricName rules). */
    private static boolean known(String type) {
        for (String k : new String[] {"cpu", "alloc_", "inuse_", "mutex_", "block_", "goroutines", "wall"}) {
            if (type.contains(k)) {
                return true;
            }
        }
        return type.equals("space") || type.equals("objects");
    }

    private static Payload otlp(URI uri, Profile profile, Upload u, boolean gzip) throws IOException {
        Map<String, String> resource = new LinkedHashMap<>();
        if (!u.labels().containsKey("service.name")) {
            resource.put("service.name", u.app());
        }
        resource.putAll(u.labels());
        long duration = java.time.Duration.between(u.from(), u.until()).toNanos();
        ProfilesData data = new OtlpWriter().build(profile, new OtlpMeta(u.from(), duration, resource, u.sampleRate(), false));
        ExportProfilesServiceRequest request = ExportProfilesServiceRequest.newBuilder()
                .addAllResourceProfiles(data.getResourceProfilesList()).setDictionary(data.getDictionary()).build();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (gzip) {
            try (GZIPOutputStream z = new GZIPOutputStream(body)) {
                request.writeTo(z);
            }
        } else {
            request.writeTo(body);
        }
        return new Payload(uri, "application/x-protobuf", gzip ? "gzip" : null, body.toByteArray());
    }
}
