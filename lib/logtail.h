/*
 * logtail: what a failed step's log shows under its error message: the
 * first lines that say what went wrong (with the lines just before each),
 * when they lie before the tail, then its last AB_LOGTAIL_LINES lines, each
 * as "| TEXT" (controls escaped), through lib/progress's printer (the live
 * line cleared). The one place a failure's log is shown: a configure, a
 * build, a relink and a source's prepare command say it the same way.
 */
#ifndef AB_LOGTAIL_H
#define AB_LOGTAIL_H

#define AB_LOGTAIL_LINES 30

/* print the log's first errors and tail on stderr; a log that cannot be read prints nothing */
void ab_logtail_print(const char *log);

#endif
