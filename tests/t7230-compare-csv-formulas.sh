#!/usr/bin/env bash
# compare --format csv: a text cell a spreadsheet would read as a formula
# (a driver's cell, unit or metric name starting with =, +, - or @) gets a
# leading single quote (OWASP, "CSV Injection"), quoted when it holds a
# comma, semicolon or quote; numbers, negative ones included, stay numbers.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_runtime_recipe r.json
expect_exit 0 "$AB" build --mirror-dir mirror -o bo r.json
art=$(sed -n 's|^\([0-9a-f]\{64\}\)  variants/a/build/bin/fake$|\1|p' bo/SHA256SUMS)
check "the program's digest in SHA256SUMS" test ${#art} = 64
cat >drive <<'SH'
#!/bin/sh
echo 'ALLOCBUILD_METRIC -A1=-5 @SUM(A1) cell==HYPERLINK("http://x.invalid/?a;b")'
echo "ALLOCBUILD_METRIC plain=2.5 +cmd|'/C_calc'!A0"
echo 'ALLOCBUILD_METRIC minus=-1.25 ms'
SH
chmod +x drive
expect_exit 0 "$AB" run bo a --name csv --sample-ms 0 --cell -x -- ./drive
expect_exit 0 "$AB" compare bo --metric=-A1 --metric plain --metric minus --format csv
expect_file out <<OUT
name,number,batch,repetition,label,cell,status,metric,value,unit,artifact_sha256,host
csv,1,1,1,a,"'=HYPERLINK(""http://x.invalid/?a;b"")",exit 0,'-A1,-5,'@SUM(A1),$art,$(uname -n)
csv,1,1,1,a,'-x,exit 0,plain,2.5,'+cmd|'/C_calc'!A0,$art,$(uname -n)
csv,1,1,1,a,'-x,exit 0,minus,-1.25,ms,$art,$(uname -n)
OUT
# what a spreadsheet reads back: no cell starts a formula, the numbers are numbers
python3 - out <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
for row in rows[1:]:
    for i, cell in enumerate(row):
        if i in (1, 2, 3, 8):
            float(cell)
        elif cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
            sys.exit("a formula: %r" % cell)
PY
