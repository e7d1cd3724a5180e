/* The editing machinery of config.zon, shared by edit.c's settings: a
 * session holds the file as edited so far and its parse; each step is a few
 * splices at positions the parser recorded, applied and parsed again.
 * Private to src/config. */
#ifndef MOAT_CONFIG_EDIT_DOC_H
#define MOAT_CONFIG_EDIT_DOC_H

#include "base/strbuf.h"
#include "config/config.h"
#include "config/zon.h"

#define NONE ((size_t)-1)

struct doc {
	struct zon_node *root; /* NULL for a file with no value yet */
	struct config cfg;
	const char *nl; /* the file's line break */
	char unit[9];   /* one level of its indentation */
	bool multiline; /* the top-level struct spreads over lines */
};

struct session {
	struct strbuf cur; /* the file as edited so far */
	struct doc d;
	const char *filename, *home;
	struct error *err;
	bool changed;
};

struct splice {
	size_t start, end;
	char *text;
};

/* A few splices in ascending order, applied together. */
struct edit {
	struct splice s[4];
	size_t n;
};

/* Add a splice to e, in ascending order. */
void edit_add(struct edit *e, size_t start, size_t end, char *text);
/* Start editing buf (len bytes) of filename; -1 with err when it cannot be read. */
int session_start(struct session *s, const char *buf, size_t len, const char *filename,
                  const char *home, struct error *err);
/* Apply e to the file as edited so far, and parse the result again. */
int session_apply(struct session *s, struct edit *e);
/* End the session: the edited file into out; 1 when it changed, 0 when not, -1 when rc was. */
int session_finish(struct session *s, struct strbuf *out, int rc);
/* Append text as a new item of container c (expand: an empty inline .{} becomes multiline). */
void session_append(const struct session *s, const struct zon_node *c, bool expand,
                    const char *text, struct edit *e);
/* The splices that remove item i of container c, into e. */
void session_remove_item(const struct session *s, const struct zon_node *c, size_t i,
                         struct edit *e);
/* Add entry to the top-level list key, making the list if needed. */
int session_add_to_list(struct session *s, const char *key, const char *entry);
/* Remove item i of the top-level list key. */
int session_remove_from_list(struct session *s, const char *key, size_t i);

#endif
