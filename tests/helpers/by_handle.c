/* by_handle PATH: name_to_handle_at(PATH), then open_by_handle_at() relative
 * to the current directory's mount and print the file's first line. With
 * CAP_DAC_READ_SEARCH (root) the open needs no path, so Landlock has none to
 * judge. Prints "by_handle: ok <line>" or "by_handle: <step>: <strerror>". */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: by_handle PATH\n");
		return 2;
	}
	struct file_handle *h = malloc(sizeof(*h) + MAX_HANDLE_SZ);
	if (!h)
		return 2;
	h->handle_bytes = MAX_HANDLE_SZ;
	int mount_id;
	if (name_to_handle_at(AT_FDCWD, argv[1], h, &mount_id, 0) < 0) {
		fprintf(stderr, "by_handle: name_to_handle_at: %s\n", strerror(errno));
		return 1;
	}
	int mount_fd = open(".", O_RDONLY | O_DIRECTORY);
	if (mount_fd < 0) {
		fprintf(stderr, "by_handle: open .: %s\n", strerror(errno));
		return 1;
	}
	int fd = open_by_handle_at(mount_fd, h, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "by_handle: open_by_handle_at: %s\n", strerror(errno));
		return 1;
	}
	char buf[128] = {0};
	if (read(fd, buf, sizeof(buf) - 1) < 0) {
		fprintf(stderr, "by_handle: read: %s\n", strerror(errno));
		return 1;
	}
	buf[strcspn(buf, "\n")] = '\0';
	printf("by_handle: ok %s\n", buf);
	return 0;
}
