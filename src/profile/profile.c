#include "profile/profile.h"
#include "base/envvars.h"

#include <string.h>

#include "base/path.h"

struct default_rule {
	const char *path;
	unsigned access;
	enum rule_origin origin;
};

/* The handbook's table: what every sandbox on Linux may reach. /proc is
 * readable because runtimes need /proc/self; Landlock's ptrace rules keep
 * other processes' environ, mem, cwd and fd out of reach. */
static const struct default_rule linux_defaults[] = {
    {"/usr", ACCESS_RX, ORIGIN_SYSTEM},
    {"/bin", ACCESS_RX, ORIGIN_SYSTEM},
    {"/sbin", ACCESS_RX, ORIGIN_SYSTEM},
    {"/lib", ACCESS_RX, ORIGIN_SYSTEM},
    {"/lib32", ACCESS_RX, ORIGIN_SYSTEM},
    {"/lib64", ACCESS_RX, ORIGIN_SYSTEM},
    {"/libx32", ACCESS_RX, ORIGIN_SYSTEM},
    {"/nix/store", ACCESS_RX, ORIGIN_SYSTEM},
    {"/etc", ACCESS_READ, ORIGIN_SYSTEM},
    {"/proc", ACCESS_READ, ORIGIN_SYSTEM},
    {"/sys", ACCESS_READ, ORIGIN_SYSTEM},
    {"/dev/null", ACCESS_RW | ACCESS_IOCTL, ORIGIN_DEVICE},
    {"/dev/zero", ACCESS_RW | ACCESS_IOCTL, ORIGIN_DEVICE},
    {"/dev/full", ACCESS_RW | ACCESS_IOCTL, ORIGIN_DEVICE},
    {"/dev/random", ACCESS_RW | ACCESS_IOCTL, ORIGIN_DEVICE},
    {"/dev/urandom", ACCESS_RW | ACCESS_IOCTL, ORIGIN_DEVICE},
    {"/dev/tty", ACCESS_RW | ACCESS_IOCTL, ORIGIN_TERMINAL},
    {"/dev/ptmx", ACCESS_RW | ACCESS_IOCTL, ORIGIN_TERMINAL},
};

/* The seed's allowlist for macOS, rendered by the SBPL backend. */
static const struct default_rule macos_defaults[] = {
    {"/nix/store", ACCESS_RX, ORIGIN_SYSTEM},
    {"/bin", ACCESS_RX, ORIGIN_SYSTEM},
    {"/sbin", ACCESS_RX, ORIGIN_SYSTEM},
    {"/usr/bin", ACCESS_RX, ORIGIN_SYSTEM},
    {"/usr/sbin", ACCESS_RX, ORIGIN_SYSTEM},
    {"/usr/lib", ACCESS_RX, ORIGIN_SYSTEM},
    {"/usr/libexec", ACCESS_RX, ORIGIN_SYSTEM},
    {"/System", ACCESS_RX, ORIGIN_SYSTEM},
    {"/etc", ACCESS_READ, ORIGIN_SYSTEM},
    {"/private/etc", ACCESS_READ, ORIGIN_SYSTEM},
    {"/usr/share", ACCESS_READ, ORIGIN_SYSTEM},
    {"/dev/null", ACCESS_RW | ACCESS_IOCTL, ORIGIN_DEVICE},
    {"/dev/zero", ACCESS_RW | ACCESS_IOCTL, ORIGIN_DEVICE},
    {"/dev/random", ACCESS_RW | ACCESS_IOCTL, ORIGIN_DEVICE},
    {"/dev/urandom", ACCESS_RW | ACCESS_IOCTL, ORIGIN_DEVICE},
    {"/dev/dtracehelper", ACCESS_RW | ACCESS_IOCTL, ORIGIN_DEVICE}, /* runtimes' dtrace probes */
    {"/dev/tty", ACCESS_RW | ACCESS_IOCTL, ORIGIN_TERMINAL},
    {"/dev/ptmx", ACCESS_RW | ACCESS_IOCTL, ORIGIN_TERMINAL}, /* script, node-pty */
};

static size_t path_hash(const char *s)
{
	size_t h = 14695981039346656037ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The slot of path in p->rule_slots: its rule's, or the free one where it
 * would go. nslots is a power of two, never more than half full. Only
 * rules that are not protected are indexed: profile_protect adds a second
 * entry for a path, which profile_add_rule must never widen. */
static size_t *rule_slot(const struct profile *p, const char *path)
{
	size_t mask = p->nslots - 1;
	for (size_t i = path_hash(path) & mask;; i = (i + 1) & mask) {
		size_t *slot = &p->rule_slots[i];
		if (!*slot || strcmp(p->rules[*slot - 1].path, path) == 0)
			return slot;
	}
}

static void grow_slots(struct profile *p)
{
	free(p->rule_slots);
	p->nslots = p->nslots ? p->nslots * 2 : 64;
	p->rule_slots = xcalloc(p->nslots, sizeof(*p->rule_slots));
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].protect == PROTECT_NONE)
			*rule_slot(p, p->rules[i].path) = i + 1;
}

void profile_add_rule(struct profile *p, const char *path, unsigned access, enum rule_origin origin,
                      const char *bin)
{
	if (2 * (p->nrules + 1) > p->nslots)
		grow_slots(p);
	size_t *slot = rule_slot(p, path);
	if (*slot) {
		struct rule *r = &p->rules[*slot - 1];
		/* A rule that widens an existing one names itself as the
		 * reason, so `moat profile` shows why the access is there. */
		if (access & ~r->access) {
			r->origin = origin;
			free(r->bin);
			r->bin = bin ? xstrdup(bin) : NULL;
		}
		r->access |= access;
		return;
	}
	p->rules = xrealloc_array(p->rules, p->nrules + 1, sizeof(*p->rules));
	p->rules[p->nrules++] = (struct rule){
	    .path = xstrdup(path),
	    .access = access,
	    .origin = origin,
	    .bin = bin ? xstrdup(bin) : NULL,
	};
	*slot = p->nrules;
}

void profile_set_env(struct profile *p, const char *name, const char *value)
{
	for (size_t i = 0; i < p->nenv; i++) {
		if (strcmp(p->env[i].name, name) == 0) {
			free(p->env[i].value);
			p->env[i].value = value ? xstrdup(value) : NULL;
			return;
		}
	}
	p->env = xrealloc_array(p->env, p->nenv + 1, sizeof(*p->env));
	p->env[p->nenv++] = (struct env_change){xstrdup(name), value ? xstrdup(value) : NULL};
}

const char *profile_grant_refusal(const char *path, const char *home)
{
	const char *why = path_refusal(path);
	return why ? why : path_home_refusal(path, home);
}

/* Directories shared with other users and the system: never a project.
 * The first list only as themselves (a project below, say /srv/www/app or
 * a mktemp -d under /tmp, is fine), the second with everything below. */
static const char *const shared_dirs[] = {
    "/",          "/tmp",      "/var/tmp", "/dev/shm", "/var", "/var/lib", "/var/cache", "/var/log",
    "/var/spool", "/var/mail", "/opt",     "/srv",     "/mnt", "/media",   "/home",
};
static const char *const system_trees[] = {
    "/etc", "/usr", "/proc", "/sys", "/boot",  "/nix",   "/dev",
    "/run", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
};

static const char *shared_refusal(const char *root)
{
	for (size_t i = 0; i < ARRAY_LEN(shared_dirs); i++)
		if (strcmp(root, shared_dirs[i]) == 0)
			return "it is a directory shared with other users and programs";
	if (path_is_under(root, "/dev/shm")) /* a project may live in memory */
		return NULL;
	for (size_t i = 0; i < ARRAY_LEN(system_trees); i++)
		if (path_is_under(root, system_trees[i]))
			return "it is a system directory";
	return NULL;
}

const char *profile_root_refusal(const char *root, const char *home)
{
	const char *why = shared_refusal(root);
	return why ? why : path_home_refusal(root, home);
}

int profile_refuse_root(const char *root, const char *home, struct error *err)
{
	const char *why = shared_refusal(root);
	if (why) {
		error_set(err, "refusing to use '%s' as the sandbox root: %s", root, why);
		error_hint(
		    err, "the root is read/write for everything in the sandbox; cd into a project "
		         "directory (a directory of its own below /tmp or /srv is fine)");
		err->status = EXIT_MOAT_FAILED;
		return -1;
	}
	why = path_home_refusal(root, home);
	if (!why)
		return 0;
	error_set(err, "refusing to use '%s' as the sandbox root: %s", root, why);
	error_hint(err, "a root containing home would grant access to everything home is meant to "
	                "withhold; cd into a project directory");
	return -1;
}

static int add_grants(struct profile *p, const struct profile_input *in, struct error *err)
{
	for (size_t i = 0; i < in->ngrants; i++) {
		const struct grant *g = &in->grants[i];
		const char *why = profile_grant_refusal(g->path, in->home);
		if (why)
			return error_set(err, "refusing to grant '%s': %s", g->path, why);
		profile_add_rule(p, g->path, g->access, ORIGIN_GRANT, g->bin);
		/* The rule for that path (this grant's, or one it widened)
		 * rules on the descriptor the context resolved it with. */
		struct rule *r = &p->rules[*rule_slot(p, g->path) - 1];
		if (g->held && !r->held) {
			r->held = true;
			r->fd = g->fd;
		}
	}
	return 0;
}

int profile_build(const struct profile_input *in, struct profile *out, struct error *err)
{
	*out = (struct profile){.platform = in->platform, .net = NETPOLICY_OPEN};
	if (path_refusal(in->root))
		return error_set(err, "cannot use '%s' as the sandbox root: %s", in->root,
		                 path_refusal(in->root));
	if (profile_refuse_root(in->root, in->home, err) < 0)
		return -1;
	out->root = xstrdup(in->root);
	profile_add_rule(out, in->root, ACCESS_ALL, ORIGIN_ROOT, NULL);
	for (size_t i = 0; i < in->ngit; i++)
		if (!profile_grant_refusal(in->git[i].path, in->home))
			profile_add_rule(out, in->git[i].path, in->git[i].access, ORIGIN_GIT, NULL);

	const struct default_rule *defs =
	    in->platform == PLATFORM_MACOS ? macos_defaults : linux_defaults;
	size_t ndefs =
	    in->platform == PLATFORM_MACOS ? ARRAY_LEN(macos_defaults) : ARRAY_LEN(linux_defaults);
	for (size_t i = 0; i < ndefs; i++)
		profile_add_rule(out, defs[i].path, defs[i].access, defs[i].origin, NULL);
	for (size_t i = 0; i < in->nterminals; i++)
		profile_add_rule(out, in->terminals[i], ACCESS_RW | ACCESS_IOCTL, ORIGIN_TERMINAL,
		                 NULL);
	for (size_t i = 0; i < in->netc_links; i++)
		profile_add_rule(out, in->etc_links[i], ACCESS_READ, ORIGIN_ETC_LINK, NULL);
	for (size_t i = 0; i < in->nshell_dirs + (in->wrapper != NULL); i++) {
		const char *path = i < in->nshell_dirs ? in->shell_dirs[i] : in->wrapper;
		/* A newline here would also split `moat profile`'s listing. */
		const char *why = profile_grant_refusal(path, in->home);
		if (why) {
			error_set(err, "cannot use '%s' in the sandbox: %s", path, why);
			profile_free(out);
			return -1;
		}
		profile_add_rule(out, path, ACCESS_RX, ORIGIN_SHELL, NULL);
	}
	for (size_t i = 0; i < in->nsockets; i++)
		profile_add_rule(out, in->sockets[i], ACCESS_CONNECT, ORIGIN_SOCKET, NULL);
	if (add_grants(out, in, err) < 0) {
		profile_free(out);
		return -1;
	}
	for (size_t i = 0; i < in->njailbreaks; i++) {
		out->jailbreaks =
		    xrealloc_array(out->jailbreaks, out->njailbreaks + 1, sizeof(char *));
		out->jailbreaks[out->njailbreaks++] = xstrdup(in->jailbreaks[i]);
	}

	cleanup_free char *tmpdir = path_join(in->root, ".moat/tmp");
	profile_set_env(out, ENV_ROOT, in->root);
	profile_set_env(out, "TMPDIR", tmpdir);
	profile_set_env(out, ENV_SANDBOX, in->root);
	return 0;
}

/* Does dir hold a path of the host's that the session uses or the user
 * knows: the root, a grant, a shell, or home? Rules below dir are carried
 * into the private tmpfs at their own place, so its other names there
 * (the root's siblings, home's files) look like the host's. */
static bool holds_host_paths(const struct profile *p, const char *dir, const char *home)
{
	if (home && path_is_under(home, dir))
		return true;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		if (r->origin != ORIGIN_PRIVATE && r->protect == PROTECT_NONE && r->access &&
		    path_is_under(r->path, dir))
			return true;
	}
	return false;
}

void profile_isolate(struct profile *p, const char *home)
{
	static const char *const dirs[] = {"/tmp", "/var/tmp", "/dev/shm"};
	p->isolate = true;
	p->job_control = true;
	/* Rules below these are carried into the new tmpfs (sandbox.h). Where
	 * the tmpfs stands in for host paths, a write to one it does not carry
	 * (../sibling.txt, ~/.cache) would succeed and vanish with the
	 * session: there it gives no access at all, and such a write is
	 * refused, as it would be on the host's directory. It still hides the
	 * host's unix sockets, which Landlock below ABI 9 cannot. */
	for (size_t i = 0; i < ARRAY_LEN(dirs); i++)
		profile_add_rule(p, dirs[i], holds_host_paths(p, dirs[i], home) ? 0 : ACCESS_RW,
		                 ORIGIN_PRIVATE, NULL);
}

void profile_protect(struct profile *p, const char *path, enum protect_kind kind)
{
	bool pin = kind == PROTECT_PIN;
	for (size_t i = 0; i < p->nrules; i++) {
		struct rule *r = &p->rules[i];
		if (r->protect == PROTECT_NONE || strcmp(r->path, path) != 0)
			continue;
		/* Read-only also pins (a mount point cannot be moved); making
		 * an absent path is worth keeping. */
		if (r->protect == PROTECT_PIN || (r->protect == PROTECT_READ_ONLY && !pin)) {
			r->protect = kind;
			r->access = pin ? ACCESS_RW : ACCESS_READ;
			r->origin = pin ? ORIGIN_PINNED : ORIGIN_PROTECTED;
		}
		return;
	}
	p->rules = xrealloc_array(p->rules, p->nrules + 1, sizeof(*p->rules));
	p->rules[p->nrules++] = (struct rule){
	    .path = xstrdup(path),
	    .access = pin ? ACCESS_RW : ACCESS_READ,
	    .origin = pin ? ORIGIN_PINNED : ORIGIN_PROTECTED,
	    .protect = kind,
	};
}

bool profile_has_protected(const struct profile *p)
{
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].protect != PROTECT_NONE)
			return true;
	return false;
}

void name_list_add(struct name_list *l, const char *name, size_t len)
{
	l->v = xrealloc_array(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = xstrndup(name, len);
}

void name_list_free(struct name_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	*l = (struct name_list){0};
}

void profile_free(struct profile *p)
{
	for (size_t i = 0; i < p->nrules; i++) {
		free(p->rules[i].path);
		free(p->rules[i].bin);
	}
	for (size_t i = 0; i < p->nenv; i++) {
		free(p->env[i].name);
		free(p->env[i].value);
	}
	for (size_t i = 0; i < p->njailbreaks; i++)
		free(p->jailbreaks[i]);
	for (size_t i = 0; i < p->nabsent_protected; i++)
		free(p->absent_protected[i]);
	free(p->absent_protected);
	name_list_free(&p->secrets_removed);
	name_list_free(&p->secrets_passed);
	free(p->rules);
	free(p->rule_slots);
	free(p->env);
	free(p->jailbreaks);
	free(p->root);
	*p = (struct profile){0};
}

bool profile_defaults_read(enum platform platform, const char *path)
{
	const struct default_rule *defs =
	    platform == PLATFORM_MACOS ? macos_defaults : linux_defaults;
	size_t n =
	    platform == PLATFORM_MACOS ? ARRAY_LEN(macos_defaults) : ARRAY_LEN(linux_defaults);
	for (size_t i = 0; i < n; i++)
		if ((defs[i].access & ACCESS_READ) && path_is_under(path, defs[i].path))
			return true;
	return false;
}

bool profile_rule_is_file(const struct rule *r)
{
	return r->origin == ORIGIN_DEVICE || r->origin == ORIGIN_TERMINAL;
}

bool profile_has_sockets(const struct profile *p)
{
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].access & ACCESS_CONNECT)
			return true;
	return false;
}

bool profile_allows_write(const struct profile *p, const char *path)
{
	bool writable = false;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];
		if (!path_is_under(path, r->path))
			continue;
		if (r->origin == ORIGIN_PROTECTED)
			return false; /* bound read-only, whatever Landlock allows */
		if ((r->access & ACCESS_WRITE) && r->origin != ORIGIN_PRIVATE)
			writable = true;
	}
	return writable;
}

unsigned profile_access_at(const struct profile *p, const char *path)
{
	unsigned access = 0;
	/* Landlock's rights are inherited: path gets what every rule on it or
	 * on a directory above it gives. */
	for (size_t i = 0; p && i < p->nrules; i++)
		if (path_is_under(path, p->rules[i].path))
			access |= p->rules[i].access;
	return access;
}

const char *access_name(unsigned access)
{
	if (access == ACCESS_CONNECT)
		return "connect";
	switch (access & ACCESS_ALL) {
	case ACCESS_READ: return "read";
	case ACCESS_RW: return "read/write";
	case ACCESS_RX: return "read/exec";
	case ACCESS_ALL: return "read/write/exec";
	case ACCESS_WRITE: return "write";
	case ACCESS_EXEC: return "exec";
	case ACCESS_WRITE | ACCESS_EXEC: return "write/exec";
	default: return "none";
	}
}

const char *origin_name(enum rule_origin origin)
{
	switch (origin) {
	case ORIGIN_ROOT: return "root";
	case ORIGIN_SYSTEM: return "system";
	case ORIGIN_DEVICE: return "device";
	case ORIGIN_TERMINAL: return "terminal";
	case ORIGIN_ETC_LINK: return "etc-link";
	case ORIGIN_GRANT: return "grant";
	case ORIGIN_SOCKET: return "socket";
	case ORIGIN_SHELL: return "shell";
	case ORIGIN_PRIVATE: return "private";
	case ORIGIN_PROTECTED: return "protected";
	case ORIGIN_GIT: return "git";
	case ORIGIN_PINNED: return "pinned";
	}
	return "?";
}
