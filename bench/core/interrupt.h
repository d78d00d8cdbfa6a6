/* interrupt.h — SIGINT and SIGTERM end a run cleanly, saying how it ended.
 *
 * The handler is async-signal-safe: it records the signal and, on rank 0, rewrites meta.json
 * as "interrupted" (signal, exit code 128 + signal, end time) from text prepared beforehand,
 * with open, write and rename only, so that meta.json is right even if the launcher kills the
 * process a moment later (mpirun sends SIGKILL one second after SIGTERM). The engines look at
 * interrupt_pending() at each step boundary and end the run there: streamed rows are whole on
 * disk at every moment (results_open), the files are closed, and the command layer ends the
 * job with exit code 128 + signal. A second signal ends the process at once (the default
 * action). Under a launcher, its death is a SIGTERM too (PR_SET_PDEATHSIG): mpirun may exit on
 * Ctrl-C before it passes the signal on. SIGXFSZ is ignored: a file-size limit fails the
 * write, as a full disk does. */
#ifndef FP_INTERRUPT_H
#define FP_INTERRUPT_H

/* Install the handlers. meta_dir, meta_head and meta_tail (rank 0; NULL elsewhere): the
 * results directory and meta.json's text before and after its status lines, which must stay
 * valid until interrupt_uninstall. */
void interrupt_install(const char *meta_dir, const char *meta_head, const char *meta_tail);
/* Back to the default actions; the texts are no longer used. The pending signal stays. */
void interrupt_uninstall(void);
/* The signal received (SIGINT, SIGTERM), or 0. */
int interrupt_pending(void);
/* "SIGINT", "SIGTERM", or "" */
const char *interrupt_name(int sig);

#endif
