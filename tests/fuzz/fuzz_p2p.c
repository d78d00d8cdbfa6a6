/* fuzz_p2p.c — p2p.csv (matrix_read_p2p) → inference → every emitter. Seeds: p2p files of
 * tests/fuzz/seeds/fuzz_p2p; regressions: tests/fuzz/regressions/fuzz_p2p. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *file = fuzz_file("p2p.csv", data, size);
	char err[MATRIX_ERR_MAX] = "";
	struct matrix m;
	int rc = matrix_read_p2p(file, NULL, &m, err);

	FUZZ_ASSERT(rc == 0 || rc == FP_EUSAGE, "matrix_read_p2p: rc %d", rc);
	FUZZ_ASSERT(rc == 0 || err[0], "refused without saying why");
	if (rc == 0) {
		FUZZ_ASSERT(m.n >= 2, "a map of %d endpoints", m.n);
		fuzz_map(&m);
		matrix_free(&m);
	}
	return 0;
}
