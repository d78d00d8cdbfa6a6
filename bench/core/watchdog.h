/* watchdog.h — every rank's guard against a step that never ends (a peer stopped, killed or
 * hung inside a collective the library cannot time out). A thread of each rank watches the step
 * its main thread armed; past the step's bound it asks every other rank, over UDP (outside MPI,
 * which the stuck step holds), what step it is in: a rank that does not answer within a second
 * is stopped, hung whole or gone; a rank that answers from an earlier step has not arrived.
 * The watchdog says them, with the step and the bound, on stderr, and ends this rank with exit
 * 3 (a runtime error: the launcher ends the others). A signal in a step (SIGTERM: the launcher
 * ending the job when a peer died, or a time limit) is said at once with the step, then a short
 * roll call names who did not answer (the peer gone); the run then ends as interrupt.h says.
 * The same thread answers the others' questions. Each rank publishes its addresses (its IPv4 interfaces, loopback included) at
 * start; an answer carries its rank, so that a port reused by another process is never taken
 * for the peer. */
#ifndef FP_WATCHDOG_H
#define FP_WATCHDOG_H

#include <mpi.h>

/* Collective over comm: the thread started on every rank (rank r's name for the messages at
 * names + r * stride; kept). 0, or -1 when it could not start here (then arming does nothing:
 * said). */
int watchdog_start(MPI_Comm comm, const char *names, size_t stride);
/* This rank's step from now on: what (copied, for the messages), bounded to seconds (<= 0: no
 * bound). */
void watchdog_arm(double seconds, const char *what);
void watchdog_disarm(void);
/* Before it ends the rank, the watchdog calls fn(arg) from a thread of its own, waiting for it
 * at most 2 s (NCCL's communicator aborted: ncclCommAbort may be called while another thread
 * is inside NCCL). NULL: none. */
void watchdog_hook(void (*fn)(void *), void *arg);
/* The thread ended, once this rank is past its last step. */
void watchdog_stop(void);

#endif
