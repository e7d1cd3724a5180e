/* The profile: what a sandboxed process may touch, as pure data.
 *
 * Built from facts the context gathered (root, home, terminals, grants) with
 * no system calls, then rendered by a backend: Landlock on Linux, SBPL on
 * macOS. Everything a user can see about a sandbox (`moat profile`, the
 * confirm prompt) is printed from this one structure, so what is shown is
 * what is enforced. */
#ifndef MOAT_PROFILE_PROFILE_H
#define MOAT_PROFILE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"
#include "profile/netpolicy.h"

/* Access levels, as bits. A backend maps each to its own rights. */
enum access {
	ACCESS_READ = 1u << 0,    /* read files, list directories */
	ACCESS_WRITE = 1u << 1,   /* create, modify, truncate, remove, rename, link */
	ACCESS_EXEC = 1u << 2,    /* execute and map executable */
	ACCESS_IOCTL = 1u << 3,   /* ioctl on devices (terminals) */
	ACCESS_CONNECT = 1u << 4, /* connect to a pathname unix socket */
};

#define ACCESS_RW  (ACCESS_READ | ACCESS_WRITE)
#define ACCESS_RX  (ACCESS_READ | ACCESS_EXEC)
#define ACCESS_ALL (ACCESS_READ | ACCESS_WRITE | ACCESS_EXEC)

/* Why a rule exists; printed by `moat profile` and the confirm prompt. */
enum rule_origin {
	ORIGIN_ROOT,     /* the project root */
	ORIGIN_SYSTEM,   /* system directories */
	ORIGIN_DEVICE,   /* null, zero, random devices */
	ORIGIN_TERMINAL, /* the controlling terminal */
	ORIGIN_ETC_LINK, /* target of an /etc symlink needed for DNS, TLS, time */
	ORIGIN_GRANT,    /* `moat allow` */
	ORIGIN_SOCKET,   /* a unix socket let through on purpose */
	ORIGIN_SHELL,    /* a shell directory and moat-wrapper, so wrapped tools run */
	ORIGIN_PRIVATE, /* the session's own /tmp, /var/tmp, /dev/shm, never the host's (isolate) */
	ORIGIN_PROTECTED, /* in the root, but read-only: .git/hooks, .git/config, .protect */
	ORIGIN_GIT,       /* a linked git work tree's git directory outside the root */
	ORIGIN_PINNED,    /* in the root, writable, but cannot be moved or replaced: .git */
};

/* How a path in a writable place is kept from sandboxed code, because
 * something outside the sandbox later runs or trusts it (profile_protect). */
enum protect_kind {
	PROTECT_NONE,      /* not protected: every other rule */
	PROTECT_READ_ONLY, /* bound read-only onto itself (ORIGIN_PROTECTED) */
	PROTECT_MAKE_DIR,  /* the same, made as an empty directory when absent */
	PROTECT_MAKE_FILE, /* the same, made as an empty file when absent */
	PROTECT_PIN,       /* bound onto itself, writable: it cannot be renamed, removed or
	                    * replaced, so what was protected below it stays (ORIGIN_PINNED) */
};

/* Whose system paths the profile is built for. macOS's <mach-o/loader.h>
 * defines a PLATFORM_MACOS macro too: a file including it (through
 * <mach-o/dyld.h>, say) must not include this header; the Darwin build
 * (`make darwin`) catches that. */
enum platform { PLATFORM_LINUX, PLATFORM_MACOS };

struct rule {
	char *path;      /* absolute, canonical */
	unsigned access; /* enum access bits */
	enum rule_origin origin;
	char *bin;                 /* for grants: the binary the grant named ("*" for all) */
	enum protect_kind protect; /* ORIGIN_PROTECTED and ORIGIN_PINNED rules */
	/* held: fd is path as the context resolved it (a grant's O_PATH
	 * descriptor, borrowed from the context), so the backend rules on what
	 * was checked with no second lookup. A zeroed rule holds nothing. */
	bool held;
	int fd;
};

/* Names, owned. */
struct name_list {
	char **v;
	size_t n;
};

void name_list_add(struct name_list *l, const char *name, size_t len);
void name_list_free(struct name_list *l);

/* A variable to set (value) or remove (value == NULL) before exec. */
struct env_change {
	char *name;
	char *value;
};

struct profile {
	enum platform platform;
	char *root; /* canonical project root */
	struct rule *rules;
	size_t nrules;
	/* profile_add_rule's index of rules by path (open addressing: rule
	 * index + 1, 0 for a free slot), so 1,000 grants are not compared
	 * with each other pairwise. */
	size_t *rule_slots;
	size_t nslots;
	struct env_change *env;
	size_t nenv;
	char **jailbreaks; /* absolute paths of binaries that run unsandboxed */
	size_t njailbreaks;
	/* What the tool may reach over the network (config.zon's .net, or
	 * `--net`); open unless the user narrowed it. */
	struct netpolicy net;
	/* Set by a session's supervisor once it made a network namespace of
	 * the session's own (an off or hosts policy): its loopback is the only
	 * network there, so the backend lets the tool make IP sockets on it. */
	bool net_own_ns;
	/* Hosts: the port of the proxy's listening socket on that loopback
	 * (127.0.0.1), once the supervisor handed it to the proxy; 0 until
	 * then, and a hosts policy without it is refused (sandbox_apply). */
	uint16_t net_proxy_port;
	/* May processes take the terminal's foreground (tcsetpgrp)? In a
	 * session the terminal is the sandbox's own pseudo-terminal, so yes;
	 * a wrapped tool is on the user's, where a process left behind could
	 * take it and read what the user types next. */
	bool job_control;
	/* A session's own world: PID, mount and IPC namespaces, a /proc of its
	 * own, empty /tmp, /var/tmp and /dev/shm (ORIGIN_PRIVATE rules, dropped
	 * where the kernel would not make them). Sessions ask for it;
	 * moat-wrapper does not, since it would double the wrapper's cost. The
	 * protected paths are bound in both: a session in its own mount
	 * namespace, the wrapper in one made for them alone. */
	bool isolate;
	/* .protect paths absent at the start, which no mount can hold: a
	 * session moves what the tool made there aside when it ends
	 * (launch/plantwatch.c). Canonical. */
	char **absent_protected;
	size_t nabsent_protected;
	/* Secrets in the caller's environment (profile/secrets.h), by name
	 * only, never a value: removed before the tool starts, or passed to
	 * it on purpose (config.zon's .env). */
	struct name_list secrets_removed;
	struct name_list secrets_passed;
};

/* A grant from config.zon, with its path already expanded and canonical. */
struct grant {
	const char *bin;
	const char *path;
	unsigned access;
	bool held; /* fd: path's descriptor, the context's (struct rule) */
	int fd;
};

/* Facts the context gathered from the host; the builder only combines them. */
struct profile_input {
	enum platform platform;
	const char *root;             /* canonical */
	const char *home;             /* canonical real HOME */
	const char *const *terminals; /* device paths of the controlling terminal */
	size_t nterminals;
	const char *const *etc_links; /* canonical targets of needed /etc links */
	size_t netc_links;
	const struct grant *grants;
	size_t ngrants;
	const char *const *jailbreaks;
	size_t njailbreaks;
	const char *const *shell_dirs; /* canonical shell directories in use */
	size_t nshell_dirs;
	const char *wrapper;        /* canonical path of moat-wrapper, or NULL */
	const char *const *sockets; /* unix sockets let through on purpose */
	size_t nsockets;
	const struct grant *git; /* what git needs of a linked work tree's git directory */
	size_t ngit;
};

/* Build the profile. Refuses a root that is HOME or one of its ancestors and
 * grants that are, or that path_refusal() rejects. Returns 0 or -1 + err. */
int profile_build(const struct profile_input *in, struct profile *out, struct error *err);
void profile_free(struct profile *p);

/* Add or widen a rule: one path has one rule, whose access is the union. */
void profile_add_rule(struct profile *p, const char *path, unsigned access, enum rule_origin origin,
                      const char *bin);
void profile_set_env(struct profile *p, const char *name, const char *value);

/* Do the platform's default rules already give read access to path? */
bool profile_defaults_read(enum platform platform, const char *path);

/* Is r's path a file by construction (a device, a terminal), never a
 * directory? Every other rule may name either. */
bool profile_rule_is_file(const struct rule *r);

/* Does the profile let unix sockets through on purpose (config .sockets)? */
bool profile_has_sockets(const struct profile *p);

/* Is path writable in this profile (under a rule with ACCESS_WRITE, and
 * not under a read-only protected path)? The private /dev/shm does not
 * count: nothing written there outlives the run. */
bool profile_allows_write(const struct profile *p, const char *path);

/* What path gets (enum access bits): the union of the rules on it and on
 * the directories above it, as Landlock grants them. The read-only binds
 * of protected paths are not Landlock's: profile_allows_write knows them. */
unsigned profile_access_at(const struct profile *p, const char *path);

/* Human names, for listings: "read", "read/write", "read/write/exec", ... */
const char *access_name(unsigned access);
const char *origin_name(enum rule_origin origin);

/* Ask for a session's own world (see profile.isolate). A private
 * directory that the root, a grant, a shell or home (canonical, or NULL)
 * lies below gives no access: what is not carried into it is refused,
 * never written and then lost. */
void profile_isolate(struct profile *p, const char *home);

/* Keep path (canonical, in a writable place: the root or a write grant)
 * from sandboxed code as kind says. Such rules are separate from the
 * Landlock rules (a grant on the same path keeps its own), and give no
 * access: Landlock cannot take rights away below a granted directory, so
 * the backend binds them onto themselves in a mount namespace instead.
 * Parents must be protected before what lies below them. */
void profile_protect(struct profile *p, const char *path, enum protect_kind kind);

/* Does the profile protect anything (ORIGIN_PROTECTED or ORIGIN_PINNED)? */
bool profile_has_protected(const struct profile *p);

/* Why path cannot be granted (or hold a shell) in a sandbox for a user
 * whose real home is home, or NULL when it can: path_refusal()'s reasons,
 * and home or an ancestor of it, which would undo the profile. */
const char *profile_grant_refusal(const char *path, const char *home);

/* Why root cannot be a sandbox root (a shared or system directory, HOME or
 * an ancestor of it), or NULL when it can. */
const char *profile_root_refusal(const char *root, const char *home);

/* The refusal message for a root that would contain HOME. */
int profile_refuse_root(const char *root, const char *home, struct error *err);

#endif
