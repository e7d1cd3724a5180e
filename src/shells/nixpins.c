/* moat update and moat pins: see shells/nix.c. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/path.h"
#include "shells/nixpriv.h"

/* --- moat update and moat pins --------------------------------------------- */

static char *short_rev(const char *rev)
{
	if (!rev)
		return NULL;
	size_t n = strncmp(rev, "sha256-", 7) == 0 ? 7 + 12 : 12;
	return xstrndup(rev, n);
}

void nix_pin_change_free(struct nix_pin_change *c)
{
	free(c->old_rev);
	free(c->new_rev);
	free(c->old_store);
	free(c->new_store);
	free(c->flake);
	free(c->stale);
	*c = (struct nix_pin_change){0};
}

/* For a bare name, the flake it resolves in now, when that is not the one
 * it was pinned from (NULL when it is, or for FLAKE#ATTR). */
static char *stale_flake(const struct pin *pin)
{
	if (strchr(pin->name, '#'))
		return NULL;
	struct error ignored;
	char *now = nix_default_flake(&ignored);
	if (now && strcmp(now, pin->flake) == 0) {
		free(now);
		return NULL;
	}
	return now ? now : xstrdup("none (MOAT_FLAKE is not set and no flake is installed)");
}

/* The name a shell is pinned under: FLAKE#ATTR with its flake made
 * canonical (".#x" -> "/abs#x"), as resolving it pins it. */
static char *pin_key(const char *name)
{
	struct shell_ref k;
	struct error ignored;
	if (!strchr(name, '#') || shell_ref_parse(name, &k, &ignored) < 0)
		return xstrdup(name);
	char *key = steal_ptr(&k.name);
	shell_ref_free(&k);
	return key;
}

int nix_update(const char *name, bool follow, struct nix_pin_change *chg, struct error *err)
{
	*chg = (struct nix_pin_change){0};
	cleanup_free char *state = moat_state_dir(nix_state.feedback.home);
	cleanup_free char *pins_path = path_join(state, "pins");
	int lock = lock_pins(state, err);
	if (lock < 0)
		return -1;
	struct pins pins;
	struct shell_ref r = {0};
	struct pin fresh = {0};
	cleanup_free char *key = NULL;
	int rc = -1;
	if (pins_load(pins_path, &pins, err) < 0)
		goto out;
	key = pin_key(name);
	const struct pin *old = pins_lookup(&pins, key);
	if (!old) {
		error_set(err, "no pinned shell '%s'", name);
		error_hint(err,
		           "a shell is pinned when first used, e.g. by: moat shell %s; "
		           "'moat pins' lists the pins",
		           name);
		goto out;
	}
	chg->old_rev = short_rev(old->rev);
	chg->old_store = xstrdup(old->store);
	chg->flake = xstrdup(old->flake);
	chg->stale = stale_flake(old);
	if (chg->stale && !follow) {
		rc = 0;
		goto out;
	}
	/* A bare name follows MOAT_FLAKE as moat shell would resolve it now. */
	if (shell_ref_parse(strchr(name, '#') ? old->name : old->attr, &r, err) < 0)
		goto out;
	free(chg->flake);
	chg->flake = xstrdup(r.flake);
	free(chg->stale);
	chg->stale = NULL;
	nix_say_progress("updating %s...", name);
	if (resolve_fresh(&r, true, &fresh, &chg->unpinnable, err) < 0 ||
	    save_pin(pins_path, &pins, &fresh, err) < 0)
		goto out;
	chg->new_rev = short_rev(fresh.rev);
	chg->new_store = xstrdup(fresh.store);
	rc = 0;
out:
	if (rc < 0)
		nix_pin_change_free(chg);
	pin_release(&fresh);
	shell_ref_free(&r);
	pins_free(&pins);
	close(lock);
	return rc;
}

int nix_pinned_names(char ***names, size_t *n, struct error *err)
{
	cleanup_free char *state = moat_state_dir(nix_state.feedback.home);
	cleanup_free char *pins_path = path_join(state, "pins");
	struct pins pins;
	if (pins_load(pins_path, &pins, err) < 0)
		return -1;
	report_pin_warnings(&pins);
	*names = xcalloc(pins.n + 1, sizeof(char *));
	for (size_t i = 0; i < pins.n; i++)
		(*names)[i] = xstrdup(pins.v[i].name);
	*n = pins.n;
	pins_free(&pins);
	return 0;
}

int nix_pins_info(struct nix_pin_info **v, size_t *n, struct error *err)
{
	cleanup_free char *state = moat_state_dir(nix_state.feedback.home);
	cleanup_free char *pins_path = path_join(state, "pins");
	struct pins pins;
	if (pins_load(pins_path, &pins, err) < 0)
		return -1;
	report_pin_warnings(&pins);
	*v = xcalloc(pins.n ? pins.n : 1, sizeof(**v));
	*n = pins.n;
	for (size_t i = 0; i < pins.n; i++) {
		const struct pin *p = &pins.v[i];
		struct nix_pin_info *o = &(*v)[i];
		cleanup_free char *bin = path_join(p->store, "bin");
		cleanup_free char *manifest = path_join(p->store, MANIFEST_REL);
		*o = (struct nix_pin_info){
		    .name = xstrdup(p->name),
		    .flake = xstrdup(p->flake),
		    .attr = xstrdup(p->attr),
		    .rev = xstrdup(p->rev),
		    .store = xstrdup(p->store),
		    .stale = stale_flake(p),
		    .collected = !fs_is_dir(bin),
		    .package = fs_is_dir(bin) && !fs_exists(manifest),
		};
		if (strcmp(p->source, "-") != 0) {
			cleanup_free char *now = source_of(p->flake);
			o->changed = strcmp(now, p->source) != 0;
		}
	}
	pins_free(&pins);
	return 0;
}

void nix_pins_info_free(struct nix_pin_info *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].flake);
		free(v[i].attr);
		free(v[i].rev);
		free(v[i].store);
		free(v[i].stale);
	}
	free(v);
}

static void drop_pin(struct pins *pins, struct pin *p, size_t *dropped)
{
	cleanup_free char *link = out_link_for(p->name, p->attr);
	unlink(link);
	cleanup_free char *name = xstrdup(p->name);
	pins_drop(pins, name);
	(*dropped)++;
}

int nix_unpin(const char *const *names, size_t n, size_t *dropped, struct error *err)
{
	*dropped = 0;
	cleanup_free char *state = moat_state_dir(nix_state.feedback.home);
	cleanup_free char *pins_path = path_join(state, "pins");
	int lock = lock_pins(state, err);
	if (lock < 0)
		return -1;
	struct pins pins;
	int rc = pins_load(pins_path, &pins, err);
	struct strbuf missing = STRBUF_INIT;
	while (rc == 0 && !names && pins.n)
		drop_pin(&pins, &pins.v[0], dropped);
	for (size_t i = 0; rc == 0 && names && i < n; i++) {
		cleanup_free char *key = pin_key(names[i]);
		struct pin *p = pins_lookup(&pins, key);
		if (!p)
			p = pins_lookup(&pins, names[i]);
		if (p)
			drop_pin(&pins, p, dropped);
		else
			sb_addf(&missing, "%s'%s'", missing.len ? ", " : "", names[i]);
	}
	if (rc == 0 && *dropped)
		rc = pins_save(pins_path, &pins, err);
	if (rc == 0 && missing.len) {
		rc = error_set(err, "no pinned shell %s", missing.buf);
		error_hint(err, "'moat pins' lists the pins");
	}
	sb_release(&missing);
	pins_free(&pins);
	close(lock);
	return rc;
}
