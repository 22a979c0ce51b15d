/**
 * The Firefox profiler's JSON (profiler.firefox.com): the Gecko format Firefox emits and the
 * processed format the profiler saves (and CPython's {@code profiling.sampling --gecko} writes),
 * read with jackson-core's streaming parser into int columns; the processed format written for
 * profiler.firefox.com to open. Rules in docs/formats/firefox.md.
 */
package org.stackfold.format.firefox;
