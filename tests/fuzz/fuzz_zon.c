/* Fuzzes the ZON parser, the schema check and the edits. Any input must
 * parse or fail with a positioned message; for a valid config, every edit
 * must succeed, leave a file that parses, do what it says (the grant or link
 * is in force, or gone), leave dirs-scoped rules alone, and change nothing
 * when it reports no change. A broken property aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

#define HOME "/home/you"

static void require(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_zon: property failed: %s\n", what);
		abort();
	}
}

static void check_spans(const struct zon_node *n, size_t lo, size_t hi)
{
	require(lo <= n->item_start && n->item_start <= n->start && n->start < n->end &&
	            n->end <= hi,
	        "node spans nest");
	require(n->line >= 1 && n->col >= 1, "node positions are 1-based");
	require(n->comma == ZON_NONE || (n->comma >= n->end && n->comma < hi), "comma after item");
	for (size_t i = 0; i < n->nitems; i++) {
		check_spans(&n->items[i], n->start, n->end);
		if (i)
			require(n->items[i].item_start > n->items[i - 1].comma, "items in order");
	}
}

/* The scoped rules, which no edit may touch, as one string. */
static char *scoped_rules(const struct config *cfg)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < cfg->nallow; i++) {
		const struct config_allow *a = &cfg->allow[i];
		if (!a->ndirs)
			continue;
		sb_addf(&sb, "%s%d%d|", a->bin, a->write, a->exec);
		for (size_t j = 0; j < a->npaths; j++)
			sb_addf(&sb, "%s|", a->paths[j]);
		for (size_t j = 0; j < a->ndirs; j++)
			sb_addf(&sb, "%s|", a->dirs[j]);
		sb_addc(&sb, '\n');
	}
	return sb_detach(&sb);
}

/* Whether an unscoped rule for bin holds path, and the union of its rights. */
static bool unscoped_grant(const struct config *cfg, const char *bin, const char *path, bool *write,
                           bool *exec)
{
	bool found = false;
	*write = *exec = false;
	for (size_t i = 0; i < cfg->nallow; i++) {
		const struct config_allow *a = &cfg->allow[i];
		if (a->ndirs || strcmp(a->bin, bin) != 0)
			continue;
		for (size_t j = 0; j < a->npaths; j++) {
			if (config_same_path(a->paths[j], path, HOME)) {
				found = true;
				*write |= a->write;
				*exec |= a->exec;
			}
		}
	}
	return found;
}

/* Check what an edit left behind and parse it into *after. */
static void check_result(const char *before, size_t len, int rc, const struct strbuf *out,
                         const struct config *cfg, struct config *after)
{
	struct error err;
	require(rc >= 0, "an edit of a valid file succeeds");
	require(rc == 1 || (out->len == len && memcmp(out->buf, before, len) == 0),
	        "no change means the same bytes");
	require(config_parse(out->buf, out->len, "fuzz.zon", after, &err) == 0,
	        "an edited file parses");
	char *was = scoped_rules(cfg), *now = scoped_rules(after);
	require(strcmp(was, now) == 0, "dirs-scoped rules are left alone");
	free(was);
	free(now);
}

static void fuzz_allow(const char *buf, size_t len, const struct config *cfg, const char *bin,
                       const char *path, bool write, bool exec)
{
	struct strbuf out = STRBUF_INIT, again = STRBUF_INIT;
	struct config after;
	struct error err;
	int rc = config_edit_allow(buf, len, "fuzz.zon", HOME, bin, path, write, exec, &out, &err);
	check_result(buf, len, rc, &out, cfg, &after);
	bool w, x;
	require(unscoped_grant(&after, bin, path, &w, &x) && (w || !write) && (x || !exec),
	        "the grant is in force");
	/* Nothing that was granted loses rights, this path or any other. */
	for (size_t i = 0; i < cfg->nallow && i < 16; i++) {
		const struct config_allow *a = &cfg->allow[i];
		for (size_t j = 0; j < a->npaths && j < 16; j++) {
			bool w0, x0;
			if (a->ndirs || !unscoped_grant(cfg, a->bin, a->paths[j], &w0, &x0))
				continue;
			require(unscoped_grant(&after, a->bin, a->paths[j], &w, &x) && (w || !w0) &&
			            (x || !x0),
			        "a grant is never narrowed");
		}
	}
	rc = config_edit_unallow(out.buf, out.len, "fuzz.zon", HOME, bin, path, &again, &err);
	require(rc == 1, "unallow finds what allow granted");
	config_free(&after);
	check_result(out.buf, out.len, rc, &again, cfg, &after);
	require(!unscoped_grant(&after, bin, path, &w, &x), "unallow removes the grant");
	config_free(&after);
	sb_release(&out);
	sb_release(&again);
}

static void fuzz_link(const char *buf, size_t len, const struct config *cfg, const char *dir)
{
	static const char *const shells[] = {"zig", "rust"};
	struct strbuf out = STRBUF_INIT, again = STRBUF_INIT;
	struct config after;
	struct error err;
	int rc = config_edit_link(buf, len, "fuzz.zon", HOME, dir, shells, 2, &out, &err);
	check_result(buf, len, rc, &out, cfg, &after);
	size_t n = 0;
	for (size_t i = 0; i < after.nlinks; i++) {
		if (config_same_path(after.links[i].dir, dir, HOME)) {
			n++;
			require(after.links[i].nshells == 2 &&
			            !strcmp(after.links[i].shells[1], "rust"),
			        "the link points at the new shells");
		}
	}
	require(n == 1, "exactly one link for the dir");
	config_free(&after);
	rc = config_edit_unlink(out.buf, out.len, "fuzz.zon", HOME, dir, &again, &err);
	require(rc == 1, "unlink finds what link added");
	check_result(out.buf, out.len, rc, &again, cfg, &after);
	for (size_t i = 0; i < after.nlinks; i++)
		require(!config_same_path(after.links[i].dir, dir, HOME),
		        "unlink removes the link");
	config_free(&after);
	sb_release(&out);
	sb_release(&again);
}

static bool passes(const struct config *cfg, const char *bin, const char *name)
{
	for (size_t i = 0; i < cfg->nenv; i++)
		for (size_t j = 0; j < cfg->env[i].nnames; j++)
			if (!cfg->env[i].ndirs && !strcmp(cfg->env[i].bin, bin) &&
			    !strcmp(cfg->env[i].names[j], name))
				return true;
	return false;
}

/* moat allow --env and its -r: the name is passed, then no longer. */
static void fuzz_env(const char *buf, size_t len, const struct config *cfg, const char *bin,
                     const char *name)
{
	struct strbuf out = STRBUF_INIT, again = STRBUF_INIT;
	struct config after;
	struct error err;
	int rc = config_edit_env(buf, len, "fuzz.zon", bin, name, &out, &err);
	check_result(buf, len, rc, &out, cfg, &after);
	require(passes(&after, bin, name), "the name is passed");
	config_free(&after);
	rc = config_edit_unenv(out.buf, out.len, "fuzz.zon", bin, name, &again, &err);
	require(rc == 1, "-r --env finds what --env added");
	check_result(out.buf, out.len, rc, &again, cfg, &after);
	require(!passes(&after, bin, name), "-r --env removes it");
	config_free(&after);
	sb_release(&out);
	sb_release(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct zon_node *root;
	struct zon_diag diag;
	if (zon_parse(buf, size, &root, &diag) == 0) {
		if (root)
			check_spans(root, 0, size);
		zon_free(root);
	} else {
		require(root == NULL && diag.line >= 1 && diag.col >= 1 && diag.msg[0] &&
		            diag.offset <= size,
		        "a parse error has a position and a message");
	}

	struct config cfg;
	struct error err;
	if (config_parse(buf, size, "fuzz.zon", &cfg, &err) < 0) {
		require(strncmp(err.msg, "fuzz.zon:", 9) == 0, "a config error names the file");
		return 0;
	}
	fuzz_allow(buf, size, &cfg, "cargo", "~/.cargo", true, false);
	fuzz_allow(buf, size, &cfg, "*", HOME "/.config/nvim", false, true);
	fuzz_link(buf, size, &cfg, "/home/you/src/p");
	/* Edits aimed at what the file already holds reach the widening,
	 * splitting and replacing paths. */
	for (size_t i = 0; i < cfg.nallow && i < 3; i++) {
		const struct config_allow *a = &cfg.allow[i];
		for (size_t j = 0; j < a->npaths && j < 2; j++) {
			fuzz_allow(buf, size, &cfg, a->bin, a->paths[j], false, false);
			fuzz_allow(buf, size, &cfg, a->bin, a->paths[j], true, (i + j) % 2);
		}
	}
	for (size_t i = 0; i < cfg.nlinks && i < 2; i++)
		fuzz_link(buf, size, &cfg, cfg.links[i].dir);
	fuzz_env(buf, size, &cfg, "gh", "GH_TOKEN");
	for (size_t i = 0; i < cfg.nenv && i < 2; i++)
		for (size_t j = 0; j < cfg.env[i].nnames && j < 2; j++)
			fuzz_env(buf, size, &cfg, cfg.env[i].bin, cfg.env[i].names[j]);
	config_free(&cfg);
	return 0;
}
