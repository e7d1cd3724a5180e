/* no_namespaces CMD [ARG...]: run CMD where the kernel gives no new
 * namespaces, as with user namespaces switched off or under a container's
 * default seccomp profile: unshare(2) and a clone(2) asking for any
 * namespace fail with EPERM, clone3(2) with ENOSYS (so libc falls back to
 * clone). Everything else, fork included, works. For the tests of what moat
 * does when it cannot bind its protected paths read-only. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NS_FLAGS                                                                                   \
	(CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET | \
	 CLONE_NEWCGROUP)

#define ARG0_LOW     offsetof(struct seccomp_data, args[0])
#define RET_ERRNO(e) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (e))

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: no_namespaces CMD [ARG...]\n");
		return 2;
	}
	struct sock_filter code[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, 0, 1),
	    RET_ERRNO(EPERM),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
	    RET_ERRNO(ENOSYS),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3),
	    /* clone's flags are its first argument on x86_64; the low word
	     * holds every CLONE_NEW* flag. */
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW),
	    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, NS_FLAGS, 0, 1),
	    RET_ERRNO(EPERM),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(code) / sizeof(code[0]), .filter = code};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		perror("no_namespaces: seccomp");
		return 2;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "no_namespaces: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
