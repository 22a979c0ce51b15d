/**
 * Callgrind files (Valgrind's {@code --tool=callgrind} output, KCachegrind/QCachegrind's input):
 * read on bytes into a call graph and unfolded into a call tree as speedscope's importer does, and
 * written from any profile so that {@code callgrind_annotate} and KCachegrind show the profile's
 * self and inclusive weights. Rules in docs/formats/callgrind.md.
 */
package org.stackfold.format.callgrind;
