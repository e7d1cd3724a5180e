/* The pure parsers for a shell's manifest and env file. */
#include <limits.h>
#include <string.h>

#include "base/envvars.h"
#include "base/path.h"
#include "base/strbuf.h"
#include "shells/shells.h"

const char *tool_name_refusal(const char *name)
{
	if (!*name)
		return "the name is empty";
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return "the name is '.' or '..'";
	if (strlen(name) > NAME_MAX)
		return "the name is too long";
	for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
		if (*c == '/')
			return "the name contains a slash";
		if (*c < 0x20 || *c == 0x7f)
			return "the name contains a control character";
	}
	return NULL;
}

void manifest_set(struct manifest *m, const char *name, const char *path)
{
	for (size_t i = 0; i < m->n; i++) {
		if (strcmp(m->entries[i].name, name) == 0) {
			free(m->entries[i].path);
			m->entries[i].path = xstrdup(path);
			return;
		}
	}
	m->entries = xrealloc_array(m->entries, m->n + 1, sizeof(*m->entries));
	m->entries[m->n++] = (struct manifest_entry){xstrdup(name), xstrdup(path)};
}

static int parse_manifest_line(const char *line, size_t len, const char *file, int lineno,
                               struct manifest *out, struct error *err)
{
	const char *tab = memchr(line, '\t', len);
	if (!tab)
		return error_set(err, "%s:%d: expected '<name><TAB>/path/to/binary'", file, lineno);
	cleanup_free char *name = xstrndup(line, (size_t)(tab - line));
	cleanup_free char *path = xstrndup(tab + 1, len - (size_t)(tab - line) - 1);
	const char *why = tool_name_refusal(name);
	if (why)
		return error_set(err, "%s:%d: bad tool name: %s", file, lineno, why);
	if (path[0] != '/')
		return error_set(err, "%s:%d: '%s' is not an absolute path", file, lineno, path);
	if (strlen(path) >= PATH_MAX)
		return error_set(err, "%s:%d: the path is longer than PATH_MAX", file, lineno);
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return error_set(err, "%s:%d: the path contains a control character", file,
			                 lineno);
	if (manifest_lookup(out, name))
		return error_set(err, "%s:%d: '%s' is listed twice", file, lineno, name);
	manifest_set(out, name, path);
	return 0;
}

int manifest_parse(const char *buf, size_t len, const char *file, struct manifest *out,
                   struct error *err)
{
	*out = (struct manifest){0};
	if (memchr(buf, '\0', len)) {
		error_set(err, "%s: contains a NUL byte", file);
		return -1;
	}
	int lineno = 0;
	for (const char *p = buf, *end = buf + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *next = p + n + (nl ? 1 : 0);
		lineno++;
		if (n && p[n - 1] == '\r')
			n--;
		if (n && p[0] != '#' && parse_manifest_line(p, n, file, lineno, out, err) < 0) {
			manifest_free(out);
			return -1;
		}
		p = next;
	}
	return 0;
}

const char *manifest_lookup(const struct manifest *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->entries[i].name, name) == 0)
			return m->entries[i].path;
	return NULL;
}

void manifest_free(struct manifest *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->entries[i].name);
		free(m->entries[i].path);
	}
	free(m->entries);
	*m = (struct manifest){0};
}

char *manifest_format(const struct manifest *m)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < m->n; i++)
		sb_addf(&sb, "%s\t%s\n", m->entries[i].name, m->entries[i].path);
	return sb_detach(&sb);
}

static bool valid_env_name(const char *s, size_t n)
{
	if (!n || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9')))
			return false;
	}
	return true;
}

static char *expand_root(const char *value, size_t n, const char *root)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n;) {
		if (n - i >= 12 && memcmp(value + i, "${MOAT_ROOT}", 12) == 0) {
			sb_adds(&sb, root);
			i += 12;
		} else if (n - i >= 10 && memcmp(value + i, "$MOAT_ROOT", 10) == 0 &&
		           !(n - i > 10 && valid_env_name(value + i + 10, 1))) {
			sb_adds(&sb, root);
			i += 10;
		} else {
			sb_addc(&sb, value[i++]);
		}
	}
	return sb_detach(&sb);
}

static const char *env_name_refusal(const char *name)
{
	if (strncmp(name, ENV_PREFIX, strlen(ENV_PREFIX)) == 0)
		return ENV_PREFIX " variables steer moat itself";
	if (strncmp(name, "LD_", 3) == 0)
		return "LD_ variables steer the dynamic loader";
	if (strcmp(name, "HOME") == 0)
		return "use MOAT_ENV_HOME, which is checked, to move HOME";
	if (strcmp(name, "TMPDIR") == 0)
		return "moat points TMPDIR at $MOAT_ROOT/.moat/tmp";
	return NULL;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* s[0..*n) without the blanks around it. */
static const char *trim(const char *s, size_t *n)
{
	while (*n && is_blank(*s))
		s++, (*n)--;
	while (*n && is_blank(s[*n - 1]))
		(*n)--;
	return s;
}

int envfile_parse_warn(const char *buf, size_t len, const char *file, const char *root,
                       struct env_change **out, size_t *n, struct strbuf *warn, struct error *err)
{
	*out = NULL;
	*n = 0;
	if (memchr(buf, '\0', len))
		return error_set(err, "%s: contains a NUL byte", file);
	int lineno = 0;
	for (const char *p = buf, *end = buf + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t linelen = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *next = p + linelen + (nl ? 1 : 0);
		lineno++;
		const char *line = trim(p, &linelen);
		p = next;
		if (linelen == 0 || line[0] == '#')
			continue;
		const char *eq = memchr(line, '=', linelen);
		size_t namelen = eq ? (size_t)(eq - line) : 0;
		const char *name = trim(line, &namelen);
		if (!eq || !valid_env_name(name, namelen)) {
			if (warn)
				sb_addf(warn, "%s:%d: expected KEY=VALUE; line skipped\n", file,
				        lineno);
			continue;
		}
		cleanup_free char *key = xstrndup(name, namelen);
		const char *why = env_name_refusal(key);
		if (why) {
			env_changes_free(*out, *n);
			*out = NULL, *n = 0;
			return error_set(err, "%s:%d: refusing to set %s: %s", file, lineno, key,
			                 why);
		}
		size_t vlen = linelen - (size_t)(eq + 1 - line);
		const char *value = trim(eq + 1, &vlen);
		*out = xrealloc_array(*out, *n + 1, sizeof(**out));
		(*out)[(*n)++] =
		    (struct env_change){steal_ptr(&key), expand_root(value, vlen, root)};
	}
	return 0;
}

int envfile_parse(const char *buf, size_t len, const char *file, const char *root,
                  struct env_change **out, size_t *n, struct error *err)
{
	return envfile_parse_warn(buf, len, file, root, out, n, NULL, err);
}

void env_changes_free(struct env_change *env, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(env[i].name);
		free(env[i].value);
	}
	free(env);
}
