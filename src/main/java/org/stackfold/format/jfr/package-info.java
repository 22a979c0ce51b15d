/**
 * JDK Flight Recorder import (read-only) through the JDK's {@code jdk.jfr.consumer}, streaming one
 * event at a time.
 *
 * <p>Rules: one event type per profile (option {@code event}: cpu, cputime, native, alloc, lock,
 * wait, park or a full event name); samples weigh 1, allocations their bytes, blocking events their
 * duration in nanoseconds. JFR frame types become {@link org.stackfold.model.FrameKind}s; truncated
 * stacks hang under a {@code [truncated]} root; allocations end in a frame of the allocated class.
 * Options {@code thread-frames}, {@code lines}, {@code bci}. See docs/formats/jfr-speedscope-pprof.md.
 */
package org.stackfold.format.jfr;
