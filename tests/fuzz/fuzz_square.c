/* fuzz_square.c — a square latency matrix (matrix_read_square) → inference → every emitter.
 * Seeds: the matrices of tests/fixtures/topo and tests/fuzz/seeds/fuzz_square. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *file = fuzz_file("matrix.csv", data, size);
	char err[MATRIX_ERR_MAX] = "";
	struct p2p_matrices m;
	int rc = matrix_read_square(file, &m, err);

	FUZZ_ASSERT(rc == 0 || rc == FP_EUSAGE, "matrix_read_square: rc %d", rc);
	FUZZ_ASSERT(rc == 0 || err[0], "refused without saying why");
	if (rc == 0) {
		FUZZ_ASSERT(m.n >= 2, "a map of %d hosts", m.n);
		fuzz_map(&m);
		matrix_free(&m);
	}
	return 0;
}
