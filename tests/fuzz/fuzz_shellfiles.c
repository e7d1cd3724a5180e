/* Fuzzes the manifest and env-file parsers: both read files that a
 * sandboxed process can write (a shell inside the project), so a damaged
 * file must give an error, never a crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "shells/shells.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct error err;
	struct manifest m;
	if (manifest_parse(buf, size, "fuzz", &m, &err) == 0) {
		/* What parses must format and parse back to the same entries. */
		char *text = manifest_format(&m);
		struct manifest again;
		if (manifest_parse(text, strlen(text), "fuzz", &again, &err) != 0 || again.n != m.n)
			abort();
		manifest_free(&again);
		free(text);
		manifest_free(&m);
	}
	struct env_change *env;
	size_t n;
	struct strbuf warn = STRBUF_INIT;
	if (envfile_parse_warn(buf, size, "fuzz", "/root dir", &env, &n, &warn, &err) == 0) {
		/* Whatever was skipped or trimmed, nothing that steers moat or
		 * the loader gets through, and no name keeps a blank. */
		for (size_t i = 0; i < n; i++)
			if (strncmp(env[i].name, "MOAT_", 5) == 0 ||
			    strncmp(env[i].name, "LD_", 3) == 0 ||
			    strcmp(env[i].name, "HOME") == 0 || strpbrk(env[i].name, " \t=\n") ||
			    !env[i].name[0])
				abort();
		env_changes_free(env, n);
	}
	/* Every warning is one line naming the file and line. */
	for (const char *w = sb_str(&warn); *w; w = strchr(w, '\n') + 1)
		if (strncmp(w, "fuzz:", 5) != 0 || !strchr(w, '\n'))
			abort();
	sb_release(&warn);
	return 0;
}
