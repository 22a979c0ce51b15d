/**
 * Ruby stackprof's JSON dump (frames map, {@code raw} samples, timestamp deltas), read with
 * jackson-core's streaming parser as speedscope's importer reads it. Rules in
 * docs/formats/stackprof.md.
 */
package org.stackfold.format.stackprof;
