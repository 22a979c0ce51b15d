/**
 * OpenTelemetry profiles (OTLP, {@code profiles.proto} v1development) read and written through the
 * official generated classes ({@code io.opentelemetry.proto:opentelemetry-proto}): {@link
 * org.stackfold.format.otlp.OtlpWriter} builds a {@code ProfilesData} with its shared dictionary,
 * {@link org.stackfold.format.otlp.OtlpReader} reads one back (and OTLP export requests, which have the
 * same fields). Rules in docs/formats/otlp.md.
 */
package org.stackfold.format.otlp;
