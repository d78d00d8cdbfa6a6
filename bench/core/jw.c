/* jw.c — see jw.h. */
#include "jw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "log.h"

void jw_init(struct jw *j, FILE *f)
{
	memset(j, 0, sizeof *j);
	j->f = f;
}

int jw_init_mem(struct jw *j)
{
	memset(j, 0, sizeof *j);
	j->f = open_memstream(&j->mem, &j->memlen);
	j->own = 1;
	return j->f ? 0 : FP_ERUNTIME;
}

int jw_init_members(struct jw *j)
{
	if (jw_init_mem(j))
		return FP_ERUNTIME;
	j->depth = j->base = 1;
	j->kind[1] = '{';
	return 0;
}

const char *jw_text(struct jw *j)
{
	if (!j->own || !j->f)
		return "";
	if (fflush(j->f) || ferror(j->f))
		return NULL;
	return j->mem ? j->mem : "";
}

void jw_free(struct jw *j)
{
	if (j->own && j->f)
		fclose(j->f);
	if (j->own)
		free(j->mem);
	memset(j, 0, sizeof *j);
}

static void misuse(struct jw *j, const char *what)
{
	if (!j->misuse)
		j->misuse = what;
}

/* nothing more is written after a misuse, or without a stream (out of memory) */
static int bad(struct jw *j)
{
	if (!j->f)
		misuse(j, "no stream (out of memory)");
	return j->misuse != NULL;
}

/* the separator and indent before the next member of the current level */
static void sep(struct jw *j)
{
	int d = j->depth;

	if (j->count[d]++)
		fputc(',', j->f);
	if (j->inl[d]) {
		if (j->count[d] > 1)
			fputc(' ', j->f);
		return;
	}
	if (!(d == j->base && d == 1 && j->count[d] == 1))
		fputc('\n', j->f);
	fprintf(j->f, "%*s", 2 * d, "");
}

/* before a value: its place (after its key, an array's next item, or the document) */
static int value(struct jw *j)
{
	if (bad(j))
		return 0;
	if (j->depth == 0) {
		if (j->values++)
			misuse(j, "a second document");
		return !j->misuse;
	}
	if (j->kind[j->depth] == '{') {
		if (!j->key)
			misuse(j, "a value in an object without its key");
		j->key = 0;
	} else {
		sep(j);
	}
	return !j->misuse;
}

static void open_level(struct jw *j, char kind, int inl)
{
	if (!value(j))
		return;
	if (j->depth >= JW_DEPTH_MAX) {
		misuse(j, "nesting deeper than JW_DEPTH_MAX");
		return;
	}
	fputc(kind, j->f);
	j->depth++;
	j->kind[j->depth] = kind;
	j->inl[j->depth] = (char)(inl || j->inl[j->depth - 1]);
	j->count[j->depth] = 0;
}

void jw_object(struct jw *j, int inl)
{
	open_level(j, '{', inl);
}

void jw_array(struct jw *j, int inl)
{
	open_level(j, '[', inl);
}

void jw_end(struct jw *j)
{
	int d = j->depth;

	if (bad(j))
		return;
	if (d <= j->base)
		return misuse(j, "an end with nothing open");
	if (j->key)
		return misuse(j, "a key without its value");
	if (!j->inl[d] && j->count[d])
		fprintf(j->f, "\n%*s", 2 * (d - 1), "");
	fputc(j->kind[d] == '{' ? '}' : ']', j->f);
	j->depth--;
}

void jw_key(struct jw *j, const char *key)
{
	if (bad(j))
		return;
	if (j->depth == 0 || j->kind[j->depth] != '{')
		return misuse(j, "a key outside an object");
	if (j->key)
		return misuse(j, "a key after a key");
	sep(j);
	escape_json_write(j->f, key, j->esc);
	fputs(": ", j->f);
	j->key = 1;
}

void jw_str(struct jw *j, const char *s)
{
	if (!value(j))
		return;
	if (s)
		escape_json_write(j->f, s, j->esc);
	else
		fputs("null", j->f);
}

void jw_num(struct jw *j, double v, int prec)
{
	if (!value(j))
		return;
	if (isfinite(v) && prec >= 0)
		fprintf(j->f, "%.*f", prec, v);
	else if (isfinite(v))
		fprintf(j->f, "%g", v);
	else
		fputs("null", j->f);
}

void jw_int(struct jw *j, long long v)
{
	if (value(j))
		fprintf(j->f, "%lld", v);
}

void jw_bool(struct jw *j, int v)
{
	if (value(j))
		fputs(v ? "true" : "false", j->f);
}

void jw_null(struct jw *j)
{
	if (value(j))
		fputs("null", j->f);
}

void jw_kstr(struct jw *j, const char *key, const char *s)
{
	jw_key(j, key);
	jw_str(j, s);
}

void jw_knum(struct jw *j, const char *key, double v, int prec)
{
	jw_key(j, key);
	jw_num(j, v, prec);
}

void jw_kint(struct jw *j, const char *key, long long v)
{
	jw_key(j, key);
	jw_int(j, v);
}

void jw_kbool(struct jw *j, const char *key, int v)
{
	jw_key(j, key);
	jw_bool(j, v);
}

void jw_kobject(struct jw *j, const char *key, int inl)
{
	jw_key(j, key);
	jw_object(j, inl);
}

void jw_karray(struct jw *j, const char *key, int inl)
{
	jw_key(j, key);
	jw_array(j, inl);
}

int jw_done(struct jw *j)
{
	bad(j);
	if (!j->misuse && j->depth != j->base)
		misuse(j, "a container left open");
	if (!j->misuse && j->key)
		misuse(j, "a key without its value");
	if (!j->misuse && j->base == 0 && j->values != 1)
		misuse(j, "no document");
	if (j->misuse) {
		LOG_ERROR("internal: the JSON writer was misused: %s", j->misuse);
		return FP_ERUNTIME;
	}
	if (j->base == 0)
		fputc('\n', j->f);
	if (fflush(j->f) || ferror(j->f)) {
		LOG_ERROR("writing JSON: a write failed");
		return FP_ERUNTIME;
	}
	return 0;
}
