/* fuzz_inventory.c — the inventory's decoding: a captured sysfs tree (and an hwloc XML file)
 * built from the input, probed as `fabprobe inventory --sysfs-root DIR [--hwloc-xml FILE]`
 * does, then locality, paths, mismatches, the CSV files and the table. Also each file's text
 * through the pure decoders (rates, states, GIDs).
 *
 * The input is a small archive, one record per line that starts with '@':
 *     @F <path>          a file; its text is every following line up to the next '@' line
 *     @L <path> <target> a symbolic link (sysfs device links: ../../../bus/pci/devices/…)
 *     @P <path>          a FIFO (a captured tree must never hang the probe)
 *     @X                 the hwloc XML; its text follows as for @F
 * Paths are relative to the tree, without "..". Seeds: tests/fixtures/<node>/ packed by
 * tests/fuzz/seeds.sh.
 *
 * A folder nvml/ of the tree is read as NVML's captured answers (--nvml-capture): each GPU's
 * domain and health words hold their shape, and gpus.csv's domains read back as the node's.
 *
 * The same tree's link counters (node/counters.h), read twice: the same tree never makes a
 * finding, and every row is a judged flap or error counter at its first value (or one at its
 * maximum, noted); read again with
 * every counter one higher, only a judged flap or error counter makes one. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>

#include "fuzz.h"
#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif
#include "inventory/inv_report.h"
#include "inventory/inv_stage.h"
#include "fabric/io/csv_read.h"
#include "fabric/io/ctr_csv.h"
#include "fabric/io/inv_csv.h"
#include "node/counters.h"
#include "node/inv_nvml.h"
#include "node/inv_probe.h"
#include "node/inventory.h"

#define ARCHIVE_RECORDS_MAX 512

static int path_ok(const char *p)
{
	if (!*p || *p == '/' || strlen(p) > 200)
		return 0;
	for (const char *s = p; *s; s++)
		if ((unsigned char)*s < 0x20 || (s[0] == '.' && s[1] == '.' && (s == p || s[-1] == '/')))
			return 0;
	return 1;
}

/* mkdir -p of rel's parent directories under root; 0 when every one is a real directory. A
 * parent that an earlier record made a link (or a FIFO, a file) refuses the record: the
 * harness writes only inside the tree, never through a link to elsewhere (it runs as root). */
static int parents(const char *root, const char *rel)
{
	char path[512];
	struct stat st;
	int n = snprintf(path, sizeof path, "%s/%s", root, rel);

	for (int i = (int)strlen(root) + 1; i < n; i++)
		if (path[i] == '/') {
			path[i] = 0;
			mkdir(path, 0755);
			if (lstat(path, &st) || !S_ISDIR(st.st_mode))
				return -1;
			path[i] = '/';
		}
	return 0;
}

/* A regular file at path, never through a link nor into a FIFO (a second record of the same
 * path after a @P would otherwise block the harness in open). */
static void put_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	struct stat st;

	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fd, 0) == 0)
		(void)!write(fd, text, len);
	close(fd);
}

/* One record: kind, header arguments, text. */
static void record(const char *root, const char *xml, char kind, char *args, const char *text, size_t len)
{
	char path[512], *target = NULL;

	if (kind == 'X') {
		put_file(xml, text, len);
		return;
	}
	if (kind == 'L' && (target = strchr(args, ' ')))
		*target++ = 0;
	if (!path_ok(args) || (kind == 'L' && (!target || !*target)))
		return;
	if (parents(root, args))
		return;
	snprintf(path, sizeof path, "%s/%s", root, args);
	if (kind == 'F')
		put_file(path, text, len);
	else if (kind == 'L')
		(void)!symlink(target, path);
	else if (kind == 'P')
		mkfifo(path, 0600);
}

/* The pure decoders on one file's first line. */
static void decode(const char *text, size_t len)
{
	char line[256], out[64];
	double gbps;
	int lanes;
	uint8_t gid[16];
	size_t n = len < sizeof line - 1 ? len : sizeof line - 1;

	memcpy(line, text, n);
	line[n] = 0;
	line[strcspn(line, "\n")] = 0;
	if (inv_rate_parse(line, &gbps, &lanes, out, sizeof out) == 0)
		FUZZ_ASSERT(gbps >= 0 && !isnan(gbps), "rate %g from '%s'", gbps, line);
	inv_state_parse(line, out, sizeof out);
	inv_gid_parse(line, gid);
}

/* Build the tree from the archive; 1 when it has an hwloc XML. */
static int unpack(const char *root, const char *xml, const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *p, *end;
	int records = 0, has_xml = 0;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	copy[size] = 0;
	end = copy + size;
	for (p = copy; p < end && records < ARCHIVE_RECORDS_MAX;) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *text, *next;

		if (*p != '@' || !nl || nl - p < 2) { /* not a record: skip the line */
			p = nl ? nl + 1 : end;
			continue;
		}
		*nl = 0;
		text = nl + 1;
		for (next = text; next < end && !(*next == '@' && (next == text || next[-1] == '\n'));)
			next = memchr(next, '\n', (size_t)(end - next)) ? (char *)memchr(next, '\n', (size_t)(end - next)) + 1 : end;
		if (strchr("FLPX", p[1]) && (p[2] == ' ' || p[1] == 'X')) {
			record(root, xml, p[1], p + (p[1] == 'X' ? 2 : 3), text, (size_t)(next - text));
			if (p[1] == 'F')
				decode(text, (size_t)(next - text));
			has_xml |= p[1] == 'X';
			records++;
		}
		p = next;
	}
	free(copy);
	return has_xml;
}

static void check_counters(const char *root, FILE *devnull)
{
	static struct ctr_delta d[CTR_MAX];
	struct ctr_set a, b;
	int n;

	if (ctr_read(root, &a) || ctr_read(root, &b))
		abort();
	FUZZ_ASSERT(a.n == b.n && a.n <= CTR_MAX, "two reads of one tree: %d and %d counters", a.n, b.n);
	n = ctr_deltas(&a, &b, NULL, 0, d, CTR_MAX);
	for (int i = 0; i < n && i < CTR_MAX; i++) {
		FUZZ_ASSERT(!ctr_finding(&d[i]), "a finding from the same tree read twice: %s %s", d[i].port, d[i].name);
		FUZZ_ASSERT(d[i].after == d[i].before && (d[i].note == CTR_NOTE_SATURATED || (d[i].note == CTR_NOTE_NONE &&
			    d[i].judged && (d[i].cls == CTR_FLAP || d[i].cls == CTR_ERRORS))),
			    "a row that says nothing: %s %s", d[i].port, d[i].name);
	}
	for (int i = 0; i < b.n; i++)
		b.v[i].v += b.v[i].v < UINT64_MAX;
	n = ctr_deltas(&a, &b, NULL, 0, d, CTR_MAX);
	for (int i = 0; i < n && i < CTR_MAX; i++) {
		struct ctr_csv_row r = { .node = "fuzz", .port = d[i].port, .counter = d[i].name,
					 .cls = ctr_class_name(d[i].cls), .before = -1, .after = -1, .delta = -1 };

		FUZZ_ASSERT(!ctr_finding(&d[i]) || (d[i].judged && (d[i].cls == CTR_FLAP || d[i].cls == CTR_ERRORS)),
			    "a finding of a counter not judged: %s %s", d[i].port, d[i].name);
		ctr_csv_write(devnull, &r);
	}
	ctr_set_free(&a);
	ctr_set_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char root[128], xml[128], out[128], nvml[160], file[192];
	static struct inv_node nodes[2];
	struct inv_probe_ctx ctx = { 0 };
	struct inv_path paths[INV_PATHS_MAX];
	static struct inv_mismatch mm[256];
	int ranks[2] = { 1, 1 };
	FILE *devnull = fopen("/dev/null", "w");

#ifdef HAVE_HWLOC
	/* one topology kept for the whole process keeps hwloc's plugins loaded: what its libxml2
	 * plugin leaves on malformed XML is then named (libxml2) and suppressed, not an unknown
	 * module (tests/sanitize/lsan.supp) */
	static hwloc_topology_t keep;
	if (!keep && hwloc_topology_init(&keep))
		abort();
#endif
	snprintf(root, sizeof root, "%s/sysfs", fuzz_dir());
	snprintf(xml, sizeof xml, "%s/topo.xml", fuzz_dir());
	snprintf(out, sizeof out, "%s/out", fuzz_dir());
	fuzz_rm_tree(root);
	fuzz_rm_tree(out);
	unlink(xml);
	if (mkdir(root, 0755) || mkdir(out, 0755) || !devnull)
		abort();
	ctx.sysfs_root = root;
	ctx.hwloc_xml = unpack(root, xml, data, size) ? xml : NULL;
	/* NVML's answers, captured: the tree's nvml/ folder (@F nvml/0000:18:00.0/uuid …) */
	snprintf(nvml, sizeof nvml, "%s/nvml", root);
	ctx.nvml_capture = access(nvml, F_OK) == 0 ? nvml : NULL;
	inv_node_init(&nodes[0]);
	snprintf(nodes[0].host, sizeof nodes[0].host, "fuzz");
	inv_probe_all(&ctx, &nodes[0]);
	FUZZ_ASSERT(nodes[0].nnics >= 0 && nodes[0].nnics <= INV_NICS_MAX, "%d NICs", nodes[0].nnics);
	for (int i = 0; i < nodes[0].nnics; i++) {
		const struct inv_nic *n = &nodes[0].nics[i];

		FUZZ_ASSERT(isnan(n->rate_gbps) || (n->rate_gbps > 0 && n->rate_gbps <= 100000),
			    "rate %g Gb/s written", n->rate_gbps);
		FUZZ_ASSERT(n->mtu == -1 || n->mtu > 0, "mtu %d written", n->mtu);
	}
	check_counters(root, devnull);
	/* a second node: the same with its first NIC gone, so that mismatches are found */
	nodes[1] = nodes[0];
	snprintf(nodes[1].host, sizeof nodes[1].host, "fuzz2");
	if (nodes[1].nnics > 0)
		nodes[1].nnics--;
	struct inv_report r = { .dir = out, .run_id = "fuzz", .nodes = nodes, .ranks = ranks, .n = 2,
				.paths = paths };
	r.npaths = inv_paths(nodes, 2, "nccl", paths, INV_PATHS_MAX);
	r.nmm = inv_mismatches(nodes, 2, "nccl", mm, 256);
	r.mm = mm;
	/* the rails of the GPU↔NIC pairing: whatever the tree, a list of verbs paths, none twice */
	char rails[INV_RAILS_MAX][INV_PATH_MAX];
	int nr = inv_rails(nodes, 2, rails);

	FUZZ_ASSERT(nr == 0 || (nr >= 3 && nr <= INV_RAILS_MAX), "inv_rails: %d rails", nr);
	for (int i = 0; i < nr; i++) {
		FUZZ_ASSERT(!strncmp(rails[i], "verbs:", 6), "inv_rails: %s is no verbs path", rails[i]);
		for (int j = 0; j < i; j++)
			FUZZ_ASSERT(strcmp(rails[i], rails[j]), "inv_rails: %s twice", rails[i]);
	}
	FUZZ_ASSERT(inv_report_write(&r) == 0, "inventory CSVs not written");
	inv_report_print(devnull, &r);
	/* NVML's fields: each GPU's domain is none or "<uuid>.<clique>", its health flags plain
	 * words; what gpus.csv says of the domains, its reader takes back (the same domain) */
	for (int g = 0; g < nodes[0].ngpus; g++) {
		char d[64], h[96];

		inv_gpu_domain(&nodes[0].gpus[g].nv, d, sizeof d);
		inv_fabric_health(&nodes[0].gpus[g].nv, h, sizeof h);
		FUZZ_ASSERT(!d[0] || (strlen(d) >= 38 && d[36] == '.'), "GPU %d: domain '%s'", g, d);
		for (const char *p = h; *p; p++)
			FUZZ_ASSERT(*p == '_' || *p == '+' || (*p >= 'a' && *p <= 'z'), "GPU %d: health '%s'", g, h);
	}
	const char *hosts[2] = { "fuzz", "fuzz2" };
	char **dom = NULL, err[CSV_READ_ERR_MAX], want[64];

	snprintf(file, sizeof file, "%s/gpus.csv", out);
	FUZZ_ASSERT(inv_csv_domains(file, hosts, 2, &dom, err) == 0, "gpus.csv's domains not read back: %s", err);
	inv_node_domain(&nodes[0], want, sizeof want);
	FUZZ_ASSERT(!strcmp(dom && dom[0] ? dom[0] : "", want), "gpus.csv's domain '%s', the node's '%s'",
		    dom && dom[0] ? dom[0] : "", want);
	free(dom);
	fclose(devnull);
	return 0;
}
