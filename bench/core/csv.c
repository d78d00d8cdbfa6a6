/* csv.c — see csv.h. */
#include "csv.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "log.h"

void csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void csv_header(FILE *f, const struct csv_col *cols, int ncols)
{
	for (int i = 0; i < ncols; i++) {
		if (i)
			fputc(',', f);
		csv_field(f, cols[i].name);
	}
	fputs("\n", f);
}

void csv_row(FILE *f, const struct csv_col *cols, int ncols, const void *row)
{
	const char *base = row;

	for (int i = 0; i < ncols; i++) {
		const void *p = base + cols[i].offset;

		if (i)
			fputc(',', f);
		switch (cols[i].type) {
		case CSV_STR:
			csv_field(f, *(const char *const *)p);
			break;
		case CSV_I64:
			if (*(const int64_t *)p >= 0)
				fprintf(f, "%lld", (long long)*(const int64_t *)p);
			break;
		case CSV_F64:
			if (!isnan(*(const double *)p))
				fprintf(f, "%.*f", cols[i].precision, *(const double *)p);
			break;
		}
	}
	fputs("\n", f);
}

int csv_flush(FILE *f, const char *path)
{
	if (fflush(f) != 0 || ferror(f)) {
		LOG_ERROR("writing %s: %s", path, strerror(errno));
		return FP_ERUNTIME;
	}
	return 0;
}
