#!/usr/bin/env bash
# The secrets of a compile cache's remote storage reach no record, no
# message and no bundle, whatever their form: the userinfo of every URL of
# a space-separated --ccache-remote list, a |bearer-token= attribute, a
# ?token= parameter, and CCACHE_REMOTE_STORAGE inherited from the
# environment; a URL that ccache cannot parse (and would print, password
# included, into the configure log) is refused, exit 2, before anything
# is built, the message quoting it redacted.
. "$TOP/tests/lib.sh"
. "$TOP/tests/fakeproj.sh"

make_fakeproj_recipe r.json
# no_secret WHAT DIR...: none of the secrets in DIRs, out, err or a bundle below them
no_secret() {
	local what=$1 hits
	shift
	hits=$( { grep -rl -a -E 'PW[0-9]|TOK[0-9]' "$@" out err 2>/dev/null; } || true)
	[ -z "$hits" ] || { grep -r -a -n -E 'PW[0-9]|TOK[0-9]' $hits >&2; fail "$what: a secret was recorded in: $hits"; }
	for b in $(find "$@" -name '*.tar.gz' 2>/dev/null); do
		for s in PW1 PW2 PW5 PW6 PW8 PW9 TOK1 TOK2 TOK7; do
			check "$what: no $s in the bundle $b" not bundle_has "$b" "$s"
		done
	done
}

# --- --ccache-remote: two URLs (the remotes refuse connections: the build goes on with the local cache)
R='redis://alice:PW1@127.0.0.1:1|connect-timeout=50 http://bob:PW2@127.0.0.1:2/c?token=TOK2|bearer-token=TOK1'
expect_exit 0 "$AB" build --ccache-remote "$R" --ccache-dir cc --mirror-dir mirror -o bo r.json
shown='redis://***@127.0.0.1:1|connect-timeout=50 http://***@127.0.0.1:2/c?token=***|bearer-token=***'
[ "$(json bo/provenance/build-commands.json 'd["options"]["ccache_remote"]')" = "$shown" ] ||
	fail "ccache_remote: $(json bo/provenance/build-commands.json 'd["options"]["ccache_remote"]')"
# the steps ran in the build sandbox: each remote through allocbuild's relay on a loopback port, which
# keeps the credentials (user information, query, bearer token): the steps are handed none of them
inside='redis://127.0.0.1:40000|connect-timeout=50 http://127.0.0.1:40001/c'
[ "$(json bo/variants/t1/state.json '[s["env_set"]["CCACHE_REMOTE_STORAGE"] for s in d["steps"] if "env_set" in s]')" = \
  "['$inside', '$inside']" ] || fail "the steps' env_set does not show the redacted remote"
expect_exit 0 "$AB" plan --ccache-remote "$R" -o bo r.json
expect_grep "remote storage $shown" out
expect_exit 0 "$AB" pr -o p bo
no_secret "--ccache-remote" bo p cc

# --- CCACHE_REMOTE_STORAGE from the environment, recorded as ccache resolved it
rm -rf cc
CCACHE_REMOTE_STORAGE='redis://:PW5@127.0.0.1:1 http://u:PW6@127.0.0.1:2/x|bearer-token=TOK7' \
	expect_exit 0 "$AB" build --ccache --ccache-dir cc --mirror-dir mirror -o bo2 r.json
[ "$(json bo2/provenance/build-commands.json 'd["options"]["ccache_remote"]')" = \
  'redis://***@127.0.0.1:1 http://***@127.0.0.1:2/x|bearer-token=***' ] ||
	fail "inherited ccache_remote: $(json bo2/provenance/build-commands.json 'd["options"]["ccache_remote"]')"
expect_exit 0 "$AB" pr -o p2 bo2
no_secret "CCACHE_REMOTE_STORAGE" bo2 p2 cc

# --- a URL ccache cannot parse: refused before anything runs, its password never quoted
expect_exit 2 "$AB" build --ccache-remote 'redis://:PW8@127.0.0.1:abc' --mirror-dir mirror -o bo3 r.json
cat <<EOT | expect_file err
allocbuild: build: --ccache-remote 'redis://***@127.0.0.1:abc': a port that is not a number from 0 to 65535
Try 'allocbuild help build'.
EOT
[ ! -e bo3 ] || fail "a build with an unparsable remote wrote something"
expect_exit 2 "$AB" build --ccache-remote 'redis://h:1 http://u:PW9%zz@h/c' --mirror-dir mirror -o bo3 r.json
expect_grep "its user information holds a character a URL does not allow there (percent-encode it: '@' is %40, a space %20) (its URL number 2)" err
CCACHE_REMOTE_STORAGE='redis://:PW8@[::1' expect_exit 2 "$AB" build --ccache --mirror-dir mirror -o bo3 r.json
echo "allocbuild: CCACHE_REMOTE_STORAGE 'redis://***@[::1' (from the environment): a host in brackets that is not an IP literal: ccache would print it, password included, into the build's logs; correct it, unset it or give --ccache-remote" |
	expect_file err
[ ! -e bo3 ] || fail "a build with an unparsable inherited remote wrote something"
no_secret "an unparsable remote" bo3
