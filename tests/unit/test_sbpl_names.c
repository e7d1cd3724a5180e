/* Every name moat writes into SBPL (operations, filters, modifiers, the
 * imported profile) and every operation seatbelt.c asks the kernel about is
 * one macOS knows. libsandbox refuses a profile with an unknown name as a
 * whole, and only a Mac would show it: this test shows it on Linux.
 *
 * The profiles rendered here cover every branch of sbpl_render: every
 * combination of access bits on a path (subpath) and on a device (literal),
 * the root, a jailbreak, network on and off.
 *
 * Where the known names come from (read for their names only; nothing of
 * them is copied here):
 *
 *   [mdns]   Apple's own mDNSResponder.sb, shipped with macOS
 *            (/usr/share/sandbox/mDNSResponder.sb): the public copy in
 *            github.com/apple-oss-distributions/mDNSResponder,
 *            mDNSMacOSX/mDNSResponder.sb.
 *   [system] Apple's /System/Library/Sandbox/Profiles/system.sb, as copied
 *            by Apple into WebKit's com.apple.WebProcess.sb.in ("rules
 *            originally contained in 'system.sb'"): github.com/WebKit/WebKit,
 *            Source/WebKit/WebProcess/com.apple.WebProcess.sb.in, which
 *            also uses (param ...) and (target ...).
 *   [libsandbox] libsandbox's own tables of operations, filter arguments and
 *            modifiers and its SBPL version 1 prelude, as extracted from
 *            macOS 10.15's /usr/lib/libsandbox.1.dylib by
 *            github.com/0xbf00/simbple (src/platform_data/catalina/
 *            operations.c and filters.c, src/scm/sbpl_v1.scm), for the names
 *            no public copy of a shipped profile above uses.
 *   [seed]   the original tool's profile, as its README describes it:
 *            (deny default), (import "bsd.sb"), sysctl-read, network.
 *
 * A name moat starts to write must be added here with where macOS uses it;
 * a name nobody can point to is a profile libsandbox may refuse. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "profile/profile.h"
#include "sandbox/sbpl.h"
#include "tap.h"

static const struct {
	const char *name, *source;
} known[] = {
    /* the forms */
    {"version", "mdns, system"},
    {"allow", "mdns, system"},
    {"deny", "mdns, system"},
    {"import", "mdns, seed"},
    {"default", "mdns, system, seed: (deny default)"},
    /* operations */
    {"file*", "libsandbox: operations table"},
    {"file-read*", "mdns, system"},
    {"file-read-data", "mdns, system"},
    {"file-write*", "mdns, system"},
    {"file-write-data", "mdns, system: /dev/null"},
    {"file-ioctl", "system: /dev/dtracehelper"},
    {"file-map-executable", "system: frameworks and dylibs"},
    {"process-exec", "libsandbox: sbpl_v1.scm, an alias of process-exec*"},
    {"process-fork", "libsandbox: operations table"},
    {"signal", "libsandbox: operations table"},
    {"sysctl-read", "mdns, system, seed"},
    {"network*", "mdns, seed"},
    /* filters and their arguments */
    {"literal", "mdns, system"},
    {"subpath", "mdns, system"},
    {"param", "system (WebKit's copy)"},
    {"target", "system (WebKit's copy): (target self)"},
    {"same-sandbox", "libsandbox: the target filter's arguments"},
    /* modifiers */
    {"with", "mdns, system: (with no-log)"},
    {"no-sandbox", "libsandbox: modifiers table"},
};

/* Profiles imported by name: Apple's. */
static const char *const known_imports[] = {"bsd.sb" /* seed */};

static bool is_known(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(known); i++)
		if (strcmp(known[i].name, name) == 0)
			return true;
	return false;
}

static bool has_name(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *s = list; (s = strstr(s, name)); s += n)
		if ((s == list || s[-1] == ' ') && s[n] == ' ')
			return true;
	return false;
}

/* The names used in a text: every symbol outside comments and strings,
 * once each, space-separated into names (numbers skipped); the string after each
 * "(import" into imports. */
static void names_in(const char *text, struct strbuf *names, struct strbuf *imports)
{
	bool after_import = false;
	for (const char *s = text; *s;) {
		if (*s == ';') {
			s += strcspn(s, "\n");
		} else if (*s == '"') {
			size_t n = strcspn(s + 1, "\"");
			if (after_import)
				sb_addf(imports, "%.*s ", (int)n, s + 1);
			after_import = false;
			s += n + 1 + (s[n + 1] == '"');
		} else if (strchr("() \t\n", *s)) {
			s++;
		} else {
			size_t n = strcspn(s, "() \t\n;\"");
			char *name = xstrndup(s, n);
			if (!isdigit((unsigned char)*s) && !has_name(sb_str(names), name))
				sb_addf(names, "%s ", name);
			free(name);
			after_import = n == 6 && strncmp(s, "import", 6) == 0;
			s += n;
		}
	}
}

/* Check every name in the space-separated list; returns how many are not
 * known, naming each. */
static int unknown_names(const char *list, const char *(*lookup)(const char *), const char *what)
{
	int bad = 0;
	char *copy = xstrdup(list);
	for (char *save = NULL, *n = strtok_r(copy, " ", &save); n;
	     n = strtok_r(NULL, " ", &save)) {
		if (!lookup(n)) {
			printf("#   %s '%s' is not one macOS is known to take\n", what, n);
			bad++;
		}
	}
	free(copy);
	return bad;
}

static const char *lookup_name(const char *n)
{
	return is_known(n) ? n : NULL;
}

static const char *lookup_import(const char *n)
{
	for (size_t i = 0; i < ARRAY_LEN(known_imports); i++)
		if (strcmp(known_imports[i], n) == 0)
			return n;
	return NULL;
}

/* A profile with a rule for every combination of access bits, on a
 * directory (a grant: subpath) and on a device (literal), plus a jailbreak. */
static char *render_everything(bool network)
{
	struct profile_input in = {
	    .platform = PLATFORM_MACOS,
	    .root = "/Users/you/git/project",
	    .home = "/Users/you",
	};
	struct profile p;
	struct error err = {0};
	if (profile_build(&in, &p, &err) < 0)
		return NULL;
	unsigned all = ACCESS_ALL | ACCESS_IOCTL | ACCESS_CONNECT;
	for (unsigned access = 1; access <= all; access++) {
		char path[64];
		snprintf(path, sizeof(path), "/Users/you/grant%u", access);
		profile_add_rule(&p, path, access, ORIGIN_GRANT, "*");
		snprintf(path, sizeof(path), "/dev/device%u", access);
		profile_add_rule(&p, path, access, ORIGIN_DEVICE, NULL);
	}
	p.jailbreaks = xcalloc(1, sizeof(char *));
	p.jailbreaks[p.njailbreaks++] = xstrdup("/usr/bin/git");
	p.net = network ? NETPOLICY_OPEN : (struct netpolicy){.level = NET_OFF};
	struct strbuf out = STRBUF_INIT;
	int rc = sbpl_render(&p, &out, &err);
	profile_free(&p);
	if (rc < 0) {
		printf("#   %s\n", err.msg);
		sb_release(&out);
		return NULL;
	}
	return sb_detach(&out);
}

int main(void)
{
	struct strbuf names = STRBUF_INIT, imports = STRBUF_INIT;
	for (int network = 0; network <= 1; network++) {
		char *text = render_everything(network);
		CHECK(text != NULL, "a profile with every kind of rule renders (network %s)",
		      network ? "on" : "off");
		if (text)
			names_in(text, &names, &imports);
		free(text);
	}
	/* What seatbelt.c asks sandbox_check about is an operation name too. */
	sb_addf(&names, "%s %s ", SBPL_CHECK_READ_OP, SBPL_CHECK_WRITE_OP);

	/* The rendering covers every branch, so the names below all turn up. */
	static const char *const expected[] = {
	    "file*",      "file-read*",   "file-write*",         "file-write-data",
	    "file-ioctl", "process-exec", "file-map-executable", "param",
	    "literal",    "subpath",      "no-sandbox",          "network*",
	    "signal",     "same-sandbox",
	};
	for (size_t i = 0; i < ARRAY_LEN(expected); i++)
		CHECK(has_name(sb_str(&names), expected[i]), "the rendered profiles use %s",
		      expected[i]);

	CHECK(unknown_names(sb_str(&names), lookup_name, "name") == 0,
	      "every operation, filter and modifier moat writes is one macOS knows");
	CHECK(strlen(sb_str(&imports)) > 0 &&
	          unknown_names(sb_str(&imports), lookup_import, "import") == 0,
	      "every imported profile is Apple's");

	/* Control: the check does refuse a name macOS does not have. */
	struct strbuf bad = STRBUF_INIT, bad_imports = STRBUF_INIT;
	names_in("(allow file-write-everything (subpath \"/x\")) ; file-bogus in a comment\n"
	         "(import \"moat.sb\")",
	         &bad, &bad_imports);
	CHECK(!has_name(sb_str(&bad), "file-bogus"), "control: names in comments are not names");
	CHECK(unknown_names(sb_str(&bad), lookup_name, "control name") == 1,
	      "control: an unknown operation is caught");
	CHECK(unknown_names(sb_str(&bad_imports), lookup_import, "control import") == 1,
	      "control: an unknown import is caught");

	sb_release(&names), sb_release(&imports), sb_release(&bad), sb_release(&bad_imports);
	return tap_done();
}
