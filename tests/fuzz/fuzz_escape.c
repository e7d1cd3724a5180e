/* Fuzzes the two escaping functions that stand between hostile names
 * (paths, process names, argv[0] of sandboxed processes) and what moat
 * writes: visible_add() for the terminal, json_add_string() for JSON.
 * Whatever the bytes, the output must hold nothing a terminal acts on, and
 * must give the input back (JSON: with invalid UTF-8 as U+FFFD). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/util.h"
#include "report/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int hex(unsigned char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The output of visible_add: only printable ASCII and, in a UTF-8 locale,
 * well-formed UTF-8 that is no control; \xNN decodes back to the input. */
static void check_visible(const uint8_t *in, size_t size, bool utf8)
{
	struct strbuf sb = STRBUF_INIT;
	visible_add(&sb, (const char *)in, size, utf8);
	const unsigned char *s = (const unsigned char *)sb.buf;
	size_t n = sb.len, back = 0;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		if (s[i] == '\\') {
			if (i + 3 >= n || s[i + 1] != 'x' || hex(s[i + 2]) < 0 || hex(s[i + 3]) < 0)
				abort();
			if (back >= size || in[back] != (hex(s[i + 2]) << 4 | hex(s[i + 3])))
				abort();
			back++, i += 4;
		} else if (s[i] < 0x20 || s[i] == 0x7f) {
			abort();
		} else if (s[i] >= 0x80) {
			size_t k = utf8 ? utf8_char(s + i, n - i, &cp) : 0;
			if (!k || invisible_code_point(cp) || back + k > size ||
			    memcmp(in + back, s + i, k))
				abort();
			back += k, i += k;
		} else {
			if (back >= size || in[back] != s[i])
				abort();
			back++, i++;
		}
	}
	if (back != size)
		abort();
	sb_release(&sb);
}

/* The output of json_add_string: a JSON string that is valid UTF-8, holds
 * no raw control or invisible character, and decodes to the input with
 * each invalid byte as U+FFFD. */
static void check_json(const uint8_t *in, size_t size)
{
	struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT, got = STRBUF_INIT;
	json_add_string(&sb, (const char *)in, size);
	for (size_t i = 0; i < size;) {
		uint32_t cp;
		size_t k = utf8_char(in + i, size - i, &cp);
		sb_add(&want, k ? (const char *)in + i : "\xef\xbf\xbd", k ? k : 3);
		i += k ? k : 1;
	}
	const unsigned char *s = (const unsigned char *)sb.buf;
	size_t n = sb.len;
	if (n < 2 || s[0] != '"' || s[n - 1] != '"')
		abort();
	for (size_t i = 1; i < n - 1;) {
		uint32_t cp;
		if (s[i] == '"' || s[i] < 0x20 || s[i] == 0x7f)
			abort();
		if (s[i] == '\\') {
			char c = (char)s[i + 1];
			if (c == '"' || c == '\\')
				sb_addc(&got, c), i += 2;
			else if (c == 'n')
				sb_addc(&got, '\n'), i += 2;
			else if (c == 't')
				sb_addc(&got, '\t'), i += 2;
			else if (c == 'u' && i + 5 < n) {
				uint32_t u = 0;
				for (int d = 2; d < 6; d++) {
					if (hex(s[i + d]) < 0)
						abort();
					u = u << 4 | (uint32_t)hex(s[i + d]);
				}
				if (u >= 0xd800 && u <= 0xdfff)
					abort(); /* never written: no surrogate pairs needed */
				char enc[4];
				size_t len = u < 0x80 ? 1 : u < 0x800 ? 2 : 3;
				if (len == 1)
					enc[0] = (char)u;
				else if (len == 2)
					enc[0] = (char)(0xc0 | u >> 6),
					enc[1] = (char)(0x80 | (u & 0x3f));
				else
					enc[0] = (char)(0xe0 | u >> 12),
					enc[1] = (char)(0x80 | (u >> 6 & 0x3f)),
					enc[2] = (char)(0x80 | (u & 0x3f));
				sb_add(&got, enc, len);
				i += 6;
			} else {
				abort();
			}
			continue;
		}
		size_t k = s[i] < 0x80 ? 1 : utf8_char(s + i, n - 1 - i, &cp);
		if (!k || (s[i] >= 0x80 && invisible_code_point(cp)))
			abort();
		sb_add(&got, s + i, k);
		i += k;
	}
	if (got.len != want.len || memcmp(sb_str(&got), sb_str(&want), got.len) != 0)
		abort();
	sb_release(&sb);
	sb_release(&want);
	sb_release(&got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_visible(data, size, true);
	check_visible(data, size, false);
	check_json(data, size);
	return 0;
}
