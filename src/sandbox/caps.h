/* Capabilities a sandboxed process keeps. */
#ifndef MOAT_SANDBOX_CAPS_H
#define MOAT_SANDBOX_CAPS_H

#include "base/util.h"

/* Landlock confines paths, not the kernel-wide powers root holds: with
 * CAP_SYS_ADMIN or CAP_PERFMON a process reads /proc/PID/environ of
 * processes outside its domain, CAP_SYS_MODULE loads kernel code, and so on.
 * Keep only a few harmless ones (DAC override, setuid to drop privileges,
 * binding low ports, ...), fewer than container runtimes keep, and drop the rest from every set,
 * bounding included, so not even a setuid binary gets them back. A process without capabilities is
 * untouched. */
int caps_drop_dangerous(struct error *err);

/* Does this process hold cap in its effective set? */
bool caps_effective(int cap);

#endif
