/* fuzz_p2p.c — p2p.csv (matrix_read_p2p) → inference → every emitter. Seeds: p2p files of
 * tests/fuzz/seeds/fuzz_p2p; regressions: tests/fuzz/regressions/fuzz_p2p. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *file = fuzz_file("p2p.csv", data, size);
	char err[MATRIX_ERR_MAX] = "";
	struct p2p_matrices m;
	int rc = matrix_read_p2p(file, NULL, &m, err);

	FUZZ_ASSERT(rc == 0 || rc == FP_EUSAGE, "matrix_read_p2p: rc %d", rc);
	FUZZ_ASSERT(rc == 0 || err[0], "refused without saying why");
	if (rc == 0) {
		FUZZ_ASSERT(m.n >= 2, "a map of %d endpoints", m.n);
		fuzz_map(&m);
	}
	/* the same bytes as a planned run's p2p_bw.csv, merged into the map's matrices */
	struct p2p_matrices b;
	char berr[MATRIX_ERR_MAX] = "";
	int brc = matrix_read_p2p_bw(file, NULL, &b, berr);

	FUZZ_ASSERT(brc == 0 || brc == FP_EUSAGE, "matrix_read_p2p_bw: rc %d", brc);
	FUZZ_ASSERT(brc == 0 || berr[0], "p2p_bw refused without saying why");
	FUZZ_ASSERT(brc == 0 || rc != 0, "read as p2p.csv, refused as p2p_bw.csv: %s", berr);
	if (brc == 0 && rc == 0)
		FUZZ_ASSERT(matrix_add_bw(&m, &b) == 0, "matrix_add_bw failed");
	if (brc == 0)
		matrix_free(&b);
	if (rc == 0)
		matrix_free(&m);
	return 0;
}
