/* The one table of refused system calls (src/sandbox/syscalls.h) against
 * the tables of docs/security.md's seccomp section, both ways: a call the
 * filter refuses but the documentation does not name fails here, and so
 * does a documented call the filter does not know. Also: no call listed
 * twice, by name or by number. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/util.h"
#include "sandbox/syscalls.h"
#include "tap.h"

#define MAX_DOC_NAMES 128

struct names {
	char *name[MAX_DOC_NAMES];
	size_t n;
};

static bool has_name(const struct names *ns, const char *name, size_t len)
{
	for (size_t i = 0; i < ns->n; i++)
		if (strlen(ns->name[i]) == len && memcmp(ns->name[i], name, len) == 0)
			return true;
	return false;
}

/* The system calls a table's first cell names: each `code` span that
 * starts with a lowercase name, up to its end or a '(' (`ioctl(TIOCSTI)`);
 * constants (`O_CREAT`, `S_ISUID`) are not calls. */
static void cell_names(const char *cell, size_t len, struct names *ns)
{
	const char *end = cell + len;
	for (const char *p = memchr(cell, '`', len); p && p < end;) {
		const char *q = memchr(p + 1, '`', (size_t)(end - p - 1));
		if (!q)
			return;
		size_t n = 0;
		while (p + 1 + n < q && (islower((unsigned char)p[1 + n]) ||
		                         isdigit((unsigned char)p[1 + n]) || p[1 + n] == '_'))
			n++;
		bool whole = p + 1 + n == q || p[1 + n] == '(';
		if (n && whole && !has_name(ns, p + 1, n) && ns->n < MAX_DOC_NAMES)
			ns->name[ns->n++] = xstrndup(p + 1, n);
		p = memchr(q + 1, '`', (size_t)(end - q - 1));
	}
}

/* Every `| call | errno | why |` table between "## The seccomp filter"
 * and the next section. */
static void doc_names(const char *doc, struct names *ns)
{
	const char *s = strstr(doc, "\n## The seccomp filter\n");
	if (!s)
		return;
	const char *stop = strstr(s + 1, "\n## ");
	bool in_table = false;
	for (const char *line = s + 1; *line && (!stop || line < stop);) {
		size_t len = strcspn(line, "\n");
		if (strncmp(line, "| call | errno | why |", 22) == 0)
			in_table = true;
		else if (len == 0 || line[0] != '|')
			in_table = false;
		else if (in_table && strncmp(line, "|---", 4) != 0) {
			const char *cell_end = strstr(line + 1, " | ");
			if (cell_end && cell_end < line + len)
				cell_names(line + 1, (size_t)(cell_end - line - 1), ns);
		}
		line += len + (line[len] == '\n');
	}
}

static void check_unique(void)
{
	bool dup_name = false, dup_nr = false;
	for (size_t i = 0; i < REFUSED_CALLS_COUNT; i++)
		for (size_t j = i + 1; j < REFUSED_CALLS_COUNT; j++) {
			dup_name |= strcmp(refused_calls[i].name, refused_calls[j].name) == 0;
			for (int abi = 0; abi < 2; abi++) {
				uint32_t a = refused_call_nr(i, abi), b = refused_call_nr(j, abi);
				dup_nr |= a != NO_NR && a == b;
			}
		}
	bool why_missing = false;
	for (size_t i = 0; i < REFUSED_CALLS_COUNT; i++)
		why_missing |= refused_calls[i].explain == EX_WHAT && !refused_calls[i].why;
	CHECK(!why_missing, "every call --trace names says why nothing allows it");
	CHECK(!dup_name, "no call is listed twice in the refusal table");
	CHECK(!dup_nr, "no two rows share a number, native or i386");
	CHECK(refused_call_find(NATIVE_ARCH, refused_calls[0].nr) == &refused_calls[0],
	      "a native number finds its row");
#if HAS_I386
	CHECK(refused_call_nr(0, true) == 54 &&
	          refused_call_find(AUDIT_ARCH_I386, 54) == &refused_calls[0],
	      "i386 numbers come from the kernel's headers (ioctl is 54)");
#endif
}

int main(void)
{
	check_unique();
	const char *src = getenv("MOAT_SRC");
	cleanup_free char *path = xasprintf("%s/docs/security.md", src && *src ? src : ".");
	cleanup_free char *doc = NULL;
	size_t len;
	struct error err = {0};
	if (!CHECK(fs_read_file(path, 1 << 20, &doc, &len, &err) == 0, "read %s", path))
		return tap_done();
	struct names docs = {0};
	doc_names(doc, &docs);
	CHECK(docs.n > 10, "docs/security.md's seccomp tables name calls (%zu)", docs.n);
	struct names table = {0};
	for (size_t i = 0; i < REFUSED_CALLS_COUNT; i++) {
		const char *name = refused_calls[i].name;
		CHECK(has_name(&docs, name, strlen(name)),
		      "%s, refused by the filter, is in docs/security.md's seccomp tables", name);
		table.name[table.n++] = (char *)name;
	}
	for (size_t i = 0; i < docs.n; i++)
		CHECK(has_name(&table, docs.name[i], strlen(docs.name[i])),
		      "%s, in docs/security.md's seccomp tables, is in the filter's table",
		      docs.name[i]);
	for (size_t i = 0; i < docs.n; i++)
		free(docs.name[i]);
	return tap_done();
}
