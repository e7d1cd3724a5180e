/* Access sets and the confirm summary: pure. */
#include <string.h>

#include "approvals/approvals.h"
#include "base/path.h"

static void add_item(struct access_set *set, enum access_item_kind kind, unsigned access,
                     const char *path)
{
	set->items = xrealloc_array(set->items, set->n + 1, sizeof(*set->items));
	set->items[set->n++] = (struct access_item){kind, access, xstrdup(path)};
}

void access_set_from_profile(struct access_set *set, const struct profile *p, const char *home_seen)
{
	*set = (struct access_set){0};
	add_item(set, ITEM_HOME, 0, home_seen);
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].origin == ORIGIN_GRANT)
			add_item(set, ITEM_GRANT, p->rules[i].access & ACCESS_ALL,
			         p->rules[i].path);
	for (size_t i = 0; i < p->njailbreaks; i++)
		add_item(set, ITEM_JAILBREAK, 0, p->jailbreaks[i]);
}

void access_set_free(struct access_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->items[i].path);
	free(set->items);
	*set = (struct access_set){0};
}

static bool item_covered(const struct access_set *approved, const struct access_item *want)
{
	for (size_t i = 0; i < approved->n; i++) {
		const struct access_item *a = &approved->items[i];
		if (a->kind != want->kind)
			continue;
		if (want->kind == ITEM_GRANT) {
			if (path_is_under(want->path, a->path) && !(want->access & ~a->access))
				return true;
		} else if (strcmp(a->path, want->path) == 0) {
			return true;
		}
	}
	return false;
}

bool access_set_covers(const struct access_set *approved, const struct access_set *wanted)
{
	for (size_t i = 0; i < wanted->n; i++)
		if (!item_covered(approved, &wanted->items[i]))
			return false;
	return true;
}

void confirm_summary(struct strbuf *out, const char *bin, const struct profile *p,
                     const struct access_set *set)
{
	sb_addf(out, "moat: about to run %s in %s\n", bin, p->root);
	sb_addf(out, "  %-16s %s\n", "read/write/exec", p->root);
	for (size_t i = 0; i < set->n; i++) {
		const struct access_item *it = &set->items[i];
		if (it->kind == ITEM_HOME)
			sb_addf(out, "  %-16s %s\n", "HOME", it->path);
		else if (it->kind == ITEM_GRANT)
			sb_addf(out, "  %-16s %s\n", access_name(it->access), it->path);
		else
			sb_addf(out, "  %-16s %s  UNSANDBOXED\n", "jailbreak", it->path);
	}
	sb_addf(out, "  %-16s %s\n", "network", p->network ? "allowed" : "denied");
	sb_adds(out, "nothing else outside those paths is readable\n");
}
