/**
 * pprof ({@code profile.proto}, gzip-compressed) import and export with a hand-written protobuf wire
 * codec ({@link org.stackfold.format.pprof.ProtoWriter}, {@link org.stackfold.format.pprof.ProtoReader}).
 *
 * <p>Rules: samples list locations leaf first and a location's lines innermost first; a location of
 * several lines is a caller plus INLINED frames, both ways. Functions are one per (name, file);
 * frames are per function unless {@code lines} is set. One sample type is read (option
 * {@code sample-type}, default the file's default_sample_type, else the last), except the pair
 * "T/before" + "T/after" that a differential profile is written as. Every length is checked against
 * the bytes left before use; errors name the byte offset. See docs/formats/jfr-speedscope-pprof.md.
 */
package org.stackfold.format.pprof;
