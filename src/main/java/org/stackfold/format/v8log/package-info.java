/**
 * V8's {@code --prof} profiles: the JSON of {@code node --prof-process --preprocess} read with
 * jackson-core's streaming parser as speedscope's importer reads it, and raw {@code isolate-*.log}
 * files through that command. Rules in docs/formats/v8log.md.
 */
package org.stackfold.format.v8log;
