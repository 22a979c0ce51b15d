/**
 * Chrome and Node CPU profiles ({@code .cpuprofile}: the DevTools protocol's {@code Profile}
 * object, saved by Chrome's JavaScript profiler, {@code node --cpu-prof} and
 * {@code inspector.Session}), read with jackson-core's streaming parser into the profile model the
 * way speedscope's importer reads them. Rules in docs/formats/cpuprofile.md.
 */
package org.stackfold.format.chrome;
