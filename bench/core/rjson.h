/* rjson.h — the one JSON reader, for meta.json, coll_meta.json and summary.json (RFC 8259;
 * nesting at most 32 deep, so that no file can exhaust the stack). Pure apart from
 * rjson_load's one read. */
#ifndef FP_RJSON_H
#define FP_RJSON_H

#include <stddef.h>

enum rjson_type { RJSON_NULL, RJSON_BOOL, RJSON_NUM, RJSON_STR, RJSON_ARR, RJSON_OBJ };

struct rjson {
	enum rjson_type type;
	double num;            /* NUM; BOOL: 0 or 1 */
	char *str;             /* STR (UTF-8; \u0000 becomes U+FFFD) */
	int n;                 /* ARR, OBJ: items */
	struct rjson *item;
	char **key;            /* OBJ: n keys */
};

/* Parse text (len bytes) into *v. 0, or FP_EUSAGE with err ("byte 123: expected ','"); *v is
 * then empty (RJSON_NULL) and needs no free. */
int rjson_parse(const char *text, size_t len, struct rjson *v, char *err, size_t errlen);
/* The member key of an object, or NULL (also when v is NULL or not an object). */
const struct rjson *rjson_get(const struct rjson *v, const char *key);
/* The string, or NULL when v is not a string. */
const char *rjson_str(const struct rjson *v);
void rjson_free(struct rjson *v);
/* Read file (at most max bytes; opened without blocking, so that a FIFO cannot hang the
 * reader) and parse it into *v, which must be an object. 0; 1 when there is no such file;
 * FP_EUSAGE when it is not a regular file, is unreadable, larger than max or malformed;
 * FP_ERUNTIME out of memory. Unless 0, err says why without the file's name ("not in this
 * directory", "larger than 16 MiB", "malformed (byte 3: expected ':')") and *v needs no free. */
int rjson_load(const char *file, size_t max, struct rjson *v, char *err, size_t errlen);

/* Checked reading of a document a program wrote, as it wrote it: each getter takes object o's
 * member key (where: o's place, "run" or "paths[2]", for the error); the first member that is
 * missing or not as asked sets bad and says "<file>: <where>.<key>: <what>" in err. A number
 * may be null (NAN); a whole number must lie in [lo, hi]. Once bad, getters return "", NAN, lo,
 * 0 or NULL and say nothing more. */
struct rjson_rd {
	const char *file;
	char *err;
	size_t len;
	int bad;
};
void rjson_fail(struct rjson_rd *d, const char *where, const char *what);
const struct rjson *rjson_want(struct rjson_rd *d, const struct rjson *o, const char *where, const char *key,
			       enum rjson_type t);
const char *rjson_want_str(struct rjson_rd *d, const struct rjson *o, const char *where, const char *key);
double rjson_want_num(struct rjson_rd *d, const struct rjson *o, const char *where, const char *key);
long long rjson_want_int(struct rjson_rd *d, const struct rjson *o, const char *where, const char *key, long long lo,
			 long long hi);
int rjson_want_bool(struct rjson_rd *d, const struct rjson *o, const char *where, const char *key);
/* o's key, an array of strings, into *out (malloc'd, NULL-ended pointers into the document;
 * the count in *n), or the error */
void rjson_want_strings(struct rjson_rd *d, const struct rjson *o, const char *where, const char *key,
			const char ***out, int *n);
/* s into out (cap bytes), or the error where it does not fit */
void rjson_want_copy(struct rjson_rd *d, const char *s, char *out, size_t cap, const char *where);

#endif
