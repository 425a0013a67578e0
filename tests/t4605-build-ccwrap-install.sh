#!/usr/bin/env bash
# the compiler wrapper's install (docs/build.md, "Installs"): -C added, so
# an unchanged destination keeps its time; a destination with other bytes
# is replaced; -d (directories) and -s (strip), which GNU install refuses
# with -C, run as given
. "$TOP/tests/lib.sh"

mkdir w
ln -s "$AB" w/install
I=$PWD/w/install
printf 'int x;\n' >a.h
printf 'int y;\n' >b.h
mkdir inc
check 'first install' "$I" -m 644 a.h inc/a.h
touch -d '2001-01-01 00:00:00' inc/a.h
check 'same bytes again' "$I" -m 644 a.h inc/a.h
check 'an unchanged destination keeps its time' [ "$(stat -c %Y inc/a.h)" = "$(date -d '2001-01-01 00:00:00' +%s)" ]
check 'clustered options and -t' "$I" -cm644 -t inc a.h
check 'still untouched' [ "$(stat -c %Y inc/a.h)" = "$(date -d '2001-01-01 00:00:00' +%s)" ]
check 'other bytes' "$I" -m 644 b.h inc/a.h
check 'replaced' cmp b.h inc/a.h
check 'replaced, a new time' [ "$(stat -c %Y inc/a.h)" != "$(date -d '2001-01-01 00:00:00' +%s)" ]
check 'its mode' [ "$(stat -c %a inc/a.h)" = 644 ]
check 'directories (-d)' "$I" -d -m 755 d1/d2
check 'made' [ -d d1/d2 ]
check 'strip (-s)' "$I" -s -m 755 "$(type -P true)" d1/t
check 'stripped copy runs' d1/t
check 'an explicit -C' "$I" -C -m 644 a.h inc/c.h
expect_exit 1 "$I" -m 644 missing.h inc/m.h
expect_grep "missing.h" err
