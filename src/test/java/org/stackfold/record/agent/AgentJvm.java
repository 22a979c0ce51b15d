package org.stackfold.record.agent;

import java.util.ArrayList;
import java.util.List;

/** The agent as its own JVM for the live tests (stopped by signals as systemd stops it): the test's JDK and class path. */
final class AgentJvm {
    private AgentJvm() {
    }

    /** {@code java ... org.stackfold.cli.Main ARGS}, with the serial collector the launcher gives the agent. */
    static List<String> command(String... args) {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), "org.stackfold.cli.Main"));
        cmd.addAll(List.of(args));
        return cmd;
    }
}
