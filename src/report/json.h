/* JSON output for machines (`moat profile --json`, `moat run --trace
 * --json`; docs/json.md): one escaping function for strings, fuzzed since
 * the strings come from sandboxed processes, and a small writer that keeps
 * commas and nesting right. Output is compact, on one line. Pure. */
#ifndef MOAT_REPORT_JSON_H
#define MOAT_REPORT_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

/* Append s (len bytes) as a JSON string, quotes included. '"', '\', every
 * control character (C0, DEL, C1) and the bidirectional controls and line
 * separators are \u escapes, so the document is safe to show on a terminal
 * too; a byte that is not part of well-formed UTF-8 becomes U+FFFD, so the
 * output is always valid UTF-8 (and such a string is not the exact name). */
void json_add_string(struct strbuf *out, const char *s, size_t len);

#define JSON_MAX_DEPTH 16

struct json {
	struct strbuf *out;
	int depth;
	bool comma[JSON_MAX_DEPTH]; /* a value was written at this level */
};

/* Each takes the member's key inside an object, NULL inside an array or at
 * the top. A NULL string value is written as null. */
void json_begin_object(struct json *j, const char *key);
void json_end_object(struct json *j);
void json_begin_array(struct json *j, const char *key);
void json_end_array(struct json *j);
void json_string(struct json *j, const char *key, const char *value);
void json_int(struct json *j, const char *key, long long value);
void json_bool(struct json *j, const char *key, bool value);
void json_null(struct json *j, const char *key);

#endif
