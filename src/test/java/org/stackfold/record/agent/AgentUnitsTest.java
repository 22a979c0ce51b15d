package org.stackfold.record.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stackfold.cli.CliRun;
import org.stackfold.format.FormatOptions;
import org.stackfold.format.Formats;
import org.stackfold.io.Input;
import org.stackfold.model.Profile;

/** The agent's parts that need no privileges: file name patterns, the on-disk queue, its options. */
class AgentUnitsTest {
    @TempDir
    Path dir;

    private static Profile folded(String text) throws IOException {
        return Formats.byName("folded").read(Input.ofBytes("t.folded", text.getBytes(StandardCharsets.UTF_8)),
                FormatOptions.none());
    }

    /** 200 one-sample stacks: the profile the queue tests fill their 16 KiB queue with. */
    private static Profile twoHundredStacks() throws IOException {
        StringBuilder big = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            big.append("main;function_number_").append(i).append(" 1\n");
        }
        return folded(big.toString());
    }

    private static IntervalProfile interval(Profile p, Instant start, long samples) {
        return new IntervalProfile(p, start, Duration.ofSeconds(10), Map.of("host", "h1", "service", "system",
                "interval_ms", "10000"), samples);
    }

    @Test
    void patternsNameTheIntervalsStartInUtc() {
        Instant t = Instant.parse("2026-12-06T03:04:05.678Z");
        assertThat(FileNames.expand("cpu-%Y%m%dT%H%M%S.folded", t, "h")).isEqualTo("cpu-20261206T030405.folded");
        assertThat(FileNames.expand("/x/%h/%s-100%%.svg", t, "web1")).isEqualTo("/x/web1/" + t.getEpochSecond() + "-100%.svg");
        assertThat(FileNames.expand("latest.folded", t, "h")).isEqualTo("latest.folded");
        assertThatThrownBy(() -> FileNames.check("cpu-%Q.folded")).hasMessageContaining("%Q");
        assertThat(FileNames.expand("%n/%p-%s.folded", t, Map.of("service", "web", "pid", "42")))
                .isEqualTo("web/42-" + t.getEpochSecond() + ".folded");
        assertThat(FileNames.names("cpu-%p.folded", 'p')).isTrue();
        assertThat(FileNames.names("cpu-%%p.folded", 'p')).isFalse();
        assertThat(Agent.labelValue("kworker/0:1 ..x")).isEqualTo("kworker_0_1___x");
    }

    @Test
    void theQueueKeepsProfilesOnDiskAndReadsThemBack() throws IOException {
        Path q = dir.resolve("queue");
        PendingQueue queue = new PendingQueue(q, 1 << 20, Duration.ofHours(1));
        // Recent: the queue drops what is older than its age limit, whenever the test runs.
        Instant t = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).minusSeconds(60);
        queue.add(1, interval(folded("a;b 3\na;c 2\n"), t, 5));
        queue.add(0, interval(folded("x;y 7\n"), t.plusSeconds(10), 7));
        assertThat(queue.size()).isEqualTo(2);
        assertThat(queue.has(0)).isTrue();

        // A new run finds them, in order.
        PendingQueue again = new PendingQueue(q, 1 << 20, Duration.ofHours(1));
        assertThat(again.size()).isEqualTo(2);
        IntervalProfile back = again.read(again.oldest(1));
        assertThat(back.start()).isEqualTo(t);
        assertThat(back.duration()).isEqualTo(Duration.ofSeconds(10));
        assertThat(back.samples()).isEqualTo(5);
        assertThat(back.labels()).containsEntry("host", "h1").containsEntry("service", "system");
        assertThat(back.profile().tree().totalSamples()).isEqualTo(5);
        again.remove(again.oldest(1));
        assertThat(again.size()).isEqualTo(1);
        assertThat(again.oldest(1)).isNull();
        // A file cut short by a crash is not a queued profile: dropped when the queue is opened.
        Files.writeString(q.resolve("000000000099-0.pending"), "stackfold-agent-pending 1\nstart 1\n");
        assertThat(new PendingQueue(q, 1 << 20, Duration.ofHours(1)).size()).isEqualTo(1);
    }

    /**
     * A batched destination (the fleet table, a minute of intervals a store) whose intervals are larger
     * than half the queue sends as soon as the queue is half full, rather than losing each interval to
     * the size limit before its batch time comes and never trying the destination at all.
     */
    @Test
    void aBatchThatFillsHalfTheQueueIsSentAtOnce() throws Exception {
        Profile p = twoHundredStacks();
        PendingQueue queue = new PendingQueue(dir.resolve("q"), 16 * 1024, Duration.ofHours(1));
        java.util.List<Integer> batches = new java.util.ArrayList<>();
        Destination table = new Destination() {
            @Override
            public String name() {
                return "--store t";
            }

            @Override
            public void send(IntervalProfile interval) {
                batches.add(1);
            }

            @Override
            public void sendAll(java.util.List<IntervalProfile> intervals) {
                batches.add(intervals.size());
            }

            @Override
            public Duration batch() {
                return Duration.ofMinutes(1);
            }
        };
        java.io.StringWriter err = new java.io.StringWriter();
        Delivery d = new Delivery(table, 0, queue, new java.io.PrintWriter(err));
        Instant t = Instant.now();
        for (int i = 0; i < 6; i++) {
            d.deliver(interval(p, t.plusSeconds(2L * i), 200), t.plusSeconds(2L * i));
        }
        assertThat(queue.dropped()).as("intervals lost to the size limit").isZero();
        assertThat(batches).as("batches sent").isNotEmpty();
        assertThat(batches.stream().mapToInt(Integer::intValue).sum() + queue.size()).isEqualTo(6);
    }

    @Test
    void theQueueDropsTheOldestPastItsSizeAndAgeAndCountsThem() throws IOException {
        Profile p = twoHundredStacks();
        PendingQueue queue = new PendingQueue(dir.resolve("q"), 16 * 1024, Duration.ofHours(1));
        Instant t = Instant.now();
        for (int i = 0; i < 10; i++) {
            queue.add(0, interval(p, t.plusSeconds(i), 200));
            assertThat(queue.bytes()).isLessThanOrEqualTo(16 * 1024);
        }
        assertThat(queue.dropped()).isPositive();
        assertThat(queue.size() + queue.dropped()).isEqualTo(10);
        // The newest are kept.
        assertThat(queue.read(queue.oldest(0)).start()).isAfter(t);
        long sizeOnDisk;
        try (var files = Files.list(dir.resolve("q"))) {
            sizeOnDisk = files.mapToLong(f -> f.toFile().length()).sum();
        }
        assertThat(sizeOnDisk).isEqualTo(queue.bytes());

        PendingQueue aged = new PendingQueue(dir.resolve("aged"), 1 << 20, Duration.ofMinutes(1));
        aged.add(0, interval(p, t.minusSeconds(3600), 200));
        assertThat(aged.size()).isZero(); // older than its age limit as it came in
        assertThat(aged.dropped()).isEqualTo(1);
    }

    @Test
    void everyIsCheckedBeforeAnythingIsLoaded() throws IOException {
        assertThat(CliRun.run("record", "--every", "0.5", "-o", "x.folded").err()).contains("--every must be from 1 to 86400");
        assertThat(CliRun.run("record", "--every", "5").err()).contains("-o PATTERN, --store DIR or --push URL");
        assertThat(CliRun.run("record", "--every", "5", "-o", "cpu-%Q.folded").err()).contains("%Q");
        assertThat(CliRun.run("record", "--every", "5", "-d", "3", "-o", "x").err()).contains("give --every or -d");
        assertThat(CliRun.run("record", "-o", "a", "-o", "b").err()).contains("-o is given once, except with --every");
        assertThat(CliRun.run("record", "--queue", "q", "-d", "1").err()).contains("apply to --every");
        assertThat(CliRun.run("record", "--every", "5", "--split", "process", "-o", "cpu-%s.folded").err())
                .contains("needs %p");
        assertThat(CliRun.run("record", "--every", "5", "--split", "service", "--store", "t", "--label", "service=x").err())
                .contains("no --label service=");
        assertThat(CliRun.run("record", "--every", "5", "--split", "thread", "--store", "t").err())
                .contains("--split takes none, process or service");
        CliRun r = CliRun.run("record", "--every", "5", "-o", "-");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("not -");

        Path conf = dir.resolve("agent.conf");
        Files.writeString(conf, "# comment\nevery = 0.5\noutput = x.folded\n");
        assertThat(CliRun.run("record", "--config", conf.toString()).err()).contains("--every must be from 1 to 86400");
        Files.writeString(conf, "every = 5\nNot An Option = 3\n");
        CliRun bad = CliRun.run("record", "--config", conf.toString());
        assertThat(bad.code()).isEqualTo(1);
        assertThat(bad.err()).contains(conf + ":2:");
    }

    private static final org.stackfold.record.ProcessSnapshots.Facts NGINX = new org.stackfold.record.ProcessSnapshots.Facts(
            "nginx", "/usr/sbin/nginx", "nginx: worker process");
    private static final org.stackfold.record.ProcessSnapshots.Facts API = new org.stackfold.record.ProcessSnapshots.Facts(
            "java", "/usr/lib/jvm/java-21/bin/java", "java -Xmx2g -jar /srv/billing-api.jar --port 8080");
    private static final org.stackfold.record.ProcessSnapshots.Facts KTHREAD = new org.stackfold.record.ProcessSnapshots.Facts(
            "kworker/0:1", "", "");

    @Test
    void labelRulesMapProcessesToServices() {
        LabelRule web = LabelRule.parse("service=web:comm=nginx|exe=/usr/sbin/nginx");
        assertThat(web.apply(NGINX)).isEqualTo("web");
        assertThat(web.apply(new org.stackfold.record.ProcessSnapshots.Facts("nginx-1.25", "/usr/sbin/nginx", ""))).isEqualTo("web");
        assertThat(web.apply(API)).isNull();
        assertThat(web.apply(KTHREAD)).isNull();

        // A regex keeps its |; $1 is its group, made fit for a label.
        LabelRule jar = LabelRule.parse("service=$1:cmdline~-jar /srv/(billing|shop)-([a-z]+)\\.jar");
        assertThat(jar.alternatives()).hasSize(1);
        assertThat(jar.apply(API)).isEqualTo("billing");
        LabelRule jar2 = LabelRule.parse("service=jvm-$2:comm=java&cmdline~/srv/(\\w+)-(\\w+)");
        assertThat(jar2.apply(API)).isEqualTo("jvm-api");
        assertThat(LabelRule.parse("service=x$1:cmdline~--name=(\\S*)").apply(
                new org.stackfold.record.ProcessSnapshots.Facts("a", "", "a --name=a/b c"))).isEqualTo("xa_b");
        // Both must match with &; != and !~ negate; a value that comes out empty does not match.
        assertThat(LabelRule.parse("service=other:comm=java&cmdline!~billing").apply(API)).isNull();
        assertThatThrownBy(() -> LabelRule.parse("service=kernel:exe=&comm~^kworker")).hasMessageContaining("needs a text");
        assertThat(LabelRule.parse("service=kernel:exe!~.&comm~^kworker").apply(KTHREAD)).isEqualTo("kernel");
        assertThat(LabelRule.parse("service=$1:cmdline~^(x*)").apply(API)).isNull();
        // A value may hold : and / like any label's; the rule starts at the : a condition follows.
        LabelRule url = LabelRule.parse("team=a:b/c:exe~^/usr/sbin/");
        assertThat(url.name()).isEqualTo("team");
        assertThat(url.apply(NGINX)).isEqualTo("a:b/c");

        // The first rule of a label that matches wins; other labels have their own rules.
        java.util.List<LabelRule> rules = LabelRule.rules(java.util.List.of("env=prod", "service=web:comm=nginx",
                "service=java:exe~/bin/java$", "service=catchall:comm~.", "team=payments:cmdline~billing"));
        assertThat(rules).hasSize(4);
        assertThat(LabelRule.plain(java.util.List.of("env=prod", "service=web:comm=nginx"))).containsExactly("env=prod");
        assertThat(LabelRule.labels(rules, NGINX)).containsExactly(Map.entry("service", "web"));
        assertThat(LabelRule.labels(rules, API)).containsExactly(Map.entry("service", "java"), Map.entry("team", "payments"));
        assertThat(LabelRule.labels(rules, KTHREAD)).containsExactly(Map.entry("service", "catchall"));
        assertThat(LabelRule.isRule("url=http://x:80")).isFalse();
        assertThat(LabelRule.needs(rules, LabelRule.Field.EXE)).isTrue();
    }

    @Test
    void badLabelRulesAreUsageErrorsNamingThem() {
        assertThatThrownBy(() -> LabelRule.parse("service=web:comm~(")).hasMessageContaining("--label 'service=web:comm~('")
                .hasMessageContaining("not a regular expression");
        assertThatThrownBy(() -> LabelRule.parse("service=$2:cmdline~(a)")).hasMessageContaining("group $2");
        assertThatThrownBy(() -> LabelRule.parse("service=w b:comm=x")).hasMessageContaining("must be letters");
        assertThatThrownBy(() -> LabelRule.parse("pid=1:comm=x")).hasMessageContaining("sets label pid itself");
        assertThatThrownBy(() -> LabelRule.parse("service=web:comm=x|user=root")).hasMessageContaining("'user' is not a condition");
        assertThat(CliRun.run("record", "-d", "1", "--store", "t", "--label", "service=web:comm=nginx").err())
                .contains("apply to --every");
        assertThat(CliRun.run("record", "--every", "5", "-o", "cpu-%s.folded", "--label", "service=web:comm=nginx").err())
                .contains("--label rules make a profile per service").contains("needs %n");
        CliRun r = CliRun.run("record", "--every", "5", "--store", "t", "--label", "service=web:comm~[");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("not a regular expression");
    }
}
