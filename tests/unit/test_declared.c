/* The declared topology: Slurm topology.conf and CSV read, bad files refused with file and
 * line, and the measured grouping checked against it (labels differ; two nodes swapped;
 * a declared node missing; a measured node not declared; a spine cabled wrongly). */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/log.h"
#include "fabric/judge/declared.h"
#include "fabric/io/rundir.h"

static char tmp[] = "/tmp/fp-decl-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[8][512];
	static int k;
	char *p = path[k++ % 8];
	FILE *f;

	snprintf(p, 512, "%s/%s", tmp, name);
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
	return p;
}

static const char *conf = "# made by hand\n"
			  "SwitchName=leaf00 Nodes=node[01-03] LinkSpeed=200\n"
			  "\n"
			  "SwitchName=leaf01 Nodes=node[04-05],node06\n"
			  "SwitchName=leaf02 Nodes=node07\n"
			  "SwitchName=spine00 Switches=leaf[00-01]\n"
			  "SwitchName=spine01 Switches=leaf02\n";

static const char *group_of(const struct decl *d, const char *host, int tier)
{
	for (int i = 0; i < d->n; i++)
		if (!strcmp(d->host[i], host))
			return d->group[i * d->ntiers + tier];
	return "(none)";
}

static void test_read(void)
{
	struct decl d;
	char err[DECL_ERR_MAX] = "";

	CHECK(decl_read(write_file("topology.conf", conf), &d, err) == 0);
	CHECK_STR(err, "");
	CHECK(d.n == 7 && d.ntiers == 2);
	CHECK_STR(d.format, "topology.conf");
	CHECK_STR(group_of(&d, "node02", 0), "leaf00");
	CHECK_STR(group_of(&d, "node06", 0), "leaf01");
	CHECK_STR(group_of(&d, "node06", 1), "spine00");
	CHECK_STR(group_of(&d, "node07", 1), "spine01");
	decl_free(&d);
	CHECK(decl_read(write_file("racks.csv", "host,leaf\n# rack A\nn1,A\nn2,A\r\nn3,B\n"), &d, err) == 0);
	CHECK(d.n == 3 && d.ntiers == 1);
	CHECK_STR(d.format, "csv");
	CHECK_STR(group_of(&d, "n2", 0), "A");
	decl_free(&d);
}

static void test_read_bad(void)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "SwitchName=a Nodes=n[1-3]\nSwitchName=b Nodes=n3\n", ":2: host 'n3' is declared twice (first on line 1)" },
		{ "SwitchName=a Nodes=n1\nSwitchName=top Switches=a,b\n",
		  ":2: switch 'b' is listed under 'top' but never defined" },
		{ "SwitchName=a Nodes=n1\nNodes=n2\n", ":2: a line without SwitchName=" },
		{ "SwitchName=a Nodes=n[1-\n", ":1: Nodes=n[1-: hostlist" },
		{ "SwitchName=a Nodes=n1\nSwitchName=a Nodes=n2\n", ":2: switch 'a' is defined twice" },
		{ "SwitchName=a Nodes=n1 junk\n", ":1: 'junk' is not Key=Value" },
		{ "SwitchName=s Switches=a\nSwitchName=a Nodes=n1\nSwitchName=b Nodes=n2\n",
		  ":3: uneven tree: 'n2' under 1 switch level (b), 'n1' (line 2) under 2 (a under s)" },
		{ "n1,A,S\nn2,B\n", ":2: 2 fields where line 1 has 3" },
		{ "n1\n", ":1: expected host,leaf" },
		{ "n1,,S\n", ":1: field 2 ('') is empty" },
		{ "n1,A\nn1,B\n", ":2: host 'n1' is declared twice (first on line 1)" },
		{ "# nothing\n", ": no node is declared" },
		{ "SwitchName=a Nodes=n1 Switches=b\nSwitchName=b Switches=a\n",
		  ":1: the switches above 'a' form a loop or more than 8 levels" },
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct decl d;
		char err[DECL_ERR_MAX] = "", name[32];
		const char *path;

		snprintf(name, sizeof name, "bad%zu", i);
		path = write_file(name, bad[i].text);
		CHECK(decl_read(path, &d, err) == FP_EUSAGE);
		CHECK(d.n == 0 && d.host == NULL);
		if (strncmp(err, path, strlen(path)) || !strstr(err, bad[i].want)) {
			check_failed_++;
			printf("#   case %zu: '%s', expected '%s%s'\n", i, err, path, bad[i].want);
		}
	}
}

struct seen {
	char text[1024];
	int n;
};

static void seen_row(void *ctx, const struct decl_row *r)
{
	struct seen *s = ctx;

	s->n++;
	snprintf(s->text + strlen(s->text), sizeof s->text - strlen(s->text), "%s:%s:%s:%s:%s ", r->host,
		 decl_problem_name(r->problem), r->declared, r->measured, r->matches);
}

/* The measured grouping: node03 and node04 swapped, labels not the declared ones, node07
 * missing, node08 not declared; then a spine cabled wrongly (leaf02's nodes under spine A). */
static void test_check(void)
{
	struct decl d;
	struct rundir rd;
	struct seen s = { "", 0 };
	char err[RUNDIR_ERR_MAX], dir[300];

	snprintf(dir, sizeof dir, "%s/run", tmp);
	mkdir(dir, 0755);
	write_file("run/topology.csv", "host,order,tier0,tier1,offset_us\n"
				       "node01,0,leaf02,spineA,0\nnode02,1,leaf02,spineA,0\nnode04,2,leaf02,spineA,0\n"
				       "node03,3,leaf00,spineA,0\nnode05,4,leaf00,spineA,0\nnode06,5,leaf00,spineA,0\n"
				       "node08,6,leaf01,spineB,0\n");
	CHECK(decl_read(write_file("topology.conf", conf), &d, err) == 0);
	CHECK(rundir_load(dir, &rd, err) == 0);
	CHECK(decl_check(&d, &rd, seen_row, &s) == 4);
	CHECK_STR(s.text, "node07:missing:leaf02:: node08:undeclared::leaf01: "
			  "node03:wrong_group:leaf00:leaf00:leaf01 node04:wrong_group:leaf01:leaf02:leaf00 ");
	rundir_free(&rd);
	/* the same nodes but leaf02 (node07, node08 here) under the other spine's label */
	write_file("run/topology.csv", "host,order,tier0,tier1,offset_us\n"
				       "node01,0,L1,S1,0\nnode02,1,L1,S1,0\nnode03,2,L1,S1,0\nnode04,3,L2,S1,0\n"
				       "node05,4,L2,S1,0\nnode06,5,L2,S1,0\nnode07,6,L3,S1,0\n");
	s = (struct seen){ "", 0 };
	CHECK(rundir_load(dir, &rd, err) == 0);
	CHECK(decl_check(&d, &rd, seen_row, &s) == 1);
	CHECK_STR(s.text, "node07:wrong_group:spine01:S1:spine00 ");
	rundir_free(&rd);
	decl_free(&d);
}

int main(void)
{
	CHECK(mkdtemp(tmp) != NULL);
	RUN(test_read);
	RUN(test_read_bad);
	RUN(test_check);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
	CHECK(system(cmd) == 0);
	CHECK_EXIT();
}
