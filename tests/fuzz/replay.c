/* Runs a libFuzzer target over files named on the command line (or every
 * file in named directories), so fuzz targets build and run in every
 * `make check` without clang. Prints TAP. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "base/fs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count;

static void replay_file(const char *path)
{
	char *data;
	size_t len;
	struct error err;
	if (fs_read_file(path, 1 << 24, &data, &len, &err) < 0) {
		printf("not ok %d - %s\n", ++count, err.msg);
		return;
	}
	/* A copy of exactly len bytes, so ASan sees reads past the end. */
	uint8_t *copy = malloc(len ? len : 1);
	for (size_t i = 0; i < len; i++)
		copy[i] = (uint8_t)data[i];
	LLVMFuzzerTestOneInput(copy, len);
	free(copy);
	free(data);
	printf("ok %d - replay %s\n", ++count, path);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			struct dirent **names;
			int n = scandir(argv[i], &names, NULL, alphasort);
			for (int j = 0; j < n; j++) {
				if (names[j]->d_name[0] != '.') {
					char *p = xasprintf("%s/%s", argv[i], names[j]->d_name);
					replay_file(p);
					free(p);
				}
				free(names[j]);
			}
			free(names);
		} else {
			replay_file(argv[i]);
		}
	}
	printf("1..%d\n", count);
	return 0;
}
