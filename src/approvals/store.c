/* The approvals store: one approval per line, readable, e.g.
 *
 *   approval  1764489600  /home/you/proj  npm  home=/home/you/proj/.moat/home
 * grant:rw=/home/you/.npm
 *
 * and socket=PATH for a unix socket let through (config.zon's .sockets),
 * jailbreak=PATH for a jailbreak, secret=NAME for a secret variable handed
 * to the tool (its name: values are never stored). A store written before sockets were
 * part of the set parses the same: its approvals simply hold none, so a
 * listed socket asks again. An older moat keeps a line holding socket=
 * verbatim, as one it does not understand, and asks.
 *
 * (fields separated by tabs; paths cannot hold tabs, moat refuses control
 * characters in them). Lines it does not understand are kept verbatim. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "approvals/approvals.h"
#include "base/fs.h"
#include "base/path.h"
#include "base/xdg.h"

#define STORE_MAX (4u << 20)

static const struct {
	const char *code;
	unsigned access;
} levels[] = {
    {"r", ACCESS_READ},
    {"rw", ACCESS_RW},
    {"rx", ACCESS_RX},
    {"rwx", ACCESS_ALL},
};

static const char *level_code(unsigned access)
{
	for (size_t i = 0; i < ARRAY_LEN(levels); i++)
		if (levels[i].access == (access & ACCESS_ALL))
			return levels[i].code;
	return "r";
}

/* secret=NAME: a name, not a path; any name the environment can hold
 * (npm_config_//host/:_authToken), but never an empty one or one with
 * control characters, which moat never hands over. */
static int parse_secret(const char *field, struct access_item *it)
{
	const char *name = field + strlen("secret=");
	if (!*name || strchr(name, '='))
		return -1;
	for (const char *c = name; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return -1;
	*it = (struct access_item){.kind = ITEM_SECRET, .path = xstrdup(name)};
	return 0;
}

/* net=off|open|connect:PORT|listen:PORT|host:HOST[:PORT], checked by the
 * one grammar. */
static int parse_net_item(const char *value, struct access_item *it)
{
	struct netpolicy p = netpolicy_empty();
	struct error err = {0};
	bool level = strcmp(value, "off") == 0 || strcmp(value, "open") == 0;
	bool port = strncmp(value, "connect:", 8) == 0 || strncmp(value, "listen:", 7) == 0;
	bool host = strncmp(value, "host:", 5) == 0;
	if (!level && !host && (!port || netpolicy_add_item(&p, value, &err) < 0))
		return -1;
	if (host && (netpolicy_add_item(&p, value + 5, &err) < 0 || p.level != NET_HOSTS))
		return -1;
	*it = (struct access_item){.kind = ITEM_NET, .path = xstrdup(value)};
	return 0;
}

static int parse_item(const char *field, struct access_item *it)
{
	if (strncmp(field, "secret=", 7) == 0)
		return parse_secret(field, it);
	const char *eq = strchr(field, '=');
	if (eq && eq - field == 3 && memcmp(field, "net", 3) == 0)
		return parse_net_item(eq + 1, it);
	if (!eq || eq[1] != '/' || path_refusal(eq + 1))
		return -1;
	size_t klen = (size_t)(eq - field);
	*it = (struct access_item){.path = NULL};
	if (klen == 4 && memcmp(field, "home", 4) == 0) {
		it->kind = ITEM_HOME;
	} else if (klen == 9 && memcmp(field, "jailbreak", 9) == 0) {
		it->kind = ITEM_JAILBREAK;
	} else if (klen == 6 && memcmp(field, "socket", 6) == 0) {
		it->kind = ITEM_SOCKET;
		it->access = ACCESS_CONNECT;
	} else if (klen > 6 && memcmp(field, "grant:", 6) == 0) {
		it->kind = ITEM_GRANT;
		it->access = 0;
		for (size_t i = 0; i < ARRAY_LEN(levels); i++)
			if (strlen(levels[i].code) == klen - 6 &&
			    memcmp(field + 6, levels[i].code, klen - 6) == 0)
				it->access = levels[i].access;
		if (!it->access)
			return -1;
	} else {
		return -1;
	}
	it->path = xstrdup(eq + 1);
	return 0;
}

static int parse_line(char *line, struct approval *a)
{
	*a = (struct approval){0};
	char *fields[4];
	char *save = NULL, *tok = strtok_r(line, "\t", &save);
	for (int i = 0; i < 4; i++, tok = strtok_r(NULL, "\t", &save)) {
		if (!tok)
			return -1;
		fields[i] = tok;
	}
	char *end;
	long long when = strtoll(fields[1], &end, 10);
	if (strcmp(fields[0], "approval") != 0 || *end || when < 0 || path_refusal(fields[2]) ||
	    !*fields[3] || strchr(fields[3], '/'))
		return -1;
	a->when = (time_t)when;
	a->root = xstrdup(fields[2]);
	a->bin = xstrdup(fields[3]);
	for (; tok; tok = strtok_r(NULL, "\t", &save)) {
		struct access_item it;
		if (parse_item(tok, &it) < 0)
			goto bad;
		a->set.items = xrealloc_array(a->set.items, a->set.n + 1, sizeof(it));
		a->set.items[a->set.n++] = it;
	}
	return 0;
bad:
	free(a->root);
	free(a->bin);
	access_set_free(&a->set);
	return -1;
}

void approvals_parse(const char *buf, size_t len, struct approval_store *st, size_t *damaged)
{
	*st = (struct approval_store){0};
	*damaged = 0;
	for (const char *p = buf, *end = buf + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		cleanup_free char *line = xstrndup(p, n);
		p += n + (nl != NULL);
		if (!n)
			continue;
		cleanup_free char *copy = xstrdup(line);
		struct approval a;
		if (strlen(line) == n && parse_line(copy, &a) == 0) {
			st->approvals = xrealloc_array(st->approvals, st->n + 1, sizeof(a));
			st->approvals[st->n++] = a;
			continue;
		}
		if (line[0] != '#')
			(*damaged)++;
		st->foreign = xrealloc_array(st->foreign, st->nforeign + 1, sizeof(char *));
		st->foreign[st->nforeign++] = steal_ptr(&line);
	}
}

char *approvals_format(const struct approval_store *st)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < st->nforeign; i++)
		sb_addf(&sb, "%s\n", st->foreign[i]);
	for (size_t i = 0; i < st->n; i++) {
		const struct approval *a = &st->approvals[i];
		sb_addf(&sb, "approval\t%lld\t%s\t%s", (long long)a->when, a->root, a->bin);
		for (size_t j = 0; j < a->set.n; j++) {
			const struct access_item *it = &a->set.items[j];
			if (it->kind == ITEM_HOME)
				sb_addf(&sb, "\thome=%s", it->path);
			else if (it->kind == ITEM_GRANT)
				sb_addf(&sb, "\tgrant:%s=%s", level_code(it->access), it->path);
			else if (it->kind == ITEM_SOCKET)
				sb_addf(&sb, "\tsocket=%s", it->path);
			else if (it->kind == ITEM_SECRET)
				sb_addf(&sb, "\tsecret=%s", it->path);
			else if (it->kind == ITEM_NET)
				sb_addf(&sb, "\tnet=%s", it->path);
			else
				sb_addf(&sb, "\tjailbreak=%s", it->path);
		}
		sb_addc(&sb, '\n');
	}
	return sb_detach(&sb);
}

static void approval_free(struct approval *a)
{
	free(a->root);
	free(a->bin);
	access_set_free(&a->set);
}

void approvals_free(struct approval_store *st)
{
	for (size_t i = 0; i < st->n; i++)
		approval_free(&st->approvals[i]);
	for (size_t i = 0; i < st->nforeign; i++)
		free(st->foreign[i]);
	free(st->approvals);
	free(st->foreign);
	*st = (struct approval_store){0};
}

bool approvals_covers(const struct approval_store *st, const char *root, const char *bin,
                      const struct access_set *set)
{
	for (size_t i = 0; i < st->n; i++) {
		const struct approval *a = &st->approvals[i];
		if (strcmp(a->root, root) == 0 && strcmp(a->bin, bin) == 0 &&
		    access_set_covers(&a->set, set))
			return true;
	}
	return false;
}

void approvals_add(struct approval_store *st, const char *root, const char *bin, time_t when,
                   const struct access_set *set)
{
	size_t i = 0;
	while (i < st->n && !(strcmp(st->approvals[i].root, root) == 0 &&
	                      strcmp(st->approvals[i].bin, bin) == 0))
		i++;
	if (i == st->n)
		st->approvals = xrealloc_array(st->approvals, ++st->n, sizeof(*st->approvals));
	else
		approval_free(&st->approvals[i]);
	struct approval *a = &st->approvals[i];
	*a = (struct approval){.root = xstrdup(root), .bin = xstrdup(bin), .when = when};
	for (size_t j = 0; j < set->n; j++) {
		a->set.items =
		    xrealloc_array(a->set.items, a->set.n + 1, sizeof(struct access_item));
		a->set.items[a->set.n++] = (struct access_item){
		    set->items[j].kind, set->items[j].access, xstrdup(set->items[j].path)};
	}
}

size_t approvals_forget(struct approval_store *st, const char *root)
{
	size_t kept = 0, dropped = 0;
	for (size_t i = 0; i < st->n; i++) {
		if (!root || strcmp(st->approvals[i].root, root) == 0) {
			approval_free(&st->approvals[i]);
			dropped++;
		} else {
			st->approvals[kept++] = st->approvals[i];
		}
	}
	st->n = kept;
	return dropped;
}

char *approvals_path(const char *home)
{
	cleanup_free char *state = xdg_moat_dir(XDG_STATE, home);
	return path_join(state, "approvals");
}

static int load_path(const char *path, struct approval_store *st, struct strbuf *warn,
                     struct error *err)
{
	cleanup_free char *buf = NULL;
	size_t len = 0;
	if (fs_read_file(path, STORE_MAX, &buf, &len, err) < 0) {
		*st = (struct approval_store){0};
		if (errno != ENOENT)
			return -1;
		error_clear(err);
		return 0;
	}
	size_t damaged;
	approvals_parse(buf, len, st, &damaged);
	if (damaged && warn)
		sb_addf(warn, "%s: %zu damaged line(s) skipped (kept in the file)\n", path,
		        damaged);
	return 0;
}

int approvals_load(const char *home, struct approval_store *st, struct strbuf *warn,
                   struct error *err)
{
	cleanup_free char *path = approvals_path(home);
	return load_path(path, st, warn, err);
}

int approvals_update(const char *home, approvals_update_fn *fn, void *arg, struct error *err)
{
	cleanup_free char *path = approvals_path(home);
	cleanup_close int lock = fs_lock_beside(path, err);
	if (lock < 0)
		return -1;
	struct approval_store st;
	if (load_path(path, &st, NULL, err) < 0)
		return -1;
	int rc = fn(&st, arg);
	if (rc == 1) {
		cleanup_free char *text = approvals_format(&st);
		/* Private whatever the old file's mode was: it lists what each
		 * project may reach. */
		if (fs_write_atomic(path, text, strlen(text), 0600, err) < 0 ||
		    chmod(path, 0600) < 0)
			rc = -1;
	}
	approvals_free(&st);
	return rc;
}

/* "flake:sha256-..." with '/' as '_': an approval's binary cannot hold '/'. */
static char *flake_bin(const char *hash)
{
	char *bin = xasprintf("%s%s", APPROVAL_FLAKE_PREFIX, hash);
	for (char *c = bin; *c; c++)
		if (*c == '/')
			*c = '_';
	return bin;
}

char *approvals_flake_hash(const struct approval *a)
{
	size_t n = strlen(APPROVAL_FLAKE_PREFIX);
	if (strncmp(a->bin, APPROVAL_FLAKE_PREFIX, n) != 0 || a->set.n)
		return NULL;
	char *hash = xstrdup(a->bin + n);
	for (char *c = hash; *c; c++)
		if (*c == '_')
			*c = '/';
	return hash;
}

bool approvals_flake_approved(const struct approval_store *st, const char *dir, const char *hash)
{
	cleanup_free char *bin = flake_bin(hash);
	for (size_t i = 0; i < st->n; i++)
		if (strcmp(st->approvals[i].root, dir) == 0 &&
		    strcmp(st->approvals[i].bin, bin) == 0 && st->approvals[i].set.n == 0)
			return true;
	return false;
}

void approvals_add_flake(struct approval_store *st, const char *dir, const char *hash, time_t when)
{
	size_t kept = 0;
	for (size_t i = 0; i < st->n; i++) {
		cleanup_free char *old = approvals_flake_hash(&st->approvals[i]);
		if (old && strcmp(st->approvals[i].root, dir) == 0)
			approval_free(&st->approvals[i]);
		else
			st->approvals[kept++] = st->approvals[i];
	}
	st->n = kept;
	cleanup_free char *bin = flake_bin(hash);
	struct access_set none = {0};
	approvals_add(st, dir, bin, when, &none);
}
