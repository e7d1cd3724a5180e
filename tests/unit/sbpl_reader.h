/* Reading moat's own SBPL back, for the tests only: they use it to show the
 * rendering says exactly what the profile model says. */
#ifndef MOAT_TESTS_SBPL_READER_H
#define MOAT_TESTS_SBPL_READER_H

#include <stdbool.h>
#include <stddef.h>

#include "sandbox/sbpl.h"

/* A path the rendered profile grants, read back from the SBPL text. */
struct sbpl_grant {
	char *path;      /* parameters resolved */
	unsigned access; /* enum access bits that its operations amount to */
	bool literal;    /* (literal ...) rather than (subpath ...) */
	bool no_sandbox; /* a jailbreak: process-exec (with no-sandbox) */
};

/* Read back what SBPL rendered by sbpl_render() grants: every (allow ...)
 * with path filters, its operations mapped back to access bits (the inverse
 * of the table above; exec only when both process-exec and
 * file-map-executable are there). A path granted by several forms gets the
 * union. Operations or forms sbpl_render() never writes are errors, not
 * guesses: this reads moat's own output, not SBPL in general. Used by the
 * tests to show the rendering says exactly what the model says.
 * Returns 0 with *out (caller frees with sbpl_grants_free()), or -1 + err. */
int sbpl_grants(const char *sbpl, const struct sbpl_param *params, size_t nparams,
                struct sbpl_grant **out, size_t *nout, struct error *err);
void sbpl_grants_free(struct sbpl_grant *grants, size_t n);

#endif
