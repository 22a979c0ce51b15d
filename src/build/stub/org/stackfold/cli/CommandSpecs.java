package org.stackfold.cli;

import picocli.CommandLine.Model.CommandSpec;

/**
 * The shape of the generated {@code CommandSpecs} for the first compile of src/main/java, which needs
 * the class before the commands it is generated from exist as class files. The build then writes the
 * real one from the compiled commands and compiles it over this one (pom.xml, the
 * {@code command-specs} executions; src/build/commandspecs/.../CommandSpecSource.java). A class file
 * of this stub that reached a run would say so.
 */
final class CommandSpecs {
    private CommandSpecs() {
    }

    static final java.util.List<String> NAMES = java.util.List.of();

    static CommandSpec of(String name) {
        throw stub();
    }

    static CommandSpec main(Main c) {
        throw stub();
    }

    static CommandSpec helpCommand() {
        throw stub();
    }

    private static IllegalStateException stub() {
        return new IllegalStateException("CommandSpecs is the build's stub: build with mvn compile or later");
    }
}
