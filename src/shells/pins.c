/* The lock file of nix shells: $XDG_STATE_HOME/moat/pins.
 *
 *   # comment
 *   <name> TAB <flake> TAB <attr> TAB <locked url or -> TAB <rev> TAB <store path>
 *          [TAB <source fingerprint or ->]
 *
 * One pin per line. The seventh field (since the fingerprint of local
 * flakes) is optional when read, so a file from before it still loads. The file is rewritten whole
 * through fs_write_atomic, so a crash leaves the old or the new file; a line damaged anyway (by
 * hand, by a disk) is skipped with a warning and the shell is simply resolved again. */
#include <errno.h>
#include <string.h>

#include "base/fs.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "base/xdg.h"
#include "shells/nix.h"

#define PINS_MAX   (4u << 20)
#define PIN_FIELDS 7
#define PIN_NEEDED 6

static const char header[] =
    "# moat pins: the nix shells moat resolved, and the store paths it uses\n"
    "# name\tflake\tattr\tlocked\trev\tstore\n";

char *moat_state_dir(const char *home)
{
	return xdg_moat_dir(XDG_STATE, home ? home : "/nonexistent");
}

static char **pin_field(struct pin *pin, int i)
{
	char **f[PIN_FIELDS] = {&pin->name, &pin->flake, &pin->attr,  &pin->locked,
	                        &pin->rev,  &pin->store, &pin->source};
	return f[i];
}

static void pin_free(struct pin *pin)
{
	for (int i = 0; i < PIN_FIELDS; i++)
		free(*pin_field(pin, i));
}

/* Why a field cannot be stored, or NULL. */
static const char *field_refusal(const char *s)
{
	if (!*s)
		return "it is empty";
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return "it contains a control character";
	return NULL;
}

static const char *pin_refusal(const struct pin *pin, const char **which)
{
	static const char *const names[PIN_FIELDS] = {
	    "name", "flake", "attribute", "locked url", "revision", "store path", "source"};
	for (int i = 0; i < PIN_FIELDS; i++) {
		const char *why = field_refusal(*pin_field((struct pin *)pin, i));
		if (why) {
			*which = names[i];
			return why;
		}
	}
	if (pin->store[0] != '/') {
		*which = names[5];
		return "it is not an absolute path";
	}
	return NULL;
}

static void add_warning(struct pins *p, char *msg)
{
	p->warnings = xrealloc_array(p->warnings, p->nwarnings + 1, sizeof(char *));
	p->warnings[p->nwarnings++] = msg;
}

static void parse_line(struct pins *p, char *line, const char *file, int lineno)
{
	struct pin pin = {0};
	char *s = line;
	int n = 0;
	for (; n < PIN_FIELDS && s; n++) {
		char *tab = strchr(s, '\t');
		*pin_field(&pin, n) = tab ? xstrndup(s, (size_t)(tab - s)) : xstrdup(s);
		s = tab ? tab + 1 : NULL;
	}
	if (!pin.source)
		pin.source = xstrdup("-");
	const char *which = NULL, *why = NULL;
	if (n < PIN_NEEDED || s)
		why = "it does not have 6 or 7 tab-separated fields";
	else
		why = pin_refusal(&pin, &which);
	if (!why && pins_lookup(p, pin.name))
		why = "it pins a name pinned above";
	if (why) {
		if (which)
			add_warning(p, xasprintf("%s:%d: damaged pin skipped: the %s is bad: %s",
			                         file, lineno, which, why));
		else
			add_warning(p,
			            xasprintf("%s:%d: damaged pin skipped: %s", file, lineno, why));
		pin_free(&pin);
		return;
	}
	p->v = xrealloc_array(p->v, p->n + 1, sizeof(*p->v));
	p->v[p->n++] = pin;
}

void pins_parse(const char *buf, size_t len, const char *file, struct pins *p)
{
	*p = (struct pins){0};
	if (memchr(buf, '\0', len))
		add_warning(p, xasprintf("%s: a NUL byte ends the file early", file));
	cleanup_free char *copy = xstrndup(buf, len);
	int lineno = 0;
	for (char *line = copy, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		lineno++;
		size_t l = strlen(line);
		if (l && line[l - 1] == '\r')
			line[--l] = '\0';
		if (l == 0 || line[0] == '#')
			continue;
		parse_line(p, line, file, lineno);
	}
}

int pins_load(const char *path, struct pins *p, struct error *err)
{
	cleanup_free char *buf = NULL;
	size_t len;
	*p = (struct pins){0};
	if (fs_read_file(path, PINS_MAX, &buf, &len, err) < 0)
		return errno == ENOENT ? 0 : -1;
	pins_parse(buf, len, path, p);
	return 0;
}

char *pins_format(const struct pins *p)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, header);
	for (size_t i = 0; i < p->n; i++) {
		struct pin *pin = &p->v[i];
		for (int f = 0; f < PIN_FIELDS; f++)
			sb_addf(&sb, "%s%c", *pin_field(pin, f), f + 1 < PIN_FIELDS ? '\t' : '\n');
	}
	return sb_detach(&sb);
}

int pins_save(const char *path, const struct pins *p, struct error *err)
{
	cleanup_free char *dir = path_dirname(path);
	if (fs_mkdir_p(dir, 0700, err) < 0)
		return -1;
	cleanup_free char *text = pins_format(p);
	return fs_write_atomic(path, text, strlen(text), 0600, err);
}

struct pin *pins_lookup(const struct pins *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->v[i].name, name) == 0)
			return &p->v[i];
	return NULL;
}

int pins_set(struct pins *p, const struct pin *pin, struct error *err)
{
	struct pin copy;
	for (int i = 0; i < PIN_FIELDS; i++) {
		const char *v = *pin_field((struct pin *)pin, i);
		*pin_field(&copy, i) = xstrdup(v ? v : "-");
	}
	const char *which;
	const char *why = pin_refusal(&copy, &which);
	if (why) {
		error_set(err, "cannot pin '%s': the %s is bad: %s", pin->name, which, why);
		pin_free(&copy);
		return -1;
	}
	struct pin *old = pins_lookup(p, pin->name);
	if (old) {
		pin_free(old);
		*old = copy;
		return 0;
	}
	p->v = xrealloc_array(p->v, p->n + 1, sizeof(*p->v));
	p->v[p->n++] = copy;
	return 0;
}

void pins_free(struct pins *p)
{
	for (size_t i = 0; i < p->n; i++)
		pin_free(&p->v[i]);
	free(p->v);
	for (size_t i = 0; i < p->nwarnings; i++)
		free(p->warnings[i]);
	free(p->warnings);
	*p = (struct pins){0};
}

bool pins_drop(struct pins *p, const char *name)
{
	struct pin *pin = pins_lookup(p, name);
	if (!pin)
		return false;
	pin_free(pin);
	size_t i = (size_t)(pin - p->v);
	memmove(pin, pin + 1, (p->n - i - 1) * sizeof(*pin));
	p->n--;
	return true;
}
