/* Capabilities a sandboxed process keeps. */
#ifndef MOAT_SANDBOX_CAPS_H
#define MOAT_SANDBOX_CAPS_H

#include "base/util.h"

/* Landlock confines paths, not the kernel-wide powers root holds: with
 * CAP_SYS_ADMIN or CAP_PERFMON a process reads /proc/PID/environ of
 * processes outside its domain, CAP_SYS_MODULE loads kernel code, and so on.
 * Keep only what file ownership inside the root needs (chown, DAC override,
 * setuid to drop privileges, ...), the same kind of set container runtimes
 * keep, and drop the rest from every set, bounding included, so not even a
 * setuid binary gets them back. A process without capabilities is untouched. */
int caps_drop_dangerous(struct error *err);

#endif
