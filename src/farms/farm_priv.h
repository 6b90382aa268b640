/* farm_priv.h - what the files of the farm module share and nothing
 * else sees: the farm itself, and the mark a failed check leaves.
 * Never included outside src/farms/farm*.c. */
#ifndef AB_FARM_PRIV_H
#define AB_FARM_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <jansson.h>
#include "farms/farm.h"
#include "farms/openpgp.h"

/* A signature or a status file is small. */
#define SIG_MAX_BYTES (64u << 10)

struct ab_farm {
	ab_farm_options o;	/* strings and arrays are the farm's copies */
	char **owned;
	size_t nowned;
	const ab_farm_layout *layout;
	char *url;		/* the top directory, ending in '/' */
	char *root;		/* a local farm (file://): the real path of its
				 * top directory; NULL for a remote one */
	json_t *doc;		/* the index v1 document of what is known */
	json_t *builds;		/* its builds array (borrowed) */
	ab_index *idx;
	pthread_mutex_t lock;	/* resolution, the document, the counters */
	ab_pgp *pgp;		/* NULL: no keyring */
	int keyrings_default;	/* the keys came from a Debian package */
	struct made { ab_artifact *a; size_t n; } *arts;	/* what resolution made */
	size_t narts;
	size_t fetched, revalidated;
	size_t nfailed;		/* builds the farm turned out not to have made */
	int matched;		/* a build had files for --arch and --flavour */
	char *slip;		/* the message once no build has them (exit 2) */
};

/* A signature or a keyring that gpg could not read while the run was
 * being interrupted proves nothing: 1 with err (exit 4) when the run is
 * being cancelled, 0 otherwise. */
int ab_farm_interrupted(const ab_farm *f, ab_error *err);

/* Whether the last build resolved in this thread could not be had
 * because a check failed (a signature, a digest, no key to check
 * with) rather than because the farm lacks it; cleared before each. */
void ab_farm_check_clear(void);
bool ab_farm_check_failed(void);

#endif
