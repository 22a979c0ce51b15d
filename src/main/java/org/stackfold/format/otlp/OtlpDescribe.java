package org.stackfold.format.otlp;

import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.profiles.v1development.ProfilesData;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.Locale;
import org.stackfold.io.Printable;

/**
 * What {@code stackfold info} shows for an OTLP file: the dictionary's sizes, then each resource (its
 * {@code service.name}) and each profile with its sample type (the index {@code --sample-type} takes is
 * the type's position among the distinct ones), samples, total, time range and period.
 */
final class OtlpDescribe {
    private OtlpDescribe() {
    }

    static void describe(ProfilesData data, PrintWriter out) {
        ProfilesDictionary d = data.getDictionary();
        row(out, "strings", d.getStringTableCount());
        row(out, "functions", d.getFunctionTableCount());
        row(out, "locations", d.getLocationTableCount());
        row(out, "stacks", d.getStackTableCount());
        row(out, "mappings", d.getMappingTableCount());
        row(out, "attributes", d.getAttributeTableCount());
        row(out, "resources", data.getResourceProfilesCount());
        java.util.List<String> types = new java.util.ArrayList<>();
        for (int r = 0; r < data.getResourceProfilesCount(); r++) {
            ResourceProfiles rp = data.getResourceProfiles(r);
            String service = "";
            for (KeyValue kv : rp.getResource().getAttributesList()) {
                if (kv.getKey().equals("service.name")) {
                    service = " (service.name " + Printable.of(kv.getValue().getStringValue()) + ")";
                }
            }
            out.printf(Locale.ROOT, "%-18s %d scopes%s%n", "resource " + r, rp.getScopeProfilesCount(), service);
            for (int s = 0; s < rp.getScopeProfilesCount(); s++) {
                ScopeProfiles sp = rp.getScopeProfiles(s);
                for (int p = 0; p < sp.getProfilesCount(); p++) {
                    var prof = sp.getProfiles(p);
                    String type = string(d, prof.getSampleType().getTypeStrindex()) + "/"
                            + string(d, prof.getSampleType().getUnitStrindex());
                    if (!types.contains(type)) {
                        types.add(type);
                    }
                    long total = 0;
                    long observations = 0;
                    for (Sample sample : prof.getSamplesList()) {
                        int n = Math.max(sample.getValuesCount(), sample.getTimestampsUnixNanoCount());
                        observations += n;
                        for (int i = 0; i < n; i++) {
                            total += sample.getValuesCount() == 0 ? 1 : sample.getValues(i);
                        }
                    }
                    out.printf(Locale.ROOT, "  %-16s %s (type %d): %d samples, %d observations, total %d%n",
                            "profile " + s + "." + p, Printable.of(type), types.indexOf(type), prof.getSamplesCount(),
                            observations, total);
                    if (prof.getTimeUnixNano() != 0) {
                        Instant start = Instant.ofEpochSecond(0, prof.getTimeUnixNano());
                        // duration_nano is a uint64
                        double seconds = Double.parseDouble(Long.toUnsignedString(prof.getDurationNano())) / 1e9;
                        out.printf(Locale.ROOT, "  %-16s %s + %.3f s%n", "time", start, seconds);
                    }
                    if (prof.getPeriod() != 0) {
                        out.printf(Locale.ROOT, "  %-16s %d %s%n", "period", prof.getPeriod(),
                                Printable.of(string(d, prof.getPeriodType().getTypeStrindex()) + "/"
                                        + string(d, prof.getPeriodType().getUnitStrindex())));
                    }
                }
            }
        }
        out.println("read another sample type with --sample-type NAME|INDEX");
    }

    private static String string(ProfilesDictionary d, int i) {
        return i >= 0 && i < d.getStringTableCount() ? d.getStringTable(i) : "?";
    }

    private static void row(PrintWriter out, String label, long value) {
        out.printf(Locale.ROOT, "%-18s %d%n", label, value);
    }
}
