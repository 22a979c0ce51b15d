package org.stackfold.fleet.push;

import java.net.URI;

/** One request's content, made once and sent as often as retries need. */
record Payload(URI uri, String contentType, String contentEncoding, byte[] body) {
}
