#!/usr/bin/env bash
# build: a Rust program on jemalloc through "system": "cargo" (issue 17),
# offline with Debian's cargo and crates (librust-jemalloc-sys-dev: crate
# jemalloc-sys 0.3.2, which bundles jemalloc 5.1.0). The shipped recipe
# recipes/rust-jemalloc-tuning.json plus a runtime variant that sets plain
# MALLOC_CONF: the bundled version found from the crate's sources (the
# binary says 0.0.0-0-g000...), the _rjem_ prefix, the baked
# config.malloc_conf, the invalid verdicts with jemalloc's own message,
# Cargo.lock and the crates in the statement, the same binary from another
# OUTDIR; and malformed cargo keys refused by validate.
. "$TOP/tests/lib.sh"

# Debian's toolchain, never a rustup one on PATH (CI has only /usr/bin/cargo)
if [ ! -x /usr/bin/cargo ] || [ ! -x /usr/bin/rustc ] || [ ! -d /usr/share/cargo/registry/jemalloc-sys-0.3.2 ]; then
	"$TOP/scripts/install-deps.sh" || fail "cannot install cargo, rustc and librust-jemalloc-sys-dev"
fi
export PATH=/usr/bin:$PATH
unset RUSTFLAGS CARGO_HOME CARGO_TARGET_DIR RUSTUP_TOOLCHAIN

# ---- validate: malformed cargo keys, each at its position, exit 2, nothing on stdout
cat >bad.json <<'JSON'
{"recipe": 1, "name": "t",
 "sources": {"s": {"dir": {"path": "p", "dirHash": "2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa"}}},
 "variants": [
  {"label": "a", "source": "s", "build": {"system": "cargo", "feature": ["x"]}},
  {"label": "b", "source": "s", "build": {"system": "cargo", "features": "x"}},
  {"label": "c", "source": "s", "build": {"system": "cargo", "features": ["x", 1, "a b"]}},
  {"label": "d", "source": "s", "build": {"system": "cargo", "profile": "rel/ease"}},
  {"label": "e", "source": "s", "build": {"system": "cargo", "configure": ["--x"], "bins": ["../x"], "vendor": "/abs"}},
  {"label": "f", "source": "s", "build": {"system": "autotools", "features": ["x"]}},
  {"label": "g", "source": "s", "build": {"system": "cargo", "cargo": "cargo", "rustc": ""}}
 ]}
JSON
expect_exit 2 "$AB" validate bad.json
[ ! -s out ] || fail "validate printed on stdout: $(cat out)"
expect_file err <<'EXP'
bad.json:4:62: variants[0].build.feature: unknown key (did you mean 'features'?)
bad.json:5:74: variants[1].build.features: expected an array, got a string
bad.json:6:80: variants[2].build.features[1]: expected a string, got a number
bad.json:6:83: variants[2].build.features[2]: invalid cargo feature 'a b'
bad.json:7:73: variants[3].build.profile: invalid cargo profile name 'rel/ease': expected [A-Za-z0-9_-]+
bad.json:8:62: variants[4].build.configure: 'configure' is for autotools builds, not cargo
bad.json:8:93: variants[4].build.bins[0]: invalid cargo binary name '../x'
bad.json:8:112: variants[4].build.vendor: '/abs' is absolute: it must be relative to the source tree
bad.json:9:66: variants[5].build.features: 'features' is for cargo builds, not autotools
bad.json:10:71: variants[6].build.cargo: 'cargo' is not an absolute path (without one, cargo is what PATH finds)
bad.json:10:89: variants[6].build.rustc: must not be empty
EXP

# ---- the shipped recipe, with a runtime variant that sets plain MALLOC_CONF
mkdir r
cp -a "$TOP/recipes/rjtune" r/rjtune
python3 - "$TOP/recipes/rust-jemalloc-tuning.json" r/r.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
# the baked variant names its tools (Debian's, as PATH finds them too): recorded as named
d["variants"][3]["build"].update({"cargo": "/usr/bin/cargo", "rustc": "/usr/bin/rustc"})
d["variants"].append({"label": "plain-conf", "runtime_of": "default",
	"runtime": {"env": {"MALLOC_CONF": "oversize_threshold:0"}}})
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
expect_exit 0 "$AB" validate r/r.json
start=$(date +%s)
expect_exit 1 "$AB" build -o o1 r/r.json
echo "cargo builds of the fixture (two variants at once, -j2): $(($(date +%s) - start)) s" >&2

# the verdicts: default is fine, the tunings are invalid on 5.1.0 with jemalloc's message, plain MALLOC_CONF is an error
expect_no_grep "default: probe:" err
expect_grep "allocbuild: oversize0: probe: invalid setting 'oversize_threshold:0' in the runtime _RJEM_MALLOC_CONF: <jemalloc>: Invalid conf pair: oversize_threshold:0; jemalloc 5.1.0 (crate jemalloc-sys 0.3.2, configure/VERSION) has no option 'oversize_threshold'" err
expect_grep "allocbuild: tcache20: probe: invalid setting 'tcache_nslots_small_max:20' in the runtime _RJEM_MALLOC_CONF: <jemalloc>: Invalid conf pair: tcache_nslots_small_max:20; jemalloc 5.1.0 (crate jemalloc-sys 0.3.2, configure/VERSION) has no option 'tcache_nslots_small_max'" err
expect_grep "allocbuild: oversize0-baked: probe: invalid setting 'oversize_threshold:0' baked in at build time (config.malloc_conf): <jemalloc>: Invalid conf pair: oversize_threshold:0; jemalloc 5.1.0 (crate jemalloc-sys 0.3.2, configure/VERSION) has no option 'oversize_threshold'" err
expect_grep "allocbuild: plain-conf: probe: MALLOC_CONF has no effect on this binary: it reads _RJEM_MALLOC_CONF" err

P=o1/provenance/allocator-probes.json
[ "$(json $P '[(v["label"], v["probe"]["ok"]) for v in d["variants"]]')" = \
	"[('default', True), ('oversize0', False), ('tcache20', False), ('oversize0-baked', False), ('plain-conf', False)]" ] ||
	fail "verdicts: $(json $P '[(v["label"], v["probe"]["ok"]) for v in d["variants"]]')"
for i in 0 1 2 3 4; do
	[ "$(json $P "d['variants'][$i]['probe']['version']")" = 5.1.0-0-g61efbda7098de6fe64c362d309824864308c36d4 ] ||
		fail "variant $i: version $(json $P "d['variants'][$i]['probe']['version']")"
	[ "$(json $P "d['variants'][$i]['probe']['binary_version']")" = 0.0.0-0-g0000000000000000000000000000000000000000 ]
	[ "$(json $P "d['variants'][$i]['probe']['version_from']")" = "crate jemalloc-sys 0.3.2, configure/VERSION" ]
	[ "$(json $P "(d['variants'][$i]['probe']['prefix'], d['variants'][$i]['probe']['conf_var'])")" = "('_rjem_', '_RJEM_MALLOC_CONF')" ]
done
[ "$(json $P 'd["variants"][0]["probe"]["build_time"]')" = None ]
[ "$(json $P 'd["variants"][3]["probe"]["build_time"]')" = oversize_threshold:0 ] || fail "the baked config.malloc_conf is not reported"
[ "$(json $P '[(p["kind"], p["setting"], p["origin"]) for p in d["variants"][3]["probe"]["problems"]]')" = \
	"[('invalid', 'oversize_threshold:0', 'build')]" ]
[ "$(json $P '[(p["kind"], p["setting"]) for p in d["variants"][4]["probe"]["problems"]]')" = "[('ignored', 'MALLOC_CONF')]" ]
nm o1/variants/default/build/target/release/rjtune | grep -q ' T _rjem_malloc_stats_print$' || fail "no _rjem_ symbols"

# provenance: the cargo command, Cargo.lock and the crates, cargo and rustc from Debian
C=o1/provenance/build-commands.json
[ "$(json $C '[s["argv"] for s in d["variants"][0]["steps"] if s["step"] == "build"]')" = \
	"[['cargo', 'build', '--offline', '--locked', '--release', '--bin=rjtune']]" ]
[ "$(json $C '[s["env_set"]["JEMALLOC_SYS_WITH_MALLOC_CONF"] for s in d["variants"][3]["steps"] if s["step"] == "build"]')" = "['oversize_threshold:0']" ]
[ "$(json $C '[(s["argv"][0], s["env_set"]["RUSTC"]) for s in d["variants"][3]["steps"] if s["step"] == "build"]')" = "[('/usr/bin/cargo', '/usr/bin/rustc')]" ]
[ "$(json $C '[(t["name"], t["path"], t["package"]) for t in d["variants"][3]["toolchain"] if t["name"] in ("cargo", "rustc")]')" = \
	"[('cargo', '/usr/bin/cargo', 'cargo'), ('rustc', '/usr/bin/rustc', 'rustc')]" ]
# in the build sandbox the trees are at their fixed paths already: only the registry is remapped
[ "$(json $C '[s["env_set"]["RUSTFLAGS"] for s in d["variants"][0]["steps"] if s["step"] == "build"][0]')" = \
	"--remap-path-prefix=/usr/share/cargo/registry=/allocbuild/crates" ]
[ "$(json $C '[(s["env_set"]["CARGO_HOME"], s["cwd"]) for s in d["variants"][0]["steps"] if s["step"] == "build"][0]')" = \
	"('/allocbuild/build/cargo-home', '/allocbuild/src')" ]
# without it, every tree is remapped (the plan shows it)
expect_exit 0 "$AB" plan --no-sandbox -o o1 r/r.json default
expect_grep "--remap-path-prefix=$PWD/o1/variants/default/src=/allocbuild/src" out
expect_grep "--remap-path-prefix=/usr/share/cargo/registry=/allocbuild/crates" out
[ "$(json $C 'd["variants"][0]["cargo"]["jemalloc"]')" = \
	"{'crate': 'jemalloc-sys', 'crate_version': '0.3.2', 'version': '5.1.0-0-g61efbda7098de6fe64c362d309824864308c36d4', 'file': 'configure/VERSION'}" ]
grep -qx 'directory = "/usr/share/cargo/registry"' o1/variants/default/build/cargo-home/config.toml || fail "CARGO_HOME config"
S=o1/provenance/provenance.intoto.json
lock=$(sha256sum r/rjtune/Cargo.lock | cut -d' ' -f1)
[ "$(json $S '[x["digest"] for x in d["predicate"]["buildDefinition"]["resolvedDependencies"] if x["name"] == "Cargo.lock"]')" = "[{'sha256': '$lock'}]" ]
[ "$(json $S '[x["name"] for x in d["predicate"]["buildDefinition"]["resolvedDependencies"] if x["name"].startswith("crate ")]')" = \
	"['crate cc 1.0.73', 'crate fs_extra 1.2.0', 'crate jemalloc-sys 0.3.2', 'crate libc 0.2.139']" ]
[ "$(json $S '[list(x["digest"]) for x in d["predicate"]["buildDefinition"]["resolvedDependencies"] if x["name"] == "crate jemalloc-sys 0.3.2"]')" = "[['dirHash']]" ]
[ "$(json $S '[(x["annotations"]["file"], x["annotations"]["package"]) for x in d["predicate"]["runDetails"]["builder"]["builderDependencies"] if x["name"] in ("cargo", "rustc")]')" = \
	"[('/usr/bin/cargo', 'cargo'), ('/usr/bin/rustc', 'rustc')]" ]
(cd o1 && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not check"

# `env` says what a shell must set for a tuned variant, and what 5.1.0 lacks
expect_exit 0 "$AB" env o1 oversize0
expect_grep "export _RJEM_MALLOC_CONF='oversize_threshold:0'" out
expect_grep "# warning: _RJEM_MALLOC_CONF: jemalloc 5.1.0 has no option 'oversize_threshold'" out

# reproducible: the default variant built into another, longer OUTDIR gives the same binary
expect_exit 0 "$AB" build -o another/longer/outdir r/r.json default
grep '  variants/default/build/target/release/rjtune$' o1/SHA256SUMS >a1
grep '  variants/default/build/target/release/rjtune$' another/longer/outdir/SHA256SUMS >a2
[ -s a1 ] || fail "no binary in SHA256SUMS"
diff -u a1 a2 || fail "the cargo build depends on the OUTDIR"
