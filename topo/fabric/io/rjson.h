/* rjson.h — a small JSON reader for meta.json and coll_meta.json (RFC 8259; nesting at most
 * 32 deep, so that no file can exhaust the stack). Pure. */
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

#endif
