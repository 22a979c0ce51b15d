package org.stackfold.record.python;

/**
 * A live CPython process as the recorder needs it: where its runtime state is, the offsets of its
 * version, and the address range of the evaluation loop (whose native frames the Python frames
 * replace).
 *
 * @param pid        the process
 * @param binary     the file that holds the interpreter: the executable or {@code libpython3.X.so}
 * @param shared     true where that file is a shared library
 * @param bias       load bias of that file in the process
 * @param runtime    address of {@code _PyRuntime}
 * @param offsets    the version's offsets
 * @param evalStart  start of {@code _PyEval_EvalFrameDefault} (0 if its symbol is not in the file)
 * @param evalEnd    its end
 * @param coldStart  start of the eval loop's second part: {@code _PyEval_EvalFrameDefault.cold}, or in a
 *                   stripped PGO build the partition the exported entry jumps to (0 if none)
 * @param coldEnd    its end
 */
public record PythonProcess(int pid, String binary, boolean shared, long bias, long runtime, PythonOffsets offsets,
                            long evalStart, long evalEnd, long coldStart, long coldEnd) {

    /** True if a native frame's address lies in the evaluation loop. */
    public boolean inEvalLoop(long pc) {
        return pc >= evalStart && pc < evalEnd || pc >= coldStart && pc < coldEnd;
    }

    /** The value of the BPF map {@code pyprocs[pid]} ({@link PythonOffsets#mapValue}). */
    public byte[] mapValue() {
        return offsets.mapValue(runtime, evalStart, evalEnd, coldStart, coldEnd);
    }

    /** One line: version, file, where the offsets came from. */
    public String describe() {
        return String.format("pid %d: CPython %s in %s (%s), _PyRuntime at 0x%x, eval loop 0x%x-0x%x%s", pid,
                offsets.versionString(), binary,
                offsets.source() == PythonOffsets.Source.DEBUG_OFFSETS ? "_Py_DebugOffsets" : "built-in offsets",
                runtime, evalStart, evalEnd,
                coldStart != 0 ? String.format(" + second part 0x%x-0x%x", coldStart, coldEnd) : "");
    }
}
