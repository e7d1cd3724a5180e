/* Fuzzes the JSON reader that nix's --json output (and the strings a flake
 * chooses, such as its description) passes through. Any input must give a
 * string or nothing, never read past its end; what it gives is
 * no longer than the input; a valid document stays valid with white
 * space around it; and a string member wrapped around the input's own
 * string value is found again. A broken property aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/util.h"
#include "shells/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_json: property failed: %s\n", what);
		abort();
	}
}

static const char *const paths[] = {
    "url", "locked.rev", "locked.narHash", "locked.type", "0.outputs.out", "path", "a.0.b", "0",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A private copy, exactly size bytes long, so ASan sees any overread. */
	char *buf = xmalloc(size ? size : 1);
	memcpy(buf, data, size);
	for (size_t i = 0; i < ARRAY_LEN(paths); i++) {
		char *got = json_get_string(buf, size, paths[i]);
		require(!got || strlen(got) <= size, "a result is no longer than the input");
		free(got);
	}
	bool valid = json_valid(buf, size);
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, " \n\t");
	sb_add(&sb, buf, size);
	sb_adds(&sb, "\r\n ");
	require(json_valid(sb.buf, sb.len) == valid, "white space around a value changes nothing");
	/* {"k": <input>}: when the input is a string, that string is found. */
	sb_reset(&sb);
	sb_adds(&sb, "{\"x\": [1, {\"k\": 2}], \"k\": ");
	sb_add(&sb, buf, size);
	sb_adds(&sb, "}");
	char *inner = json_get_string(buf, size, "");
	char *outer = json_get_string(sb.buf, sb.len, "k");
	if (valid && inner)
		require(outer && strcmp(inner, outer) == 0, "a string value is found as a member");
	free(inner);
	free(outer);
	sb_release(&sb);
	free(buf);
	return 0;
}
