#include "base/path.h"

#include <string.h>

#include "base/strbuf.h"
#include "base/util.h"

bool path_is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Without printf: every session's start joins some 70 paths, and musl's
 * printf costs over 1,000 instructions a call. */
char *path_join(const char *a, const char *b)
{
	while (*b == '/')
		b++;
	size_t la = strlen(a), lb = strlen(b);
	bool slash = la && a[la - 1] == '/';
	char *out = xmalloc(la + !slash + lb + 1);
	memcpy(out, a, la);
	if (!slash)
		out[la++] = '/';
	memcpy(out + la, b, lb + 1);
	return out;
}

char *path_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	while (slash > path && slash[-1] == '/')
		slash--;
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

const char *path_basename(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

bool path_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

bool path_has_dotdot(const char *p)
{
	for (const char *c = p; (c = strstr(c, "..")); c += 2) {
		bool starts = c == p || c[-1] == '/';
		bool ends = c[2] == '\0' || c[2] == '/';
		if (starts && ends)
			return true;
	}
	return false;
}

const char *path_refusal(const char *path)
{
	if (path[0] != '/')
		return "it is not an absolute path";
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if (*c < 0x20 || *c == 0x7f)
			return "it contains a control character";
		if (*c == '"' || *c == '\'' || *c == '`')
			return "it contains a quote";
		if (*c == '\\')
			return "it contains a backslash";
	}
	if (path_has_dotdot(path))
		return "it contains a '..' component";
	return NULL;
}

char *path_expand_tilde(const char *path, const char *home)
{
	if (path[0] == '~' && (path[1] == '\0' || path[1] == '/'))
		return path[1] ? path_join(home, path + 2) : xstrdup(home);
	return xstrdup(path);
}

char *path_contract_tilde(const char *path, const char *home)
{
	size_t n = home ? strlen(home) : 0;
	while (n > 1 && home[n - 1] == '/')
		n--;
	if (home && home[0] == '/' && n > 1 && path_is_under(path, home)) {
		const char *rest = path + n;
		while (*rest == '/')
			rest++;
		return *rest ? xasprintf("~/%s", rest) : xstrdup("~");
	}
	return xstrdup(path);
}

char *path_normalize(const char *path)
{
	struct strbuf out = STRBUF_INIT;
	const char *p = path;
	while (*p) {
		while (*p == '/')
			p++;
		const char *end = p + strcspn(p, "/");
		size_t len = (size_t)(end - p);
		if (len && !(len == 1 && p[0] == '.')) {
			sb_addc(&out, '/');
			sb_add(&out, p, len);
		}
		p = end;
	}
	if (!out.len)
		sb_addc(&out, '/');
	return sb_detach(&out);
}

const char *path_home_refusal(const char *path, const char *home)
{
	if (!path_is_under(home, path))
		return NULL;
	return path_is_under(path, home) ? "it is your home directory"
	                                 : "it contains your home directory";
}

char **path_list_split(const char *list, size_t *n)
{
	size_t count = 1;
	for (const char *c = list; *c; c++)
		count += *c == ':';
	char **v = xcalloc(count + 1, sizeof(char *));
	for (size_t i = 0; i < count; i++) {
		size_t len = strcspn(list, ":");
		v[i] = xstrndup(list, len);
		list += len + (list[len] == ':');
	}
	if (n)
		*n = count;
	return v;
}

void path_list_free(char **entries)
{
	for (char **e = entries; e && *e; e++)
		free(*e);
	free(entries);
}

bool path_is_proc_pid(const char *path)
{
	if (strncmp(path, "/proc/", 6) != 0)
		return false;
	const char *c = path + 6;
	if (*c < '0' || *c > '9')
		return false;
	while (*c >= '0' && *c <= '9')
		c++;
	return *c == '/' || *c == '\0';
}
