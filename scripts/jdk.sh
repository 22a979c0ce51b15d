# Sourced by ./stackfold, ./run-tests and scripts/*: finds a JDK >= 25 and Maven, or says why not.
# Sets STACKFOLD_JAVA_HOME and MVN.

_sf_major() {  # major version of the JDK at $1, from its release file (no JVM start)
  local v
  v=$(sed -n 's/^JAVA_VERSION="\([0-9][0-9]*\).*/\1/p' "$1/release" 2>/dev/null)
  echo "${v:-0}"
}

sf_find_jdk() {
  local cand
  for cand in "${STACKFOLD_JAVA_HOME:-}" "${JAVA_HOME:-}" /usr/lib/jvm/*; do
    [ -n "$cand" ] && [ -x "$cand/bin/java" ] && [ -x "$cand/bin/javac" ] || continue
    if [ "$(_sf_major "$cand")" -ge 25 ]; then STACKFOLD_JAVA_HOME=$cand; return 0; fi
  done
  if command -v javac >/dev/null 2>&1; then
    cand=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    if [ "$(_sf_major "$cand")" -ge 25 ]; then STACKFOLD_JAVA_HOME=$cand; return 0; fi
  fi
  echo "stackfold: needs a JDK 25 or newer; none found in JAVA_HOME, /usr/lib/jvm or on PATH (install e.g. temurin-25-jdk)" >&2
  return 1
}

sf_find_maven() {
  if command -v mvn >/dev/null 2>&1; then MVN=mvn; return 0; fi
  echo "stackfold: needs Apache Maven to build (apt-get install maven)" >&2
  return 1
}
