/* config.zon: its schema, the questions the rest of moat asks of it, and
 * edits that keep the user's bytes. Pure: buffers in, structs and buffers out;
 * no I/O: context/settings.c reads the file. */
#ifndef MOAT_CONFIG_CONFIG_H
#define MOAT_CONFIG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"
#include "base/util.h"
#include "config/zon.h"
#include "profile/netpolicy.h"

/* .allow = .{ .{ .bin = "cargo", .paths = .{ "~/.cargo" }, .write = true }, ... } */
struct config_allow {
	char *bin;    /* a binary name, or "*" for every binary */
	char **paths; /* as written: "~" unexpanded */
	size_t npaths;
	bool write, exec;
	char **dirs; /* project roots the rule is limited to; none means everywhere */
	size_t ndirs;
	int line, col;
};

/* .env = .{ .{ .bin = "gh", .names = .{ "GH_TOKEN" } }, ... }: secrets handed
 * to a tool anyway (profile/secrets.h). */
struct config_env {
	char *bin;    /* a binary name, or "*" for every binary */
	char **names; /* names or patterns ('*') */
	size_t nnames;
	char **dirs; /* project roots the rule is limited to; none means everywhere */
	size_t ndirs;
	int line, col;
};

/* .net = .{ .{ .bin = "cc", .off = true }, .{ .bin = "psql", .connect = .{ 5432 } },
 *           .{ .bin = "npm", .hosts = .{ "registry.npmjs.org" } },
 *           .{ .bin = "vite", .listen = .{ 5173 }, .dirs = .{ "~/src/web" } } } */
struct config_net {
	char *bin; /* a binary name, or "*" for every binary */
	struct netpolicy policy;
	char **dirs; /* project roots the rule is limited to; none means everywhere */
	size_t ndirs;
	int line, col;
};

/* .links = .{ .{ .dir = "/home/you/src/a", .shells = .{ "rust" } }, ... } */
struct config_link {
	char *dir;
	char **shells;
	size_t nshells;
	int line, col;
};

/* .detect = .{ .{ .markers = .{ "Cargo.toml" }, .shells = .{ "rust" } }, ... } */
struct config_detect {
	char **markers;
	size_t nmarkers;
	char **shells;
	size_t nshells;
	int line, col;
};

/* Where an entry of a list of strings is, for messages about it. */
struct config_pos {
	int line, col;
};

/* .root: where a session's sandbox root is when moat run, moat shell or
 * moat profile start in a subdirectory of a git work tree. */
enum config_root {
	CONFIG_ROOT_GIT,  /* "git" (default): the top of the enclosing work tree */
	CONFIG_ROOT_HERE, /* "here": the current directory */
};

struct config {
	enum config_root root;
	/* .trace_hint = false: no "moat run --trace ..." line after a command
	 * that failed on a terminal. */
	bool no_trace_hint;
	char **jailbreak;
	size_t njailbreak;
	struct config_pos *jailbreak_pos; /* one per entry */
	char **default_shells;
	size_t ndefault;
	struct config_pos *default_pos; /* one per entry */
	char **confirm;
	size_t nconfirm;
	char **sockets; /* unix socket paths let through on purpose */
	size_t nsockets;
	struct config_link *links;
	size_t nlinks;
	struct config_detect *detect;
	size_t ndetect;
	struct config_allow *allow;
	size_t nallow;
	struct config_net *net;
	size_t nnet;
	/* .protect = .{ ".envrc" }: paths relative to every root, read-only in
	 * the sandbox as .git/hooks and .git/config are (context/protect.c). */
	char **protect;
	size_t nprotect;
	/* .unprotected = .{ "~/src/scratch" }: project roots (and what lies
	 * below them) where nothing is protected, not even git's files. */
	char **unprotected;
	size_t nunprotected;
	/* Secrets in the environment (profile/secrets.h): .env passes them
	 * to tools, .secrets adds names or patterns to the default set,
	 * .not_secrets takes them out of it ("*": none is a secret). */
	struct config_env *env;
	size_t nenv;
	char **secrets;
	size_t nsecrets;
	char **not_secrets;
	size_t nnot_secrets;
};

/* Parse and check a whole config file. An empty buffer (or one holding only
 * comments) is an empty config. Returns 0, or -1 with err->msg set to
 * "<filename>:<line>:<col>: <message>" (and sometimes err->hint); *out is
 * then empty, so config_free is always safe. */
int config_parse(const char *buf, size_t len, const char *filename, struct config *out,
                 struct error *err);

/* The schema check alone, for a tree from zon_parse (root may be NULL). */
int config_from_tree(const struct zon_node *root, const char *filename, struct config *out,
                     struct error *err);

void config_free(struct config *cfg);

/* Whether a and b name the same path once "~" is expanded against home
 * (NULL: no expansion) and both are normalized: "~/x" is "/home/you/x/". */
bool config_same_path(const char *a, const char *b, const char *home);

/* Whether rule is in force for binary bin (NULL: any binary, as in a session,
 * which unions every rule) in the project at root. A rule with dirs applies
 * only when root is one of them or lies beneath one ("~" expanded). */
bool config_allow_applies(const struct config_allow *rule, const char *bin, const char *root,
                          const char *home);

/* One path from a rule in force. */
struct config_grant {
	const char *bin; /* the rule's .bin, borrowed from the config */
	char *path;      /* "~" expanded against home; owned */
	bool write, exec;
	const struct config_allow *rule;
};

/* Every path of every rule in force for bin at root, in file order. Returns
 * the count; free *out with config_grants_free. */
size_t config_grants(const struct config *cfg, const char *bin, const char *root, const char *home,
                     struct config_grant **out);
void config_grants_free(struct config_grant *grants, size_t n);

/* Are protected paths kept read-only in the project at root, or did the
 * user opt out of it there (.unprotected)? */
bool config_protects(const struct config *cfg, const char *root, const char *home);

/* Whether an .env rule hands its names to bin (NULL: to every tool, so
 * only "*" rules) in the project at root: its .bin is "*" or bin, and root
 * lies under one of its .dirs when it has some. A session asks for "*" and
 * for the command it was started for, never for the union. */
bool config_env_applies(const struct config_env *rule, const char *bin, const char *root,
                        const char *home);

/* Checks whether dir/marker exists; lets config_detect_shells stay pure. */
typedef bool config_marker_fn(const char *dir, const char *marker, void *ctx);

enum config_shells_from {
	CONFIG_SHELLS_NONE,   /* no link and no detect rule matched */
	CONFIG_SHELLS_LINK,   /* a links entry for dir */
	CONFIG_SHELLS_DETECT, /* one or more detect rules */
};

/* The shells for the project at dir, without the default shells. A links
 * entry for dir wins; otherwise every detect rule whose markers all exist
 * adds its shells, in file order, each name once. *shells (free the array,
 * not the strings, which belong to cfg) is NULL when *n is 0. */
enum config_shells_from config_detect_shells(const struct config *cfg, const char *dir,
                                             const char *home, config_marker_fn *exists, void *ctx,
                                             const char ***shells, size_t *n);

/* The network policy in force for bin (NULL: a session) at root: the union
 * of the .net rules that apply (bin's own and "*"'s). A tool no rule names
 * is open, the default; so is a session unless a "*" rule applies, since
 * a session can run any program, and one no rule names is open. */
void config_net_policy(const struct config *cfg, const char *bin, const char *root,
                       const char *home, struct netpolicy *out);

/* Whether bin must ask before starting: listed in .confirm, or "*" is. */
bool config_confirms(const struct config *cfg, const char *bin);

/* Whether name is listed in .jailbreak (names, resolved later against PATH). */
bool config_jailbreaks(const struct config *cfg, const char *name);

/* Byte-preserving edits (edit.c). Each takes the current file (len 0 when
 * it does not exist), refuses one that config_parse rejects (with its
 * message in err), and replaces *out (STRBUF_INIT or a buffer to reuse) with
 * the whole new file, a copy of the input when nothing changed, or empties it
 * on error. Only the bytes that must change
 * do: comments, blank lines, order and formatting elsewhere are kept. home
 * expands "~" when comparing paths (NULL: compare as written). Rules with
 * non-empty dirs are never touched. Return 1 when the file changed, 0 when it
 * did not, -1 on error. */

/* Grant bin read access to path (stored as given: contract "~" first), plus
 * write and exec when asked. An unscoped rule for bin that already holds the
 * path is widened, never narrowed (a rule that also holds other paths gives
 * this one up to a new rule, so they are not widened with it). Returns 0
 * when the grant is already in force. */
int config_edit_allow(const char *buf, size_t len, const char *filename, const char *home,
                      const char *bin, const char *path, bool write, bool exec, struct strbuf *out,
                      struct error *err);

/* Remove path from bin's unscoped rules, and a rule whose last path it was.
 * Returns 0 when no such grant exists. */
int config_edit_unallow(const char *buf, size_t len, const char *filename, const char *home,
                        const char *bin, const char *path, struct strbuf *out, struct error *err);

/* Pass the variable name to bin (an unscoped .env rule for bin gets it, or
 * a new one). Returns 0 when it is passed already. */
int config_edit_env(const char *buf, size_t len, const char *filename, const char *bin,
                    const char *name, struct strbuf *out, struct error *err);

/* Take name out of bin's unscoped .env rules, and a rule whose last name it
 * was. Returns 0 when no such rule names it. */
int config_edit_unenv(const char *buf, size_t len, const char *filename, const char *bin,
                      const char *name, struct strbuf *out, struct error *err);

/* Point dir at shells, replacing an earlier links entry for dir (and dropping
 * any duplicates of it). Returns 0 when that exact entry is already there. */
int config_edit_link(const char *buf, size_t len, const char *filename, const char *home,
                     const char *dir, const char *const *shells, size_t nshells, struct strbuf *out,
                     struct error *err);

/* Make bin's unscoped .net rule say policy (one rule: the first is
 * rewritten, later ones removed); an empty policy (netpolicy_is_empty)
 * removes them all. Returns 0 when nothing changed. */
int config_edit_net(const char *buf, size_t len, const char *filename, const char *bin,
                    const struct netpolicy *policy, struct strbuf *out, struct error *err);

/* Remove every links entry for dir. Returns 0 when there is none. */
int config_edit_unlink(const char *buf, size_t len, const char *filename, const char *home,
                       const char *dir, struct strbuf *out, struct error *err);

#endif
