# Sourced by ./stackfold, ./run-tests and scripts/*: finds a JDK >= 25 and Maven, or says why not;
# says how Stackfold's JVM is started and whether its AOT cache may be used.
# Sets STACKFOLD_JAVA_HOME, MVN, SF_JVM and SF_AOT. Everything here runs on each `stackfold` call, so it
# starts no process: bash builtins only (a fork costs milliseconds on a loaded machine).

_sf_release() {  # REPLY = the value of key $2 in the release file of the JDK at $1 ("" when absent)
  local line
  REPLY=
  [ -r "$1/release" ] || return 0
  while IFS= read -r line || [ -n "$line" ]; do
    case $line in
      "$2="*) line=${line#*=}; line=${line#\"}; REPLY=${line%\"}; return 0 ;;
    esac
  done <"$1/release"
}

_sf_major() {  # REPLY = the major version of the JDK at $1, from its release file (0 when unknown)
  _sf_release "$1" JAVA_VERSION
  REPLY=${REPLY%%[!0-9]*}
  REPLY=${REPLY:-0}
}

sf_find_jdk() {
  local cand resolved
  for cand in "${STACKFOLD_JAVA_HOME:-}" "${JAVA_HOME:-}" /usr/lib/jvm/*; do
    [ -n "$cand" ] && [ -x "$cand/bin/java" ] && [ -x "$cand/bin/javac" ] || continue
    _sf_major "$cand"
    if [ "$REPLY" -ge 25 ]; then STACKFOLD_JAVA_HOME=$cand; return 0; fi
  done
  if command -v javac >/dev/null 2>&1; then
    resolved=$(readlink -f "$(command -v javac)")
    cand=${resolved%/bin/javac}
    _sf_major "$cand"
    if [ "$REPLY" -ge 25 ]; then STACKFOLD_JAVA_HOME=$cand; return 0; fi
  fi
  echo "stackfold: needs a JDK 25 or newer; none found in JAVA_HOME, /usr/lib/jvm or on PATH (install e.g. temurin-25-jdk)" >&2
  return 1
}

sf_find_maven() {
  if command -v mvn >/dev/null 2>&1; then MVN=mvn; return 0; fi
  echo "stackfold: needs Apache Maven to build (apt-get install maven)" >&2
  return 1
}

# SF_JVM = the options every Stackfold JVM starts with (the launcher, the AOT training run, the tests
# that check the cache), heap $1. JVM warnings go to stderr: by default they go to stdout, into
# `fold`'s output. Messages about the AOT cache are off: a cache that does not fit this JVM (another
# build, -Xmx past 32g, a truncated file) is skipped, and saying so would be noise on every run.
sf_jvm_options() {
  SF_JVM=(--enable-native-access=ALL-UNNAMED -XX:+UseParallelGC -XX:-UsePerfData "-Xmx$1"
    -Xlog:disable "-Xlog:all=warning,aot*=off,cds*=off:stderr")
}

# REPLY = what identifies the JDK at $1 for its AOT caches: its path and exact runtime version. A
# release's own runtime ($SF_BUNDLED_JDK, set by the launcher and by scripts/release) is "bundled" and its
# version: its caches were made by it in the build's folder and are used wherever it is unpacked.
sf_jdk_id() {
  _sf_release "$1" JAVA_RUNTIME_VERSION
  if [ -n "${SF_BUNDLED_JDK:-}" ] && [ "$1" = "$SF_BUNDLED_JDK" ]; then
    REPLY="bundled $REPLY"
  else
    REPLY="$1 $REPLY"
  fi
}

# SF_AOT = the options that use an AOT cache beside jar $1, or nothing: the cache of command family $3
# (the jar's name with -$3.aot) where there is one fit to use, else the cache of every command (.aot).
# A cache is used only when it is newer than the jar and than the JDK's modules, and was made by this
# JDK (the id in its .jdk file). The JVM itself does not notice a rebuilt jar (JDK 25 takes the cached
# classes of the old one), so this check is what keeps a stale cache from running old code.
# Why families: every class in a cache is mapped, relocated and loaded at every start, used or not, and
# on this project's VMs each 4 KiB that costs is a page fault of about 11 us. The cache of every command
# holds 22.5 MB; the folded commands' own 20.3 MB, collapse's 19.6 MB: info on the example 15-21 ms
# less wall time, collapse perf of 419 MB 30-40 ms less CPU (docs/startup.md, round reads).
# With C1 alone (JIT tier $2 = 1) the training's method profiles are not replayed: replaying them
# makes C1 compile what the training compiled, 0.2 s of compiler time for a 0.05 s command
# (docs/startup.md); C2 uses them (tier 4 keeps them).
# With $4 = inplace (big inputs), the cache is mapped where it was built instead of relocated to a
# random address (JDK 25's default): relocating writes every pointer in the cache, so each of its pages
# is copied on write, 4K page faults on a second thread (31-45 ms of CPU per run here); mapped in place,
# only the pages the JVM writes later fault, on the main thread, which costs about 15 ms more wall time:
# worth it where CPU is the figure (collapse perf of 419 MB: 0.636 -> 0.603 s, medians of 11 alternated
# runs), not for small inputs, where wall time is (docs/startup.md).
# Both switches are diagnostic ones of JDK 25, so they are given to JDK 25 only: a JVM refuses to start
# on an option it does not know.
_sf_cache_fits() {  # AOT cache $1 was made by this JDK for jar $2, after both
  local id
  [ -f "$1" ] && [ "$1" -nt "$2" ] && [ "$1" -nt "$STACKFOLD_JAVA_HOME/lib/modules" ] || return 1
  [ -r "$1.jdk" ] && IFS= read -r id <"$1.jdk" || return 1
  sf_jdk_id "$STACKFOLD_JAVA_HOME"
  [ "$id" = "$REPLY" ]
}
sf_aot_options() {
  local cache=${1%.jar}.aot
  SF_AOT=()
  if [ -n "${3:-}" ] && _sf_cache_fits "${1%.jar}-$3.aot" "$1"; then
    cache=${1%.jar}-$3.aot
  else
    _sf_cache_fits "$cache" "$1" || return 0
  fi
  SF_AOT=("-XX:AOTCache=$cache")
  [ "${2:-4}" = 1 ] || [ "${4:-}" = inplace ] || return 0
  _sf_major "$STACKFOLD_JAVA_HOME"
  [ "$REPLY" = 25 ] || return 0
  SF_AOT+=(-XX:+UnlockDiagnosticVMOptions)
  [ "${2:-4}" = 1 ] && SF_AOT+=(-XX:-AOTReplayTraining)
  [ "${4:-}" = inplace ] && SF_AOT+=(-XX:ArchiveRelocationMode=0)
  return 0
}
