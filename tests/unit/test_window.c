/* The bandwidth warm-up rule (series of window times in, converged index out) and the
 * figures of the timed windows. */
#include "check.h"
#include "p2p/window.h"

static void test_agree(void)
{
	CHECK(window_agree(1.0, 1.04, 0.05));
	CHECK(window_agree(1.04, 1.0, 0.05));
	CHECK(!window_agree(1.0, 1.06, 0.05));
	CHECK(!window_agree(0, 0, 0.05));      /* a window of no time is no evidence */
	CHECK(!window_agree(-1, -1, 0.05));
}

static void test_converged_index(void)
{
	/* TCP opening its window after a latency test: slow, slower, then steady */
	static const double slow_start[] = { 0.040, 0.021, 0.0140, 0.0137, 0.0138 };
	/* steady from the start */
	static const double steady[] = { 0.0140, 0.0139, 0.0141 };
	/* never two alike: 10% up and down */
	static const double seesaw[] = { 1.0, 1.1, 1.0, 1.1, 1.0, 1.1 };
	/* agree early, then a stall: the first agreement decides */
	static const double early[] = { 2.0, 2.05, 9.0, 2.0 };

	CHECK(window_converged(slow_start, 5, 1, 0.05) == 3);
	CHECK(window_converged(slow_start, 3, 1, 0.05) == -1); /* not yet */
	CHECK(window_converged(steady, 3, 1, 0.05) == 1);
	CHECK(window_converged(steady, 3, 3, 0.05) == 2);     /* at least 3 warm-up windows */
	CHECK(window_converged(steady, 3, 4, 0.05) == -1);
	CHECK(window_converged(seesaw, 6, 1, 0.05) == -1);
	CHECK(window_converged(seesaw, 6, 1, 0.15) == 1);     /* a looser tolerance */
	CHECK(window_converged(early, 4, 1, 0.05) == 1);
	CHECK(window_converged(early, 1, 1, 0.05) == -1);
	CHECK(window_converged(early, 0, 1, 0.05) == -1);
}

static void test_figures(void)
{
	static const double t[] = { 1.0, 4.0, 2.0 }; /* 1e9 B each: 1, 0.25, 0.5 GB/s */
	static const double t4[] = { 1.0, 2.0, 4.0, 1.0 };
	struct window_figures f;

	window_figures(t, 3, 1e9, 7.0, &f);
	CHECK_NEAR(f.median, 0.5, 1e-12);
	CHECK_NEAR(f.min, 0.25, 1e-12);
	CHECK_NEAR(f.max, 1.0, 1e-12);
	CHECK_NEAR(f.total, 3.0 / 7.0, 1e-12);
	CHECK(t[1] == 4.0); /* left as it was */
	window_figures(t4, 4, 1e9, 8.0, &f); /* even count: the mean of the two middle rates */
	CHECK_NEAR(f.median, 0.75, 1e-12);
	window_figures(t, 0, 1e9, 7.0, &f);
	CHECK(isnan(f.median) && isnan(f.total));
}

int main(void)
{
	RUN(test_agree);
	RUN(test_converged_index);
	RUN(test_figures);
	CHECK_EXIT();
}
