#include <errno.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "sandbox/caps.h"

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT           47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

/* Harmless inside a Landlock domain: they act on files the ruleset already
 * admits, or on the process's own credentials. */
/* Not CAP_CHOWN or CAP_FOWNER: Landlock does not judge chown and chmod, so
 * with them root could give away or open up any file on the machine. */
static const int kept[] = {
    CAP_DAC_OVERRIDE, CAP_FSETID,           CAP_KILL,       CAP_SETGID,
    CAP_SETUID,       CAP_NET_BIND_SERVICE, CAP_SYS_CHROOT, CAP_AUDIT_WRITE,
};

static unsigned long long kept_mask(void)
{
	unsigned long long m = 0;
	for (size_t i = 0; i < ARRAY_LEN(kept); i++)
		m |= 1ull << kept[i];
	return m;
}

bool caps_effective(int cap)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2];
	return syscall(SYS_capget, &hdr, data) == 0 && cap >= 0 && cap < 64 &&
	       (data[cap / 32].effective & (1u << (cap % 32)));
}

int caps_drop_dangerous(struct error *err)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2];
	if (syscall(SYS_capget, &hdr, data) < 0)
		return error_errno(err, "cannot read capabilities");
	unsigned long long permitted = data[0].permitted | (unsigned long long)data[1].permitted
	                                                       << 32;
	/* Nothing to drop: the ambient set is a subset of the permitted one
	 * (the kernel keeps it so), and the bounding set can only be lowered
	 * with CAP_SETPCAP, so it stays as it is for an unprivileged caller,
	 * as it always did. */
	if (!permitted)
		return 0;
	/* Ambient capabilities would survive exec for a non-root user. */
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	unsigned long long keep = kept_mask();
	/* The bounding set first: dropping from it needs CAP_SETPCAP, which
	 * goes away below. With it, each capability not kept is dropped
	 * without being read first (dropping one not in the set succeeds and
	 * changes nothing): on a full set, reading them all back doubled the
	 * calls. Without it (a nested moat, whose bounding set the outer one
	 * already lowered), only one still in the set is tried, and fails.
	 * EINVAL: past the last capability this kernel knows. */
	bool setpcap = data[0].effective & (1u << CAP_SETPCAP);
	for (int cap = 0; cap <= 63; cap++) {
		if (keep & (1ull << cap))
			continue;
		if (!setpcap) {
			int in_set = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
			if (in_set < 0)
				break;
			if (!in_set)
				continue;
		}
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
			if (errno == EINVAL)
				break;
			return error_errno(err, "cannot drop capability %d", cap);
		}
	}
	for (int i = 0; i < 2; i++) {
		unsigned int k = (unsigned int)(keep >> (32 * i));
		data[i].effective &= k;
		data[i].permitted &= k;
		data[i].inheritable &= k;
	}
	if (syscall(SYS_capset, &hdr, data) < 0)
		return error_errno(err, "cannot drop capabilities");
	return 0;
}
