/* Start and stop callgrind's counting from Python (ctypes), so bench/instructions.py counts only a workload's
   instructions, not the interpreter's start or the imports. Outside valgrind both calls do nothing.
   Build: cc -shared -fPIC -O2 -o libcallgrind_toggle.so callgrind_toggle.c (needs valgrind's headers). */
#include <valgrind/callgrind.h>

void kierki_callgrind_start(void) {
    CALLGRIND_ZERO_STATS;
    CALLGRIND_START_INSTRUMENTATION;
}

void kierki_callgrind_stop(void) {
    CALLGRIND_STOP_INSTRUMENTATION;
    CALLGRIND_DUMP_STATS_AT("workload");
}
