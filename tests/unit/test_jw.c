/* The one JSON writer (core/jw.h): its layout, hostile strings, every misuse caught, a
 * members fragment, and what it writes read back by the one JSON reader. */
#include <stdlib.h>

#include "check.h"
#include "core/jw.h"
#include "core/log.h"
#include "core/rjson.h"

/* a document with every kind of value, block and inline, read back */
static void test_document(void)
{
	struct jw j;
	struct rjson v;
	char err[128];
	const char *evil = "a\"b\\c\nd\x1b[2J\xe2\x80\xa8\xff";

	CHECK_EQ(jw_init_mem(&j), 0);
	jw_object(&j, 0);
	jw_kstr(&j, "name", evil);
	jw_kstr(&j, "none", NULL);
	jw_knum(&j, "x", 1.23456, 2);
	jw_knum(&j, "nan", NAN, 2);
	jw_knum(&j, "inf", INFINITY, 2);
	jw_kint(&j, "big", 1LL << 50);
	jw_kbool(&j, "t", 1);
	jw_karray(&j, "list", 1);
	jw_int(&j, 1);
	jw_object(&j, 0); /* inside an inline array: inline too */
	jw_kstr(&j, "k", "v");
	jw_end(&j);
	jw_null(&j);
	jw_end(&j);
	jw_karray(&j, "empty", 0);
	jw_end(&j);
	jw_kobject(&j, "nested", 0);
	jw_karray(&j, "deep", 0);
	jw_str(&j, "x");
	jw_end(&j);
	jw_end(&j);
	jw_end(&j);
	CHECK_EQ(jw_done(&j), 0);
	const char *text = jw_text(&j);
	CHECK(text != NULL);
	if (!text)
		return;
	CHECK_HAS(text, "{\n  \"name\": ");
	CHECK_HAS(text, "\"list\": [1, {\"k\": \"v\"}, null]");
	CHECK_HAS(text, "\"empty\": []");
	CHECK_HAS(text, "\"nested\": {\n    \"deep\": [\n      \"x\"\n    ]\n  }\n}\n");
	CHECK_HAS(text, "\"x\": 1.23,\n  \"nan\": null");
	CHECK(!strchr(text, '\x1b'));
	CHECK(!strstr(text, "\xe2\x80\xa8"));
	CHECK_EQ(rjson_parse(text, strlen(text), &v, err, sizeof err), 0);
	CHECK_STR(rjson_str(rjson_get(&v, "name")), "a\"b\\c\nd\x1b[2J\xe2\x80\xa8\xef\xbf\xbd");
	CHECK(rjson_get(&v, "none") && rjson_get(&v, "none")->type == RJSON_NULL);
	CHECK(rjson_get(&v, "inf") && rjson_get(&v, "inf")->type == RJSON_NULL);
	CHECK(rjson_get(&v, "big") && rjson_get(&v, "big")->num == (double)(1LL << 50));
	CHECK(rjson_get(&v, "list") && rjson_get(&v, "list")->n == 3);
	rjson_free(&v);
	jw_free(&j);
}

/* each misuse makes jw_done fail, whatever came after it */
static void test_misuse(void)
{
	static const char *const cases[] = { "value without key", "key in array", "key at top", "end at top",
					     "two documents", "left open", "key without value", "two keys",
					     "too deep", "nothing", NULL };

	for (int c = 0; cases[c]; c++) {
		struct jw j;

		CHECK_EQ(jw_init_mem(&j), 0);
		switch (c) {
		case 0: jw_object(&j, 0); jw_int(&j, 1); jw_end(&j); break;
		case 1: jw_array(&j, 0); jw_key(&j, "k"); jw_int(&j, 1); jw_end(&j); break;
		case 2: jw_key(&j, "k"); jw_int(&j, 1); break;
		case 3: jw_int(&j, 1); jw_end(&j); break;
		case 4: jw_int(&j, 1); jw_int(&j, 2); break;
		case 5: jw_array(&j, 0); break;
		case 6: jw_object(&j, 0); jw_key(&j, "k"); jw_end(&j); break;
		case 7: jw_object(&j, 0); jw_key(&j, "a"); jw_key(&j, "b"); jw_int(&j, 1); jw_end(&j); break;
		case 8:
			for (int d = 0; d <= JW_DEPTH_MAX; d++)
				jw_array(&j, 0);
			for (int d = 0; d <= JW_DEPTH_MAX; d++)
				jw_end(&j);
			break;
		case 9: break;
		}
		if (jw_done(&j) == 0)
			printf("#   misuse not caught: %s\n", cases[c]);
		CHECK(j.misuse != NULL);
		jw_free(&j);
	}
}

/* a members fragment, as meta.json is put together around lines of its own */
static void test_members(void)
{
	struct jw j;
	char doc[512], err[128];
	struct rjson v;

	CHECK_EQ(jw_init_members(&j), 0);
	CHECK_STR(jw_text(&j), "");
	jw_kstr(&j, "a", "x");
	jw_kobject(&j, "b", 1);
	jw_kint(&j, "c", 3);
	jw_end(&j);
	CHECK_EQ(jw_done(&j), 0);
	CHECK_STR(jw_text(&j), "  \"a\": \"x\",\n  \"b\": {\"c\": 3}");
	snprintf(doc, sizeof doc, "{\n  \"status\": \"ok\",\n%s\n}\n", jw_text(&j));
	CHECK_EQ(rjson_parse(doc, strlen(doc), &v, err, sizeof err), 0);
	CHECK(rjson_get(rjson_get(&v, "b"), "c") != NULL);
	rjson_free(&v);
	jw_end(&j); /* past its own level: caught */
	CHECK(jw_done(&j) != 0);
	jw_free(&j);
}

int main(void)
{
	RUN(test_document);
	RUN(test_misuse);
	RUN(test_members);
	CHECK_EXIT();
}
