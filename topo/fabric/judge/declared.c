/* declared.c — see declared.h. */
#include "declared.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/results.h"
#include "core/log.h"
#include "fabric/io/csv_read.h"
#include "groups.h"
#include "fabric/io/hostlist.h"
#include "fabric/io/strtab.h"

#define TIERS_MAX RUNDIR_TIERS_MAX

/* A switch of a topology.conf: its name, its parent, the line that defined it. */
struct sw {
	char *name, *parent;
	int line;
};

/* A host of a topology.conf, under its leaf (the chain above is known once all is read). */
struct conf_host {
	char *host, *leaf;
	int line;
};

struct parse {
	const char *file;
	char *err;
	struct decl *d;
	int *host_line;    /* n: where each host was listed */
	int cap;
	struct strtab hosts;  /* d->host[i] has id i: duplicates found by hashing */
	struct strtab swname; /* sw[id] is the switch named swname.str[id] */
	struct sw *sw;
	int nsw, swcap;
	struct conf_host *ch; /* topology.conf: hosts read, chains pending */
	int nch, chcap;
	int names;            /* names the file's hostlists expanded to so far (DECL_NAMES_MAX) */
};

const char *decl_problem_name(int problem)
{
	static const char *const names[] = { "wrong_group", "missing", "undeclared" };

	return problem >= 0 && problem <= DECL_UNDECLARED ? names[problem] : "?";
}

void decl_free(struct decl *d)
{
	for (int i = 0; d->host && i < d->n; i++)
		free(d->host[i]);
	for (int i = 0; d->group && i < d->n * d->ntiers; i++)
		free(d->group[i]);
	free(d->host);
	free(d->group);
	*d = (struct decl){ 0 };
}

#define PFAIL(line, ...)                                                                     \
	do {                                                                                 \
		int n_ = snprintf(p->err, DECL_ERR_MAX, "%.300s:%d: ", p->file, line);       \
		if (n_ < 0 || n_ >= DECL_ERR_MAX)                                            \
			n_ = DECL_ERR_MAX - 1;                                               \
		snprintf(p->err + n_, DECL_ERR_MAX - (size_t)n_, __VA_ARGS__);               \
		return FP_EUSAGE;                                                            \
	} while (0)

/* Add host with its groups (ntiers of them, copied); refuse a host listed twice. */
static int host_add(struct parse *p, const char *host, char *const *groups, int line)
{
	struct decl *d = p->d;
	int id = strtab_intern(&p->hosts, host);

	if (id < 0)
		PFAIL(line, "out of memory");
	if (id < d->n)
		PFAIL(line, "host '%s' is declared twice (first on line %d)", host, p->host_line[id]);
	if (d->n == p->cap) {
		p->cap = p->cap * 2 + 64;
		char **h = realloc(d->host, sizeof *h * (size_t)p->cap);
		if (h)
			d->host = h;
		char **g = h ? realloc(d->group, sizeof *g * (size_t)p->cap * TIERS_MAX) : NULL;
		if (g)
			d->group = g;
		int *l = g ? realloc(p->host_line, sizeof *l * (size_t)p->cap) : NULL;
		if (!l)
			PFAIL(line, "out of memory");
		p->host_line = l;
	}
	if (!(d->host[d->n] = strdup(host)))
		PFAIL(line, "out of memory");
	for (int k = 0; k < TIERS_MAX; k++)
		d->group[(size_t)d->n * TIERS_MAX + k] = NULL;
	for (int k = 0; k < d->ntiers; k++)
		if (!(d->group[(size_t)d->n * TIERS_MAX + k] = strdup(groups[k]))) {
			d->n++;
			PFAIL(line, "out of memory");
		}
	p->host_line[d->n++] = line;
	return 0;
}

/* ---------------------------------------------------------------- CSV */

static int csv_line(struct parse *p, char *text, int line, int *header_seen)
{
	char *f[TIERS_MAX + 2];
	int n = csv_read_split(text, f, TIERS_MAX + 2);

	if (!*header_seen && !p->d->n && !strcasecmp(f[0], "host")) {
		*header_seen = 1;
		return 0;
	}
	if (n < 2 || n > TIERS_MAX + 1)
		PFAIL(line, "expected host,leaf[,spine...] (2 to %d fields), got %d", TIERS_MAX + 1, n);
	if (p->d->ntiers && n - 1 != p->d->ntiers)
		PFAIL(line, "%d fields where line %d has %d: every line needs the same tiers", n, p->host_line[0],
		      p->d->ntiers + 1);
	for (int i = 0; i < n; i++)
		if (!*f[i] || strpbrk(f[i], " \t"))
			PFAIL(line, "field %d ('%s') is empty or holds white space", i + 1, f[i]);
	p->d->ntiers = n - 1;
	return host_add(p, f[0], f + 1, line);
}

/* ---------------------------------------------------------------- topology.conf */

static struct sw *sw_find(struct parse *p, const char *name)
{
	int id = strtab_find(&p->swname, name);

	return id >= 0 ? &p->sw[id] : NULL;
}

static struct sw *sw_add(struct parse *p, const char *name, int line)
{
	int id = strtab_intern(&p->swname, name);

	if (id < 0)
		return NULL;
	if (id < p->nsw)
		return &p->sw[id];
	if (p->nsw == p->swcap) {
		struct sw *q = realloc(p->sw, sizeof *q * (size_t)(p->swcap = p->swcap * 2 + 16));

		if (!q)
			return NULL;
		p->sw = q;
	}
	p->sw[p->nsw] = (struct sw){ p->swname.str[id], NULL, line };
	return &p->sw[p->nsw++];
}

/* The members of switch name: child switches (Switches=) or hosts (Nodes=). */
static int conf_members(struct parse *p, const char *name, const char *list, int switches, int line)
{
	char **names = NULL;
	int n = 0, rc = 0;

	if (hostlist_expand_max(list, DECL_NAMES_MAX - p->names, &names, &n, p->err, DECL_ERR_MAX)) {
		char why[DECL_ERR_MAX];

		if (!strncmp(p->err, "hostlist: more than", 19)) /* the budget of the whole file, spent */
			snprintf(why, sizeof why, "the file's lists expand to more than %d names (the cap of a "
				 "declared topology)", DECL_NAMES_MAX);
		else
			snprintf(why, sizeof why, "%s", p->err);
		PFAIL(line, "%s=%.100s: %.300s", switches ? "Switches" : "Nodes", list, why);
	}
	p->names += n;
	for (int i = 0; rc == 0 && i < n; i++) {
		if (switches) {
			struct sw *c = sw_add(p, names[i], -1);

			if (!c || (!c->parent && !(c->parent = strdup(name))))
				rc = -1;
			else if (strcmp(c->parent, name)) {
				snprintf(p->err, DECL_ERR_MAX, "%s:%d: switch '%s' is under two switches", p->file, line, names[i]);
				rc = FP_EUSAGE;
			}
			continue;
		}
		if (p->nch == p->chcap) {
			struct conf_host *q = realloc(p->ch, sizeof *q * (size_t)(p->chcap = p->chcap * 2 + 64));

			if (!q) {
				rc = -1;
				break;
			}
			p->ch = q;
		}
		p->ch[p->nch] = (struct conf_host){ names[i], strdup(name), line };
		names[i] = NULL;
		rc = p->ch[p->nch++].leaf ? 0 : -1;
	}
	hostlist_free(names, n);
	if (rc == -1)
		PFAIL(line, "out of memory");
	return rc;
}

static int conf_line(struct parse *p, char *text, int line)
{
	char *name = NULL, *nodes = NULL, *switches = NULL, *save = NULL;
	struct sw *s;

	for (char *tok = strtok_r(text, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq)
			PFAIL(line, "'%s' is not Key=Value", tok);
		*eq = 0;
		if (!strcasecmp(tok, "SwitchName"))
			name = eq + 1;
		else if (!strcasecmp(tok, "Nodes"))
			nodes = eq + 1;
		else if (!strcasecmp(tok, "Switches"))
			switches = eq + 1;
	}
	if (!name || !*name)
		PFAIL(line, "a line without SwitchName=");
	if ((s = sw_find(p, name)) && s->line > 0)
		PFAIL(line, "switch '%s' is defined twice (first on line %d)", name, s->line);
	if (!(s = sw_add(p, name, line)))
		PFAIL(line, "out of memory");
	s->line = line;
	if (nodes && conf_members(p, name, nodes, 0, line))
		return FP_EUSAGE;
	return switches ? conf_members(p, name, switches, 1, line) : 0;
}

/* A chain of switches, leaf first, as text: "s1 under top". */
static void chain_text(char *const *chain, int depth, char *out, size_t len)
{
	size_t at = 0;

	out[0] = 0;
	for (int k = 0; k < depth && at < len; k++)
		at += (size_t)snprintf(out + at, len - at, "%s%.60s", k ? " under " : "", chain[k]);
}

/* Every host's chain of switches, leaf first; all hosts must have chains of one length. */
static int conf_finish(struct parse *p)
{
	struct conf_host *h = p->ch;
	int nh = p->nch;

	for (int i = 0; i < p->nsw; i++)
		if (p->sw[i].line < 0)
			PFAIL(sw_find(p, p->sw[i].parent)->line, "switch '%s' is listed under '%s' but never defined by a "
			      "SwitchName= line", p->sw[i].name, p->sw[i].parent);
	if (!nh) {
		snprintf(p->err, DECL_ERR_MAX, "%s: no SwitchName=... Nodes=... line: no node is declared", p->file);
		return FP_EUSAGE;
	}
	for (int i = 0; i < nh; i++) {
		char *chain[TIERS_MAX];
		int depth = 0;

		struct sw *s = sw_find(p, h[i].leaf);

		for (; s && depth < TIERS_MAX; s = s->parent ? sw_find(p, s->parent) : NULL)
			chain[depth++] = s->name;
		if (s)
			PFAIL(h[i].line, "the switches above '%s' form a loop or more than %d levels", h[i].leaf, TIERS_MAX);
		if (p->d->ntiers && depth != p->d->ntiers) {
			char mine[80], first[80];

			chain_text(chain, depth, mine, sizeof mine);
			chain_text(p->d->group, p->d->ntiers, first, sizeof first);
			/* short, the file and line first: a run's option error holds some 240 bytes */
			snprintf(p->err, DECL_ERR_MAX, "%.160s:%d: uneven tree: '%.60s' under %d switch level%s (%s), "
				 "'%.60s' (line %d) under %d (%s)", p->file, h[i].line, h[i].host, depth,
				 depth == 1 ? "" : "s", mine, p->d->host[0], p->host_line[0], p->d->ntiers, first);
			return FP_EUSAGE;
		}
		p->d->ntiers = depth;
		if (host_add(p, h[i].host, chain, h[i].line))
			return FP_EUSAGE;
	}
	return 0;
}

/* ---------------------------------------------------------------- reading */

/* The length of the line at t (up to end): up to its LF, CRLF or lone CR; *next past it. */
static size_t line_len(const char *t, const char *end, const char **next)
{
	size_t n = 0;

	while (t + n < end && t[n] != '\n' && t[n] != '\r')
		n++;
	*next = t + n + (t + n < end ? (t[n] == '\r' && t + n + 1 < end && t[n + 1] == '\n' ? 2 : 1) : 0);
	return n;
}

/* A topology.conf: some line (before a '#') holds SwitchName=. */
static int is_conf(const char *text, const char *end)
{
	for (const char *t = text, *next; t < end; t = next) {
		size_t n = line_len(t, end, &next);

		for (size_t i = 0; i + 11 <= n && t[i] != '#'; i++)
			if (!strncasecmp(t + i, "SwitchName=", 11))
				return 1;
	}
	return 0;
}

/* [i * TIERS_MAX + k] while reading, [i * ntiers + k] from here on */
static void compact(struct decl *d)
{
	for (int i = 0; i < d->n; i++)
		for (int k = 0; k < TIERS_MAX; k++) {
			char *g = d->group[(size_t)i * TIERS_MAX + k];

			d->group[(size_t)i * TIERS_MAX + k] = NULL;
			if (k < d->ntiers)
				d->group[(size_t)i * d->ntiers + k] = g;
		}
}

int decl_parse(char *text, size_t len, const char *file, struct decl *d, char *err)
{
	struct parse p = { .file = file, .err = err, .d = d };
	char *t = text, *end = text + len, *nul = memchr(text, 0, len);
	const char *next;
	int line = 0, rc = 0, conf, header = 0;

	*d = (struct decl){ 0 };
	if (nul) {
		line = 1;
		for (const char *q = text; q < nul; q++)
			line += *q == '\n';
		snprintf(err, DECL_ERR_MAX, "%s:%d: a NUL byte: not a text file", file, line);
		return FP_EUSAGE;
	}
	if (len >= 3 && !memcmp(t, "\xef\xbb\xbf", 3)) /* a UTF-8 byte order mark, as every reader takes it */
		t += 3;
	conf = is_conf(t, end);
	snprintf(d->format, sizeof d->format, "%s", conf ? "topology.conf" : "csv");
	for (; rc == 0 && t < end; t = (char *)next) {
		size_t n = line_len(t, end, &next);

		line++;
		t[n] = 0;
		t[strcspn(t, "#")] = 0;
		char *s = t + strspn(t, " \t");
		if (*s)
			rc = conf ? conf_line(&p, s, line) : csv_line(&p, s, line, &header);
	}
	if (rc == 0 && conf)
		rc = conf_finish(&p);
	if (rc == 0 && !d->n) {
		snprintf(err, DECL_ERR_MAX, "%s: no node is declared", file);
		rc = FP_EUSAGE;
	}
	for (int i = 0; i < p.nch; i++) {
		free(p.ch[i].host);
		free(p.ch[i].leaf);
	}
	free(p.ch);
	for (int i = 0; i < p.nsw; i++)
		free(p.sw[i].parent); /* the names are swname's */
	free(p.sw);
	strtab_free(&p.swname);
	strtab_free(&p.hosts);
	free(p.host_line);
	if (d->group)
		compact(d);
	if (rc) /* err holds names from the file raw: whoever prints it escapes it, once */
		decl_free(d);
	return rc;
}

int decl_read(const char *file, struct decl *d, char *err)
{
	/* a regular file or a pipe (--declared <(…), /dev/stdin), read once into memory, capped */
	char why[128], *text;
	size_t len;
	int rc = results_input_read(file, 1, DECL_BYTES_MAX, &text, &len, why, sizeof why);

	*d = (struct decl){ 0 };
	if (rc) {
		if (!strncmp(why, "more than", 9))
			snprintf(err, DECL_ERR_MAX, "%s: more than %d MiB: the cap of a declared topology", file,
				 DECL_BYTES_MAX >> 20);
		else
			snprintf(err, DECL_ERR_MAX, "%s: %s", file, why);
		return rc;
	}
	rc = decl_parse(text, len, file, d, err);
	free(text);
	return rc;
}
