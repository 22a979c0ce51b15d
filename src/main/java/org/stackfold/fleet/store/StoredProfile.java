package org.stackfold.fleet.store;

import java.time.Instant;
import org.stackfold.model.Profile;

/** One profile to store: where it came from, its labels and the time it was taken. */
public record StoredProfile(String source, Profile profile, Labels labels, Instant time) {
}
