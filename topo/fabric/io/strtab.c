/* strtab.c — see strtab.h. */
#include "strtab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void slot_put(int *h, int cap, const char *s, int id)
{
	uint32_t k = str_hash(s) & (uint32_t)(cap - 1);

	while (h[k] >= 0)
		k = (k + 1) & (uint32_t)(cap - 1);
	h[k] = id;
}

static int hash_grow(struct strtab *t)
{
	int cap = t->hcap ? t->hcap * 2 : 256;
	int *h = malloc(sizeof *h * (size_t)cap);

	if (!h)
		return -1;
	for (int i = 0; i < cap; i++)
		h[i] = -1;
	for (int id = 0; id < t->n; id++)
		slot_put(h, cap, t->str[id], id);
	free(t->hash);
	t->hash = h;
	t->hcap = cap;
	return 0;
}

int strtab_find(const struct strtab *t, const char *s)
{
	if (!t->hcap)
		return -1;
	for (uint32_t k = str_hash(s) & (uint32_t)(t->hcap - 1); t->hash[k] >= 0; k = (k + 1) & (uint32_t)(t->hcap - 1))
		if (!strcmp(t->str[t->hash[k]], s))
			return t->hash[k];
	return -1;
}

int strtab_intern(struct strtab *t, const char *s)
{
	int id = strtab_find(t, s);

	if (id >= 0)
		return id;
	if (2 * (t->n + 1) > t->hcap && hash_grow(t))
		return -1;
	if (t->n == t->cap) {
		char **q = realloc(t->str, sizeof *q * (size_t)(t->cap = t->cap * 2 + 64));

		if (!q)
			return -1;
		t->str = q;
	}
	if (!(t->str[t->n] = strdup(s)))
		return -1;
	slot_put(t->hash, t->hcap, s, t->n);
	return t->n++;
}

void strtab_free(struct strtab *t)
{
	for (int i = 0; t->str && i < t->n; i++)
		free(t->str[i]);
	free(t->str);
	free(t->hash);
	*t = (struct strtab){ 0 };
}
