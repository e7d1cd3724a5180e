/* Just enough JSON for nix's --json output: pick one string out of a
 * document by a dotted path. Pure (no I/O, no allocation beyond the result),
 * and fuzzed (tests/fuzz/fuzz_json.c): nix's output passes through here, and
 * a flake's own strings (descriptions, URLs) with it. */
#ifndef MOAT_SHELLS_JSON_H
#define MOAT_SHELLS_JSON_H

#include <stdbool.h>
#include <stddef.h>

/* The value at a dotted path ("locked.rev", "0.outputs.out": a number
 * selects an array element), when it is a string. Caller frees; NULL when
 * absent, not a string, or the text up to it is malformed. Escapes are
 * decoded; \u0000 and code points above U+007F become '?', so the result
 * never holds a NUL before its end. */
char *json_get_string(const char *json, size_t len, const char *path);

/* Whether text is one well-formed JSON value (objects, arrays, strings,
 * numbers, true/false/null; nesting up to 64 deep), with only white space
 * around it. */
bool json_valid(const char *json, size_t len);

#endif
