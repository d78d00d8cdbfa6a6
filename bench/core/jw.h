/* jw.h — the one JSON writer, for every JSON file fabprobe writes (summary.json, meta.json,
 * coll_meta.json, topograph's graph): nested objects and arrays onto a FILE * (a file, or a
 * growable buffer of its own), every string through the one JSON rule (core/escape.h), every
 * comma and indent placed here, never by a caller. A container is a block (a member a line,
 * indented two spaces a level) or inline ({"a": 1, "b": 2}; what it holds is inline too).
 * Misuse (a value without its key in an object, a key outside one, an end with nothing open, a
 * second document, nesting deeper than JW_DEPTH_MAX) is caught: the first is kept and jw_done
 * fails, naming it, so a writer's slip is a test failure, never a malformed file. */
#ifndef FP_JW_H
#define FP_JW_H

#include <stddef.h>
#include <stdio.h>

#define JW_DEPTH_MAX 32

struct jw {
	FILE *f;
	char *mem;                   /* jw_init_mem: the buffer (NUL-terminated after jw_text) */
	size_t memlen;
	int own;                     /* the buffer is jw's (jw_init_mem, jw_init_members) */
	int depth;                   /* containers open (a members fragment counts its own) */
	int base;                    /* the depth jw_done expects: 0, or 1 for a members fragment */
	char kind[JW_DEPTH_MAX + 1];  /* '{' or '[' per level */
	char inl[JW_DEPTH_MAX + 1];   /* the level is inline */
	int count[JW_DEPTH_MAX + 1];  /* members written at the level */
	int key;                     /* a key was written: its value is next */
	int values;                  /* top-level values written (a document holds one) */
	const char *misuse;          /* the first misuse, or NULL */
	unsigned esc;                /* escape_json_write's flags for every string (ESCAPE_JSON_HTML:
				      * JSON inside an HTML <script>); 0 after jw_init */
};

/* Write onto f (the caller's; jw never closes it). */
void jw_init(struct jw *j, FILE *f);
/* Write into a buffer of jw's own, growing as needed. 0, or FP_ERUNTIME out of memory. */
int jw_init_mem(struct jw *j);
/* Write into a buffer of jw's own the members of a block object whose braces are not written
 * (meta.json's parts, written around lines of its own): members separated by ",\n", each
 * indented two spaces, no line break after the last. 0, or FP_ERUNTIME. */
int jw_init_members(struct jw *j);
/* jw_init_mem's and jw_init_members's text so far (NUL-terminated; "" when none), or NULL
 * when out of memory. */
const char *jw_text(struct jw *j);
/* Free jw's own buffer (NULL-safe; nothing for jw_init). */
void jw_free(struct jw *j);

void jw_object(struct jw *j, int inl);
void jw_array(struct jw *j, int inl);
void jw_end(struct jw *j);
void jw_key(struct jw *j, const char *key);
void jw_str(struct jw *j, const char *s);        /* NULL: null */
void jw_num(struct jw *j, double v, int prec);   /* "%.*f" (prec < 0: "%g"); NAN or infinite: null */
void jw_int(struct jw *j, long long v);
void jw_bool(struct jw *j, int v);
void jw_null(struct jw *j);

/* A member: the key, then the value. */
void jw_kstr(struct jw *j, const char *key, const char *s);
void jw_knum(struct jw *j, const char *key, double v, int prec);
void jw_kint(struct jw *j, const char *key, long long v);
void jw_kbool(struct jw *j, const char *key, int v);
void jw_kobject(struct jw *j, const char *key, int inl);
void jw_karray(struct jw *j, const char *key, int inl);

/* The document is whole (every container ended; for a fragment, at its own level) and no
 * misuse was made; a document ends with a line break. 0, or FP_ERUNTIME after logging the
 * misuse (a bug in its caller) or a write error. */
int jw_done(struct jw *j);

#endif
