/**
 * speedscope JSON import and export, streamed with jackson-core (no object tree).
 *
 * <p>Rules: frames map 1:1 to shared frames (name, file, line, col); a timeline profile is written as
 * one sampled profile per thread in time order, other profiles as one sampled profile of distinct
 * stacks with their counts, a differential profile as "before" and "after". On import all profiles
 * are merged (or one chosen with {@code profile}); time units become nanoseconds, evented profiles
 * give each interval to the open stack, fractional weights are rounded cumulatively. Errors name
 * the byte offset. See docs/formats/jfr-speedscope-pprof.md.
 */
package org.stackfold.format.speedscope;
