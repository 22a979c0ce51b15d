package org.stackfold.record.python;

import java.util.List;

/**
 * One Python thread state and its frames, innermost first.
 *
 * @param threadState  address of the {@code PyThreadState}
 * @param nativeId     the kernel's thread id ({@code native_thread_id})
 * @param threadId     {@code thread_id} ({@code pthread_t}, what {@code threading.get_ident()} gives)
 * @param frames       innermost first
 * @param truncated    the walk stopped at the depth limit or at a read that failed
 */
public record PythonThread(long threadState, int nativeId, long threadId, List<PythonFrame> frames,
                           boolean truncated) {
}
