/* --trace where there is no tracer yet: everywhere but Linux. The Makefile
 * builds every file in src/trace, so the Linux files compile to nothing
 * elsewhere and this one to nothing on Linux. On macOS the seed reads the
 * unified log instead (docs/trace.md). */
#ifndef __linux__
#include "trace/trace.h"

int trace_run(const struct trace_opts *o, struct trace_log *log, int *status, struct error *err)
{
	(void)o;
	(void)log;
	(void)status;
	error_set(err, "--trace is only implemented on Linux so far");
	err->status = EXIT_MOAT_FAILED;
	return -1;
}
#endif
