/* Edits of config.zon that keep the user's file: every change is a splice
 * of the original bytes at positions the parser recorded, so comments, blank
 * lines, order and odd formatting elsewhere survive byte for byte.
 *
 * An edit is a sequence of small steps (set one field, add one item, remove
 * one item). After each step the buffer is parsed and checked again, so every
 * step sees exact positions and a step that would leave a file moat cannot
 * read is caught here, not by the next command. */
#include <string.h>

#include "base/path.h"
#include "config/edit_doc.h"

void edit_add(struct edit *e, size_t start, size_t end, char *text)
{
	if (e->n == ARRAY_LEN(e->s) || (e->n && start < e->s[e->n - 1].end))
		abort(); /* a bug in this file, not a property of the input */
	e->s[e->n++] = (struct splice){start, end, text};
}

static void edit_release(struct edit *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->s[i].text);
	e->n = 0;
}

/* Layout of the text around a position. */

static size_t line_start(const char *buf, size_t pos)
{
	while (pos > 0 && buf[pos - 1] != '\n')
		pos--;
	return pos;
}

static bool only_space_before(const char *buf, size_t pos)
{
	while (pos > 0 && (buf[pos - 1] == ' ' || buf[pos - 1] == '\t'))
		pos--;
	return pos == 0 || buf[pos - 1] == '\n';
}

/* Spaces and tabs starting the line that holds pos. */
static char *indent_of_line(const char *buf, size_t pos)
{
	size_t ls = line_start(buf, pos), i = ls;
	while (buf[i] == ' ' || buf[i] == '\t')
		i++;
	return xstrndup(buf + ls, i - ls);
}

/* Where the line break is when only blanks and a comment follow pos on its
 * line (the '\r' of "\r\n", or the end of the buffer), else NONE. */
static size_t end_of_line_after(const char *buf, size_t len, size_t pos)
{
	while (pos < len && (buf[pos] == ' ' || buf[pos] == '\t'))
		pos++;
	if (pos + 1 < len && buf[pos] == '/' && buf[pos + 1] == '/')
		while (pos < len && buf[pos] != '\n')
			pos++;
	if (pos > 0 && pos < len && buf[pos] == '\n' && buf[pos - 1] == '\r')
		return pos - 1;
	if (pos < len && buf[pos] == '\r' && pos + 1 < len && buf[pos + 1] == '\n')
		return pos;
	return pos == len || buf[pos] == '\n' ? pos : NONE;
}

static size_t skip_line_break(const char *buf, size_t len, size_t pos)
{
	if (pos < len && buf[pos] == '\r')
		pos++;
	if (pos < len && buf[pos] == '\n')
		pos++;
	return pos;
}

/* The '{' of a container: after its '.', past blanks and comments. */
static size_t open_brace(const char *buf, const struct zon_node *c)
{
	size_t i = c->start + 1;
	while (buf[i] != '{') {
		if (buf[i] == '/')
			while (buf[i] != '\n')
				i++;
		i++;
	}
	return i;
}

static void detect_style(struct doc *d, const char *buf, size_t len)
{
	const char *lf = memchr(buf, '\n', len);
	d->nl = lf && lf > buf && lf[-1] == '\r' ? "\r\n" : "\n";
	strcpy(d->unit, "    ");
	/* The first indented line sets the unit: a tab, or its run of spaces. */
	for (size_t ls = 0; ls < len;) {
		size_t i = ls;
		while (i < len && buf[i] == ' ' && i - ls < 8)
			i++;
		if (i < len && buf[ls] == '\t') {
			strcpy(d->unit, "\t");
			return;
		}
		if (i > ls && i < len && buf[i] != '\n' && buf[i] != '\r' && buf[i] != ' ' &&
		    buf[i] != '\t') {
			memcpy(d->unit, buf + ls, i - ls);
			d->unit[i - ls] = '\0';
			return;
		}
		const char *next = memchr(buf + ls, '\n', len - ls);
		if (!next)
			break;
		ls = (size_t)(next - buf) + 1;
	}
}

static int doc_load(struct doc *d, const struct strbuf *sb, const char *filename, struct error *err)
{
	const char *buf = sb_str(sb);
	struct zon_diag diag;
	memset(d, 0, sizeof(*d));
	if (zon_parse(buf, sb->len, &d->root, &diag) < 0)
		return error_set(err, "%s:%d:%d: %s", filename, diag.line, diag.col, diag.msg);
	if (config_from_tree(d->root, filename, &d->cfg, err) < 0) {
		zon_free(d->root);
		d->root = NULL;
		return -1;
	}
	detect_style(d, buf, sb->len);
	d->multiline = d->root && only_space_before(buf, d->root->end - 1);
	return 0;
}

static void doc_free(struct doc *d)
{
	zon_free(d->root);
	config_free(&d->cfg);
	memset(d, 0, sizeof(*d));
}

int session_start(struct session *s, const char *buf, size_t len, const char *filename,
                  const char *home, struct error *err)
{
	memset(s, 0, sizeof(*s));
	s->filename = filename;
	s->home = home;
	s->err = err;
	sb_add(&s->cur, buf, len);
	if (doc_load(&s->d, &s->cur, filename, err) < 0) {
		sb_release(&s->cur);
		return -1;
	}
	return 0;
}

/* Apply e to the current buffer and load the result. */
int session_apply(struct session *s, struct edit *e)
{
	struct strbuf next = STRBUF_INIT;
	size_t at = 0;
	for (size_t i = 0; i < e->n; i++) {
		sb_add(&next, s->cur.buf + at, e->s[i].start - at);
		sb_adds(&next, e->s[i].text);
		at = e->s[i].end;
	}
	sb_add(&next, s->cur.buf + at, s->cur.len - at);
	edit_release(e);
	doc_free(&s->d);
	sb_release(&s->cur);
	s->cur = next;
	s->changed = true;
	if (doc_load(&s->d, &s->cur, s->filename, s->err) < 0) {
		char why[sizeof(s->err->msg)];
		memcpy(why, s->err->msg, sizeof(why));
		return error_set(s->err, "internal error: editing %s would leave it unreadable: %s",
		                 s->filename, why);
	}
	return 0;
}

int session_finish(struct session *s, struct strbuf *out, int rc)
{
	doc_free(&s->d);
	if (rc < 0) {
		sb_release(&s->cur);
		return -1;
	}
	*out = s->cur;
	if (!out->buf)
		sb_add(out, "", 0);
	return s->changed ? 1 : 0;
}

/* Containers: appending and removing items. */

struct layout {
	bool multiline;
	char *indent; /* of a new item, when multiline */
};

/* How a new item fits in c: on its own line, indented like the last item,
 * when c closes on a line of its own; else after the last item on its line.
 * expand turns an empty inline ".{}" into a multiline one. */
static void layout_for(const struct session *s, const struct zon_node *c, bool expand,
                       struct layout *l)
{
	const char *buf = s->cur.buf;
	size_t rb = c->end - 1;
	bool closing_alone = only_space_before(buf, rb);
	l->multiline = closing_alone || (c->nitems == 0 && expand);
	l->indent = NULL;
	if (!l->multiline)
		return;
	char *base;
	if (c->nitems && only_space_before(buf, c->items[c->nitems - 1].item_start)) {
		l->indent = indent_of_line(buf, c->items[c->nitems - 1].item_start);
		return;
	}
	base = indent_of_line(buf, closing_alone ? rb : c->start);
	l->indent = xasprintf("%s%s", base, s->d.unit);
	free(base);
}

static void append_item(const struct session *s, const struct zon_node *c, const struct layout *l,
                        const char *text, struct edit *e)
{
	const char *buf = s->cur.buf, *nl = s->d.nl;
	size_t len = s->cur.len, rb = c->end - 1;
	if (c->nitems == 0) {
		size_t lb = open_brace(buf, c);
		if (!l->multiline) {
			edit_add(e, lb + 1, rb, xasprintf(" %s ", text));
		} else if (only_space_before(buf, rb)) {
			size_t ls = line_start(buf, rb);
			edit_add(e, ls, ls, xasprintf("%s%s,%s", l->indent, text, nl));
		} else {
			char *base = indent_of_line(buf, c->start);
			edit_add(e, lb + 1, rb,
			         xasprintf("%s%s%s,%s%s", nl, l->indent, text, nl, base));
			free(base);
		}
		return;
	}
	const struct zon_node *last = &c->items[c->nitems - 1];
	/* A \\ string runs to the end of its line: nothing can follow it there. */
	bool runs_to_eol = buf[last->start] == '\\';
	if (!l->multiline) {
		/* c closes on the line of the last item's comma, which a \\ string has. */
		if (runs_to_eol && last->comma != NONE)
			edit_add(e, last->comma + 1, last->comma + 1, xasprintf(" %s,", text));
		else
			edit_add(e, last->end, last->end, xasprintf(", %s", text));
		return;
	}
	size_t after = last->comma != NONE ? last->comma + 1 : last->end;
	size_t eol = end_of_line_after(buf, len, after);
	if (eol == NONE)
		abort(); /* c closes on a later line, so only blanks and comments follow */
	if (last->comma == NONE && runs_to_eol)
		edit_add(e, eol, eol,
		         xasprintf("%s%s,%s%s%s,", nl, l->indent, nl, l->indent, text));
	else if (last->comma == NONE)
		edit_add(e, last->end, last->end, xstrdup(","));
	if (last->comma != NONE || !runs_to_eol)
		edit_add(e, eol, eol, xasprintf("%s%s%s,", nl, l->indent, text));
}

void session_append(const struct session *s, const struct zon_node *c, bool expand,
                    const char *text, struct edit *e)
{
	struct layout l;
	layout_for(s, c, expand, &l);
	append_item(s, c, &l, text, e);
	free(l.indent);
}

/* Remove item i of c: its whole line when it has the line to itself (with
 * a comment trailing it there), else just the item and one comma. */
void session_remove_item(const struct session *s, const struct zon_node *c, size_t i,
                         struct edit *e)
{
	const char *buf = s->cur.buf;
	size_t len = s->cur.len;
	const struct zon_node *it = &c->items[i];
	size_t a = it->item_start, b = it->end;
	size_t after = it->comma != NONE ? it->comma + 1 : b;
	if (only_space_before(buf, a)) {
		size_t eol = end_of_line_after(buf, len, after);
		if (eol != NONE) {
			edit_add(e, line_start(buf, a), skip_line_break(buf, len, eol),
			         xstrdup(""));
			return;
		}
	}
	if (it->comma != NONE) {
		while (after < len && (buf[after] == ' ' || buf[after] == '\t'))
			after++;
		edit_add(e, a, after, xstrdup(""));
		return;
	}
	if (i > 0 && c->items[i - 1].comma != NONE) {
		size_t pc = c->items[i - 1].comma, j = pc + 1;
		while (j < a && (buf[j] == ' ' || buf[j] == '\t'))
			j++;
		edit_add(e, j == a ? pc : a, b, xstrdup(""));
		return;
	}
	while (b < len && (buf[b] == ' ' || buf[b] == '\t'))
		b++;
	edit_add(e, a, b, xstrdup(""));
}

/* Top-level lists. */

/* Add entry to the top-level list key, creating the list (and the whole
 * file when it has no value yet) as needed. */
int session_add_to_list(struct session *s, const char *key, const char *entry)
{
	struct edit e = {0};
	const char *nl = s->d.nl, *u = s->d.unit;
	if (!s->d.root) {
		const char *buf = s->cur.buf;
		size_t len = s->cur.len;
		bool needs_nl = len && buf[len - 1] != '\n';
		edit_add(&e, len, len,
		         xasprintf("%s.{%s%s.%s = .{%s%s%s%s,%s%s},%s}%s", needs_nl ? nl : "", nl,
		                   u, key, nl, u, u, entry, nl, u, nl, nl));
		return session_apply(s, &e);
	}
	const struct zon_node *list = zon_field(s->d.root, key);
	if (list) {
		session_append(s, list, s->d.multiline, entry, &e);
		return session_apply(s, &e);
	}
	struct layout l;
	layout_for(s, s->d.root, true, &l);
	char *field = l.multiline ? xasprintf(".%s = .{%s%s%s%s,%s%s}", key, nl, l.indent, u, entry,
	                                      nl, l.indent)
	                          : xasprintf(".%s = .{ %s }", key, entry);
	append_item(s, s->d.root, &l, field, &e);
	free(field);
	free(l.indent);
	return session_apply(s, &e);
}

int session_remove_from_list(struct session *s, const char *key, size_t i)
{
	struct edit e = {0};
	session_remove_item(s, zon_field(s->d.root, key), i, &e);
	return session_apply(s, &e);
}
