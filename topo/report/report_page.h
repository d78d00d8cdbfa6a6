/* report_page.h — the page's fixed parts: style sheet and script (report_page.c). */
#ifndef FP_REPORT_PAGE_H
#define FP_REPORT_PAGE_H

extern const char report_css[];
extern const char report_js[];

#endif
