/* Fuzzes the flake reference parser: the reference comes from MOAT_FLAKE,
 * the command line or a config.zon default, and deciding wrongly that a
 * local one is remote lets nix build a sandbox-written flake without the
 * user's consent. Any input must be classified without reading past its
 * end. A reference starting with '/' or '.' is never remote; a refused one
 * says why; a local one has a path without '%' and a dir= that stays
 * inside it; a local one with an absolute path, written back as
 * scheme:path?query, parses to the same. A broken property aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/path.h"
#include "base/util.h"
#include "shells/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_flakeref: property failed: %s\n", what);
		abort();
	}
}

static void check_local(const struct flake_ref *r)
{
	require(r->scheme && r->path && r->subdir, "a local reference has its parts");
	require(r->path[0] && !strchr(r->path, '%'), "its path is non-empty, without '%'");
	require(r->subdir[0] != '/' && !path_has_dotdot(r->subdir), "its dir= stays inside");
	if (r->path[0] != '/')
		return;
	char *again = xasprintf("%s%s%s%s%s", r->scheme, *r->scheme ? ":" : "", r->path,
	                        r->query ? "?" : "", r->query ? r->query : "");
	struct flake_ref r2;
	flake_ref_parse(again, &r2);
	require(r2.kind == FLAKE_REF_LOCAL && strcmp(r2.path, r->path) == 0 &&
	            strcmp(r2.scheme, r->scheme) == 0 && strcmp(r2.subdir, r->subdir) == 0,
	        "written back, it parses to the same");
	flake_ref_free(&r2);
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *ref = xmalloc(size + 1);
	memcpy(ref, data, size);
	ref[size] = '\0';
	struct flake_ref r;
	flake_ref_parse(ref, &r);
	require(r.kind == FLAKE_REF_REFUSED || r.kind == FLAKE_REF_REMOTE ||
	            r.kind == FLAKE_REF_LOCAL,
	        "a kind");
	if (ref[0] == '/' || ref[0] == '.')
		require(r.kind != FLAKE_REF_REMOTE, "a path is never remote");
	if (r.kind == FLAKE_REF_REFUSED)
		require(r.why && *r.why, "a refusal says why");
	if (r.kind == FLAKE_REF_LOCAL)
		check_local(&r);
	flake_ref_free(&r);
	free(ref);
	return 0;
}
