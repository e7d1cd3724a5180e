#include "report/json.h"

#include <stdint.h>
#include <string.h>

#include "base/util.h"

void json_add_string(struct strbuf *out, const char *text, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)text;
	sb_addc(out, '"');
	for (size_t i = 0; i < len;) {
		size_t start = i;
		while (i < len && s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\')
			i++;
		sb_add(out, s + start, i - start);
		if (i == len)
			break;
		uint32_t cp = s[i];
		size_t n = s[i] < 0x80 ? 1 : utf8_char(s + i, len - i, &cp);
		if (n == 0) {
			sb_adds(out, "\\ufffd");
			i++;
			continue;
		}
		if (cp == '"' || cp == '\\') {
			sb_addc(out, '\\');
			sb_addc(out, (char)cp);
		} else if (cp == '\n') {
			sb_adds(out, "\\n");
		} else if (cp == '\t') {
			sb_adds(out, "\\t");
		} else if (cp < 0x20 || cp == 0x7f || invisible_code_point(cp)) {
			char esc[6] = {'\\',
			               'u',
			               digits[cp >> 12 & 0xf],
			               digits[cp >> 8 & 0xf],
			               digits[cp >> 4 & 0xf],
			               digits[cp & 0xf]};
			sb_add(out, esc, sizeof(esc));
		} else {
			sb_add(out, s + i, n);
		}
		i += n;
	}
	sb_addc(out, '"');
}

/* The separator and key before a value at the current level. */
static void member(struct json *j, const char *key)
{
	if (j->comma[j->depth])
		sb_addc(j->out, ',');
	j->comma[j->depth] = true;
	if (key) {
		json_add_string(j->out, key, strlen(key));
		sb_addc(j->out, ':');
	}
}

static void open_level(struct json *j, const char *key, char c)
{
	member(j, key);
	sb_addc(j->out, c);
	if (j->depth + 1 >= JSON_MAX_DEPTH)
		abort(); /* a moat bug: no document of ours nests this deep */
	j->comma[++j->depth] = false;
}

void json_begin_object(struct json *j, const char *key)
{
	open_level(j, key, '{');
}

void json_begin_array(struct json *j, const char *key)
{
	open_level(j, key, '[');
}

void json_end_object(struct json *j)
{
	j->depth--;
	sb_addc(j->out, '}');
}

void json_end_array(struct json *j)
{
	j->depth--;
	sb_addc(j->out, ']');
}

void json_string(struct json *j, const char *key, const char *value)
{
	member(j, key);
	if (value)
		json_add_string(j->out, value, strlen(value));
	else
		sb_adds(j->out, "null");
}

void json_int(struct json *j, const char *key, long long value)
{
	member(j, key);
	sb_addf(j->out, "%lld", value);
}

void json_bool(struct json *j, const char *key, bool value)
{
	member(j, key);
	sb_adds(j->out, value ? "true" : "false");
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	sb_adds(j->out, "null");
}
