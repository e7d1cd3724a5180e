/* A JSON reader for nix's --json output: a cursor over the text that skips
 * what it does not need and decodes the one string asked for. Nothing is
 * built; depth is bounded, so hostile input costs time linear in its size. */
#include "shells/json.h"

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"

#define JSON_MAX_DEPTH 64

struct json {
	const char *p, *end;
};

static void json_ws(struct json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n'))
		j->p++;
}

static bool json_lit(struct json *j, char c)
{
	json_ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

static int hex_digit(char h)
{
	if (h >= '0' && h <= '9')
		return h - '0';
	if (h >= 'a' && h <= 'f')
		return h - 'a' + 10;
	if (h >= 'A' && h <= 'F')
		return h - 'A' + 10;
	return -1;
}

/* One escape after the backslash; the decoded character in *c. */
static bool json_escape(struct json *j, char *c)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	if (j->p >= j->end)
		return false;
	char e = *j->p++;
	const char *at = e ? strchr(from, e) : NULL;
	if (at) {
		*c = to[at - from];
		return true;
	}
	if (e != 'u' || j->end - j->p < 4)
		return false;
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		int d = hex_digit(*j->p++);
		if (d < 0)
			return false;
		v = v * 16 + (unsigned)d;
	}
	/* nix's output is ASCII where moat looks: anything else stands out. */
	*c = v > 0 && v < 0x80 ? (char)v : '?';
	return true;
}

/* A string at j->p; false when malformed. With out NULL it is only skipped. */
static bool json_string(struct json *j, struct strbuf *out)
{
	if (!json_lit(j, '"'))
		return false;
	while (j->p < j->end && *j->p != '"') {
		char c = *j->p++;
		if ((unsigned char)c < 0x20)
			return false;
		if (c == '\\' && !json_escape(j, &c))
			return false;
		if (out)
			sb_addc(out, c);
	}
	if (j->p >= j->end)
		return false;
	j->p++;
	return true;
}

static bool json_word(struct json *j, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0)
		return false;
	j->p += n;
	return true;
}

static bool json_digits(struct json *j)
{
	const char *start = j->p;
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > start;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool json_number(struct json *j)
{
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (!json_digits(j))
		return false;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (!json_digits(j))
			return false;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!json_digits(j))
			return false;
	}
	return true;
}

static bool json_skip(struct json *j, int depth)
{
	json_ws(j);
	if (j->p >= j->end || depth > JSON_MAX_DEPTH)
		return false;
	char c = *j->p;
	if (c == '"')
		return json_string(j, NULL);
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		j->p++;
		if (json_lit(j, close))
			return true;
		do {
			if (c == '{' && (!json_string(j, NULL) || !json_lit(j, ':')))
				return false;
			if (!json_skip(j, depth + 1))
				return false;
		} while (json_lit(j, ','));
		return json_lit(j, close);
	}
	if (c == 't')
		return json_word(j, "true");
	if (c == 'f')
		return json_word(j, "false");
	if (c == 'n')
		return json_word(j, "null");
	return json_number(j);
}

/* Move to the member named seg of the object (or the element numbered seg of
 * the array) at j->p. */
static bool json_descend(struct json *j, const char *seg, size_t seglen)
{
	if (json_lit(j, '[')) {
		char *endp;
		unsigned long want = strtoul(seg, &endp, 10);
		if (seglen == 0 || endp != seg + seglen || json_lit(j, ']'))
			return false;
		for (unsigned long i = 0;; i++) {
			if (i == want)
				return true;
			if (!json_skip(j, 0) || !json_lit(j, ','))
				return false;
		}
	}
	if (!json_lit(j, '{') || json_lit(j, '}'))
		return false;
	do {
		struct strbuf key = STRBUF_INIT;
		bool ok = json_string(j, &key) && json_lit(j, ':');
		bool match = ok && key.len == seglen && memcmp(key.buf, seg, seglen) == 0;
		sb_release(&key);
		if (!ok)
			return false;
		if (match)
			return true;
		if (!json_skip(j, 0))
			return false;
	} while (json_lit(j, ','));
	return false;
}

char *json_get_string(const char *text, size_t len, const char *path)
{
	struct json j = {text, text + len};
	for (const char *seg = path; *seg;) {
		size_t n = strcspn(seg, ".");
		if (!json_descend(&j, seg, n))
			return NULL;
		seg += n + (seg[n] == '.');
	}
	json_ws(&j);
	struct strbuf sb = STRBUF_INIT;
	if (j.p >= j.end || *j.p != '"' || !json_string(&j, &sb)) {
		sb_release(&sb);
		return NULL;
	}
	return sb_detach(&sb);
}

bool json_valid(const char *text, size_t len)
{
	struct json j = {text, text + len};
	if (!json_skip(&j, 0))
		return false;
	json_ws(&j);
	return j.p == j.end;
}
