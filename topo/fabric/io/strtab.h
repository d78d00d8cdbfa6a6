/* strtab.h — interned strings: each distinct string once, named by a small integer id, found
 * by hashing (so that reading a million names stays linear). Pure. */
#ifndef FP_STRTAB_H
#define FP_STRTAB_H

struct strtab {
	char **str;   /* str[id] */
	int n, cap;
	int *hash;    /* open addressing: ids, -1 empty */
	int hcap;
};

/* The id of s (a copy is kept), adding it when new; -1 when out of memory. */
int strtab_intern(struct strtab *t, const char *s);
/* The id of s, or -1 when absent. */
int strtab_find(const struct strtab *t, const char *s);
void strtab_free(struct strtab *t);

#endif
