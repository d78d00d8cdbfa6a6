/* emit_actions.c — the actions a run suggests, written for a person to apply (emit.h): a Slurm
 * drain script for the nodes at fault, and a Kubernetes health label per node. Pure. Every
 * name passed the name policy of its format; every reason is one single-quoted shell word or
 * one double-quoted YAML scalar, with no byte outside printable ASCII (a reason is a line of
 * `sinfo -R`, never a second one). */
#include <math.h>
#include <string.h>

#include "core/escape.h"
#include "core/log.h"
#include "emit.h"
#include "run_model.h"
#include "topo_csv.h"

/* what reason r becomes in a file: printable ASCII, at most EMIT_REASON_MAX - 1 bytes */
void emit_reason_clean(const char *r, char *out)
{
	size_t k = 0;

	for (; r && *r && k + 1 < EMIT_REASON_MAX; r++)
		out[k++] = (unsigned char)*r >= 0x20 && (unsigned char)*r < 0x7f ? *r : '?';
	out[k] = 0;
}

static const char drain_head[] =
	"#!/bin/sh\n"
	"# Drain the Slurm nodes this fabprobe run found at fault: a confirmed finding on the node (one\n"
	"# never measured included), or a link counter of one of its ports that rose during the run. A\n"
	"# link between two nodes drains neither (report.html names both ends). Written, never applied:\n"
	"# read it, then run it where scontrol may change nodes (the SlurmUser or root):\n"
	"#   sh drain-slurm.sh            State=DRAIN, the reason naming this run and the finding\n"
	"#   sh drain-slurm.sh --undrain  State=RESUME, for each node whose reason is still this run's\n"
	"# Before it acts on a name, it asks Slurm to resolve it: exactly one node, of that very name\n"
	"# (never ALL, a NodeSet or a list); a node Slurm holds for another reason is left as it is.\n";

static const char drain_body[] =
	"set -eu\n"
	"case ${1:-} in\n"
	"'') act=drain ;;\n"
	"--undrain) act=undrain ;;\n"
	"*) printf '%s\\n' 'usage: sh drain-slurm.sh [--undrain]' >&2; exit 2 ;;\n"
	"esac\n"
	"# one NAME: Slurm resolves NAME to exactly one node record, and it is NAME's (into $rec)\n"
	"one() {\n"
	"\trec=$(scontrol show node -o \"$1\" 2>/dev/null) || return 1\n"
	"\t[ \"$(printf '%s\\n' \"$rec\" | wc -l)\" -eq 1 ] || return 1\n"
	"\tcase $rec in \"NodeName=$1 \"*) return 0 ;; esac\n"
	"\treturn 1\n"
	"}\n"
	"# node NAME REASON\n"
	"node() {\n"
	"\tif ! one \"$1\"; then\n"
	"\t\tprintf 'skipped %s: Slurm does not resolve it to exactly one node of that name\\n' \"$1\"\n"
	"\t\treturn\n"
	"\tfi\n"
	"\twhy=$(scontrol show node \"$1\" | sed -n 's/^ *Reason=//p')\n"
	"\tcase $why in\n"
	"\t\"$run: \"*) ours=1 ;;\n"
	"\t*) ours=0 ;;\n"
	"\tesac\n"
	"\tif [ \"$act\" = drain ]; then\n"
	"\t\tif [ -n \"$why\" ] && [ $ours = 0 ]; then\n"
	"\t\t\tprintf 'left %s as it is: Slurm holds it for another reason (%s)\\n' \"$1\" \"$why\"\n"
	"\t\t\treturn\n"
	"\t\tfi\n"
	"\t\tscontrol update NodeName=\"$1\" State=DRAIN Reason=\"$2\"\n"
	"\t\tprintf 'drained %s: %s\\n' \"$1\" \"$2\"\n"
	"\t\treturn\n"
	"\tfi\n"
	"\tif [ $ours = 1 ]; then\n"
	"\t\tscontrol update NodeName=\"$1\" State=RESUME\n"
	"\t\tprintf 'resumed %s\\n' \"$1\"\n"
	"\telse\n"
	"\t\tprintf 'left %s as it is: its reason is not this run'\\''s (%s)\\n' \"$1\" \"${why:-none}\"\n"
	"\tfi\n"
	"}\n";

int emit_drain_slurm(FILE *f, const struct emit_health *h, char *err)
{
	char tag[EMIT_REASON_MAX], why[EMIT_ERR_MAX];
	int nfail = 0;

	emit_reason_clean(h->run_tag, tag);
	fputs(drain_head, f);
	emit_comment(f, h->how);
	fputs(drain_body, f);
	fputs("run=", f);
	escape_shell_write(f, tag);
	fputc('\n', f);
	for (int i = 0; i < h->n; i++) {
		char reason[EMIT_REASON_MAX], line[2 * EMIT_REASON_MAX + 4];

		if (!h->why[i])
			continue;
		nfail++;
		if (emit_name_check(EMIT_FMT_SLURM, h->hosts[i], why)) {
			emit_comment(f, why); /* a name scontrol would read as a list: said, not drained */
			continue;
		}
		emit_reason_clean(h->why[i], reason);
		snprintf(line, sizeof line, "%s: %s", tag, reason);
		emit_reason_clean(line, reason);
		fputs("node ", f);
		escape_shell_write(f, h->hosts[i]);
		fputc(' ', f);
		escape_shell_write(f, reason);
		fputc('\n', f);
	}
	if (!nfail)
		fputs("printf '%s\\n' 'fabprobe found no node at fault: nothing to drain'\n", f);
	(void)err;
	return 0;
}

int emit_k8s_health(FILE *f, const struct emit_health *h, char *err)
{
	char tag[EMIT_REASON_MAX], key[EMIT_ERR_MAX + 32];
	int rc;

	if (!emit_label_prefix_ok(h->label_prefix)) {
		snprintf(err, EMIT_ERR_MAX, "label prefix '%.100s' is not a DNS subdomain", h->label_prefix);
		return FP_EUSAGE;
	}
	for (int i = 0; i < h->n; i++)
		if ((rc = emit_name_check(EMIT_FMT_K8S, h->hosts[i], err)))
			return rc;
	emit_reason_clean(h->run_tag, tag);
	fputs("# The health of each node by this fabprobe run, for:\n"
	      "#   kubectl apply --server-side --field-manager=fabprobe-health -f THIS\n"
	      "# (the same field manager each time: a node that passes loses the taint an earlier run gave)\n", f);
	emit_comment(f, h->how);
	for (int i = 0; i < h->n; i++) {
		char reason[EMIT_REASON_MAX];

		fputs("---\napiVersion: v1\nkind: Node\nmetadata:\n", f);
		emit_yaml_line(f, "  name: ", NULL, h->hosts[i]);
		fputs("  labels:\n", f);
		snprintf(key, sizeof key, "%s/health", h->label_prefix);
		emit_yaml_line(f, "    ", key, h->why[i] ? "fail" : "pass");
		fputs("  annotations:\n", f);
		snprintf(key, sizeof key, "%s/health-run", h->label_prefix);
		emit_yaml_line(f, "    ", key, tag);
		snprintf(key, sizeof key, "%s/finding", h->label_prefix);
		emit_reason_clean(h->why[i] ? h->why[i] : "none", reason);
		emit_yaml_line(f, "    ", key, reason);
		if (h->taint && h->why[i]) {
			snprintf(key, sizeof key, "%s/health", h->label_prefix);
			fputs("spec:\n  taints:\n", f);
			emit_yaml_line(f, "  - key: ", NULL, key);
			fputs("    value: \"fail\"\n    effect: \"NoSchedule\"\n", f);
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- the nodes at fault */

/* append "; text" to reasons[a] (EMIT_REASON_MAX each) */
static void reason_add(char *reasons, int a, const char *text)
{
	char *r = reasons + (size_t)a * EMIT_REASON_MAX;
	size_t k = strlen(r);

	if (k + 3 < EMIT_REASON_MAX && snprintf(r + k, EMIT_REASON_MAX - k, "%s%s", k ? "; " : "", text) < 0)
		r[k] = 0;
}

void run_model_reasons(const struct run_model *m, char *reasons, const char **why)
{
	for (int e = 0; e < m->n; e++)
		reasons[(size_t)e * EMIT_REASON_MAX] = 0;
	for (int i = 0; !m->single_node && i < m->npaths; i++) {
		const struct run_model_path *p = &m->path[i];
		struct emit_topo t = { .n = m->n, .hosts = m->hosts, .tree = p->map };

		for (int k = 0; t.tree && k < p->held->n; k++) {
			struct topo_finding fd;
			char text[EMIT_REASON_MAX];

			if (!susp_on_node(&p->held->s[k]) || p->held->s[k].a < 0 || p->held->s[k].a >= m->n)
				continue;
			topo_finding_get(&t, p->held, k, &fd);
			if (isfinite(fd.v) && isfinite(fd.e) && fd.metric[0])
				snprintf(text, sizeof text, "%s on %s (%s %.3g, expected %.3g)", susp_kind_name(fd.s->kind),
					 p->path, fd.metric, fd.v, fd.e);
			else
				snprintf(text, sizeof text, "%s on %s", susp_kind_name(fd.s->kind), p->path);
			reason_add(reasons, fd.s->a, text);
		}
	}
	for (int i = 0; !m->single_node && m->links && i < m->links->nfind; i++) {
		const struct ctr_finding *f = &m->links->find[i];
		char text[EMIT_REASON_MAX];

		for (int e = 0; e < m->n; e++)
			if (!strcmp(m->hosts[e], f->node)) {
				if (snprintf(text, sizeof text, "%s %s (%s)", f->kind, f->port, f->what) >= (int)sizeof text)
					strcpy(text + sizeof text - 5, "...)");
				reason_add(reasons, e, text);
			}
	}
	for (int i = 0; !m->single_node && i < m->nnode_finds; i++) {
		const struct run_node_finding *f = &m->node_finds[i];
		char text[EMIT_REASON_MAX];

		for (int e = 0; e < m->n; e++)
			if (!strcmp(m->hosts[e], f->host)) {
				snprintf(text, sizeof text, "%s (%s)", f->kind, f->what);
				reason_add(reasons, e, text);
			}
	}
	for (int e = 0; e < m->n; e++)
		why[e] = reasons[(size_t)e * EMIT_REASON_MAX] ? reasons + (size_t)e * EMIT_REASON_MAX : NULL;
}
