/* topo_cmd.h — the latency-map stage: `fabprobe topo`, and the writer `run` shares. */
#ifndef FP_CMD_H
#define FP_CMD_H

#include "fabric/emit.h"

/* Write topology.csv, tiers.csv, suspects.csv and (with_schedulers) every scheduler file into
 * dir. A file whose format cannot hold a host name is not written (said on stderr):
 * FP_EUSAGE after the rest. */
int topo_outputs_write(const char *dir, const struct emit_topo *t, int with_schedulers);
int cmd_topo(int argc, char **argv);

#endif
