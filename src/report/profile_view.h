/* What `moat profile` prints, as text for people and as JSON for editors and
 * agents (docs/json.md), rendered from the one profile moat run and moat
 * shell enforce. Pure: the facts that need the host (does a rule's path
 * exist, the kernel's Landlock ABI) are gathered by the caller. */
#ifndef MOAT_REPORT_PROFILE_VIEW_H
#define MOAT_REPORT_PROFILE_VIEW_H

#include <stdbool.h>

#include "base/strbuf.h"
#include "profile/profile.h"

struct profile_facts {
	const bool *absent;         /* per rule: its path does not exist, so no rule is made */
	const bool *to_make;        /* per rule: absent, but made as a session starts */
	int abi;                    /* the kernel's Landlock ABI */
	const char *not_enforced;   /* what this kernel cannot enforce, "" for nothing */
	const char *socket_warning; /* sandbox_socket_warning(), or NULL */
	bool isolated; /* a session here gets its own namespaces (sandbox_isolation_works) */
};

/* The version of the JSON documents moat writes; docs/json.md says what a
 * change of it means. */
#define MOAT_JSON_VERSION 1

void profile_render_text(const struct profile *p, const struct profile_facts *f,
                         struct strbuf *out);
void profile_render_json(const struct profile *p, const struct profile_facts *f,
                         struct strbuf *out);

/* The access bits as JSON names: "read", "write", "exec", "ioctl", "connect". */
struct json;
void json_access(struct json *j, const char *key, unsigned access);

#endif
