#!/usr/bin/env bash
# run records its command line and --env values through lib/redact's one
# rule (as the plan and the build's records do): a URL's password or
# token, a secret query parameter, the word after --token and a --env
# whose name looks secret are masked in the record, and so in pr.md and
# the bundle; the command itself gets them as given. Before, all went
# verbatim into records, pr.md and the bundle.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"
. "$TOP/tests/sign-lib.sh"

fake_build sec bin/fake
mkdir got
expect_exit 0 "$AB" run bo a --name s \
	--env API_TOKEN=tok-s3cret-1 --env MIRROR=https://bob:pw-s3cret-2@mirror.invalid/x --env PLAIN=visible \
	-- sh -c 'printf "%s\n" "$@" >got/argv; printf "%s\n" "$API_TOKEN" "$MIRROR" "$PLAIN" >got/env' sh \
	https://alice:pw-s3cret-3@example.invalid/r.git 'https://example.invalid/f?token=tok-s3cret-4&x=1' \
	--token tok-s3cret-5 --password=pw-s3cret-6 plain-arg
# the command got everything as given
cat >want <<'X'
https://alice:pw-s3cret-3@example.invalid/r.git
https://example.invalid/f?token=tok-s3cret-4&x=1
--token
tok-s3cret-5
--password=pw-s3cret-6
plain-arg
X
diff -u want got/argv || fail "the command did not get its arguments as given"
printf '%s\n' tok-s3cret-1 https://bob:pw-s3cret-2@mirror.invalid/x visible | expect_file got/env
# the record shows them masked
json bo/runs/s/0001-a.intoto.json 'd["predicate"]["argv"][4:]' >shown
echo "['https://***@example.invalid/r.git', 'https://example.invalid/f?token=***&x=1', '--token', '***', '--password=***', 'plain-arg']" | expect_file shown
json bo/runs/s/0001-a.intoto.json 'sorted(i for i in d["predicate"]["env_overrides"].items() if i[0] != "ALLOCBUILD_BIN")' >shown
echo "[('ALLOCBUILD_LABEL', 'a'), ('API_TOKEN', '***'), ('MIRROR', 'https://***@mirror.invalid/x'), ('PLAIN', 'visible')]" | expect_file shown
# nowhere in OUTDIR's records, pr.md or the bundle (the log is the command's own output: it printed nothing)
expect_exit 0 "$AB" verify bo
expect_exit 0 "$AB" pr -o pr bo
mkdir x && tar -xzf pr/provenance-sec.tar.gz -C x
expect_grep "https://***@example.invalid/r.git" pr/pr.md
if grep -rl "s3cret" bo/runs pr x; then fail "a secret of the command line was recorded"; fi
