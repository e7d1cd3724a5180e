/* ipc_peek MODE ARGS: System V shared memory and the kernel keyrings, two
 * ways between processes of one user that no path names, so Landlock
 * mediates neither.
 *
 *   shm-create KEY TEXT   create a mode 0600 segment holding TEXT, print its id
 *   shm-read KEY          attach the segment and print its text
 *   shm-remove KEY        remove it
 *   key-add DESC TEXT     add a "user" key to the user keyring, print its serial
 *   key-read DESC         find it from the user keyring and print its payload
 *   key-remove SERIAL     invalidate it
 *
 * KEY is a number (0x... allowed). Prints "MODE: ok <data>" or
 * "MODE: <step>: <strerror>" (exit 1; 2 for usage). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KEY_SPEC_USER_KEYRING (-4)
#define KEYCTL_READ           11
#define KEYCTL_INVALIDATE     21

static const char *mode;

static int fail(const char *step)
{
	fprintf(stderr, "%s: %s: %s\n", mode, step, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: ipc_peek MODE ARG [TEXT]\n");
		return 2;
	}
	mode = argv[1];
	const char *arg = argv[2], *text = argc > 3 ? argv[3] : "";
	if (strncmp(mode, "shm-", 4) == 0) {
		key_t key = (key_t)strtol(arg, NULL, 0);
		int id = shmget(key, strcmp(mode, "shm-create") == 0 ? 4096 : 0,
		                strcmp(mode, "shm-create") == 0 ? IPC_CREAT | IPC_EXCL | 0600 : 0);
		if (id < 0)
			return fail("shmget");
		if (strcmp(mode, "shm-remove") == 0)
			return shmctl(id, IPC_RMID, NULL) < 0 ? fail("shmctl")
			                                      : (printf("%s: ok\n", mode), 0);
		char *p = shmat(id, NULL, 0);
		if (p == (void *)-1)
			return fail("shmat");
		if (strcmp(mode, "shm-create") == 0) {
			snprintf(p, 4096, "%s", text);
			printf("%s: ok %d\n", mode, id);
		} else {
			printf("%s: ok %.64s\n", mode, p);
		}
		return 0;
	}
	if (strcmp(mode, "key-add") == 0) {
		long serial =
		    syscall(SYS_add_key, "user", arg, text, strlen(text), KEY_SPEC_USER_KEYRING);
		if (serial < 0)
			return fail("add_key");
		printf("%s: ok %ld\n", mode, serial);
		return 0;
	}
	if (strcmp(mode, "key-read") == 0) {
		long serial = syscall(SYS_request_key, "user", arg, NULL, KEY_SPEC_USER_KEYRING);
		if (serial < 0)
			return fail("request_key");
		char buf[128] = {0};
		if (syscall(SYS_keyctl, KEYCTL_READ, serial, buf, sizeof(buf) - 1) < 0)
			return fail("keyctl read");
		printf("%s: ok %s\n", mode, buf);
		return 0;
	}
	if (strcmp(mode, "key-remove") == 0) {
		if (syscall(SYS_keyctl, KEYCTL_INVALIDATE, strtol(arg, NULL, 0)) < 0)
			return fail("keyctl invalidate");
		printf("%s: ok\n", mode);
		return 0;
	}
	fprintf(stderr, "ipc_peek: unknown mode '%s'\n", mode);
	return 2;
}
