/* What the nix code's files share (nix.c: messages, references, pins;
 * nixrun.c: which nix and running it; nixbuild.c: consent, locking and
 * building; nixpins.c: moat update and moat pins). Private to src/shells. */
#ifndef MOAT_SHELLS_NIXPRIV_H
#define MOAT_SHELLS_NIXPRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "base/util.h"
#include "shells/nix.h"
#include "shells/proc.h"
#include "shells/shells.h"

/* Everything the nix code keeps between calls, in one place. */
struct nix_state {
	struct nix_feedback feedback;
	/* Why the last resolution failed, for the caller's wording. */
	enum nix_unknown last_failure;
	/* Once per moat: the settings that stop the retries are the user's to set. */
	bool warned_unreachable;
	bool said_nix, said_env; /* -v said which nix, and what its environment lacks */
	struct {
		bool done;
		int start_errno; /* ENOENT when there is none */
		char *path;
		const char *how;
		struct strbuf skipped;
		struct error err; /* MOAT_NIX refused */
	} located;
};
extern struct nix_state nix_state;

struct shell_ref {
	char *name; /* the pin's key: "rust", or "<canonical flake>#attr" */
	char *flake;
	char *attr;
	char *shown; /* what the user wrote, for messages */
};

struct lock_info {
	char *url; /* locked URL */
	char *rev; /* NULL when the reference cannot be pinned */
	char *nar;
	char *type;
	bool approved; /* a copy the user agreed to */
};

/* nix.c */
void nix_say_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void nix_say_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void nix_say_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void report_pin_warnings(const struct pins *p);
const char *nix_store_dir(void);
void shell_ref_free(struct shell_ref *r);
int shell_ref_parse(const char *name, struct shell_ref *r, struct error *err);
uint32_t nix_fnv32(const char *s);
char *out_link_for(const char *name, const char *attr);
char *out_link(const struct shell_ref *r);
int lock_pins(const char *state, struct error *err);
char *source_of(const char *flake);
int resolve_fresh(const struct shell_ref *r, bool refresh, struct pin *out, const char **unpinnable,
                  struct error *err);
void pin_release(struct pin *p);
int save_pin(const char *path, struct pins *pins, const struct pin *pin, struct error *err);

/* nixrun.c */
bool nix_executable_file(const char *path);
int run_nix(const char *const *args, const char *shown, struct proc_result *r, struct error *err);
int nix_failed(const struct shell_ref *r, const struct proc_result *run, struct error *err);

/* nixbuild.c */
int trusted_flake(const struct shell_ref *r, char **eval, bool *approved, struct error *err);
void lock_info_free(struct lock_info *li);
int nix_metadata(const struct shell_ref *r, bool refresh, struct lock_info *li, struct error *err);
const char *unpinnable_reason(const struct lock_info *li);
int store_shell(const char *what, const char *store, bool make, char **dir, struct error *err);
int nix_build(const struct shell_ref *r, const char *from, char **store, struct error *err);

#endif
