package org.stackfold.record.python;

/**
 * One Python frame as the in-kernel walk will record it: two values.
 *
 * @param code          address of the code object ({@code f_executable} with tag bits cleared)
 * @param instruction   index of the instruction in code units from {@code co_code_adaptive}
 *                      (3.11/3.12: the last one begun, -1 before the first; 3.13+: the one executing)
 * @param activationEnd true for the outermost Python frame of one {@code _PyEval_EvalFrameDefault}
 *                      activation: the frames after it belong to the next eval-loop frame of the
 *                      native stack (3.11: {@code is_entry}; 3.12+: the entry frame that follows)
 */
public record PythonFrame(long code, int instruction, boolean activationEnd) {
}
