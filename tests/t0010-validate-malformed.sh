# validate: malformed recipes, one defect each. Every case asserts the exact
# message (FILE:LINE:COL: json.path: message), exit 2 and an empty stdout.
#
# The table below holds the cases: "### NAME" starts one, the recipe follows
# (${SHA} and ${C} stand for a valid sha256 and commit id), then ">>>" and
# the expected stderr, where "@:" stands for "allocbuild: NAME.json:".
. "$TOP/tests/lib.sh"

SHA=2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa
C=0123456789abcdef0123456789abcdef01234567

mkdir cases
awk -v sha="$SHA" -v c="$C" '
/^### / { name = "cases/" $2; out = name ".json"; printf "" > out; printf "" > (name ".want"); next }
/^>>>$/ { out = name ".want"; next }
{
	line = $0
	gsub(/\$\{SHA\}/, sha, line)
	gsub(/\$\{C\}/, c, line)
	print line >> out
}' <<'EOF'
### dup-key
{"recipe": 1, "recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:1:15: recipe: duplicate key (first at 1:2)
### allocator-nothing-to-probe
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}, "allocator": {"kind": "jemalloc"}}]}
>>>
@:3:79: variants[0].allocator: nothing to probe: give the variant 'artifacts' or 'allocator.archive'
### reproducible-not-bool
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}, "reproducible": "no"}]}
>>>
@:3:95: variants[0].reproducible: expected a boolean, got a string
### reproducible-on-runtime
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}},
              {"label": "r", "runtime_of": "b", "reproducible": false}]}
>>>
@:4:49: variants[1].reproducible: 'reproducible' is for build variants (a relink or runtime_of is as reproducible as the variants it uses)
### probe-timeout-zero
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}, "artifacts": ["x"], "probe": {"args": ["-h"], "timeout": 0}}]}
>>>
@:3:136: variants[0].probe.timeout: must be a positive integer, got 0
### probe-on-runtime
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}},
              {"label": "r", "runtime_of": "b", "probe": {"args": ["-h"]}}]}
>>>
@:4:49: variants[1].probe: a runtime_of variant is probed like its base: set 'probe' there
### probe-unknown-key
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}, "artifacts": ["x"], "probe": {"argv": []}}]}
>>>
@:3:109: variants[0].probe.argv: unknown key (did you mean 'args'?)
### name-type
{"recipe": 1, "name": 5,
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:1:23: name: expected a string, got a number
### name-charset
{"recipe": 1, "name": "my recipe",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:1:23: name: invalid name 'my recipe': use only letters, digits, '.', '_' and '-'
### description-type
{"recipe": 1, "name": "t", "description": ["x"],
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:1:43: description: expected a string, got an array
### unknown-top-key
{"recipe": 1, "name": "t", "varaints": [],
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:1:28: varaints: unknown key (did you mean 'variants'?)
### recipe-format-2
{"recipe": 2, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:1:12: recipe: unsupported recipe format 2 (this allocbuild reads format 1)
### recipe-format-string
{"recipe": "1", "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:1:12: recipe: expected an integer, got a string
### recipe-missing
{"name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:1:1: recipe: required key is missing
### root-not-object
["recipe", 1]
>>>
@:1:1: $: expected an object, got an array
### sources-type
{"recipe": 1, "name": "t",
 "sources": [],
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:13: sources: expected an object, got an array
### source-id-charset
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}},
             "a/b": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:3:14: sources["a/b"]: invalid source id 'a/b': use only letters, digits, '.', '_' and '-'
### source-no-kind
{"recipe": 1, "name": "t",
 "sources": {"s": {"patches": []}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:19: sources.s: a source needs one of 'git', 'archive' or 'dir'
### source-two-kinds
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"},
                   "git": {"url": "u", "commit": "${C}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:3:20: sources.s.git: a source has one of 'git', 'archive' or 'dir', not several
### git-unknown-key
{"recipe": 1, "name": "t",
 "sources": {"s": {"git": {"url": "u", "commit": "${C}", "branch": "main"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:94: sources.s.git.branch: unknown key
### git-url-missing
{"recipe": 1, "name": "t",
 "sources": {"s": {"git": {"commit": "${C}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:27: sources.s.git.url: required key is missing
### commit-tag
{"recipe": 1, "name": "t",
 "sources": {"s": {"git": {"url": "u", "commit": "5.3.0"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:50: sources.s.git.commit: '5.3.0' is not a 40-digit commit id (use --allow-unpinned to resolve it)
### commit-short-hex
{"recipe": 1, "name": "t",
 "sources": {"s": {"git": {"url": "u", "commit": "54eaed1d"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:50: sources.s.git.commit: '54eaed1d' is not a 40-digit commit id (use --allow-unpinned to resolve it)
### commit-not-a-ref
{"recipe": 1, "name": "t",
 "sources": {"s": {"git": {"url": "u", "commit": "my branch"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:50: sources.s.git.commit: 'my branch' is neither a 40-digit commit id nor a ref name
### commit-number
{"recipe": 1, "name": "t",
 "sources": {"s": {"git": {"url": "u", "commit": 54}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:50: sources.s.git.commit: expected a string, got a number
### sha256-uppercase
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "2DB82D1E7119DF3E71B7640219B6DFE84789BC0537983C3B7AC4F7189AECFEAA"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:57: sources.s.archive.sha256: '2DB82D1E7119DF3E71B7640219B6DFE84789BC0537983C3B7AC4F7189AECFEAA' is not a sha256 (64 lowercase hex digits)
### sha256-short
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "2db82d1e"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:57: sources.s.archive.sha256: '2db82d1e' is not a sha256 (64 lowercase hex digits)
### urls-empty
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": [], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:40: sources.s.archive.urls: at least one url is required
### urls-element-type
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u", {"url": "v"}], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:46: sources.s.archive.urls[1]: expected a string, got an object
### strip-negative
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}", "strip": -1}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:134: sources.s.archive.strip: must not be negative, got -1
### strip-fraction
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}", "strip": 0.5}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:134: sources.s.archive.strip: expected an integer, got 0.5
### patches-type
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}, "patches": "fix.patch"}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:137: sources.s.patches: expected an array, got a string
### prepare-empty-command
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}, "prepare": [["autoconf"], []]}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:152: sources.s.prepare[1]: empty command
### prepare-not-argv
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}, "prepare": ["./autogen.sh"]}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:138: sources.s.prepare[0]: expected an array, got a string
### overlay-unknown-source
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}, "overlay": {"lib/jemalloc": "je"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:154: sources.s.overlay["lib/jemalloc"]: unknown source 'je'
### overlay-self
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}, "overlay": {"lib/jemalloc": "s"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:154: sources.s.overlay["lib/jemalloc"]: a source cannot overlay itself
### overlay-path-escapes
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}, "overlay": {"lib/../../x": "je"}},
             "je": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:2:138: sources.s.overlay["lib/../../x"]: 'lib/../../x' leaves the source tree: '..' is not allowed
### overlay-cycle
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}, "overlay": {"lib/je": "je"}},
             "je": {"archive": {"urls": ["u"], "sha256": "${SHA}"}, "overlay": {"src/fb": "s"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:3:149: sources.je.overlay["src/fb"]: overlay cycle: s -> je -> s
### variants-empty
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": []}
>>>
@:3:14: variants: at least one variant is required
### variants-missing
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}}}
>>>
@:1:1: variants: required key is missing
### variant-not-object
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}}, "c"]}
>>>
@:3:80: variants[1]: expected an object, got a string
### label-missing
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"source": "s", "build": {"system": "autotools"}}]}
>>>
@:3:15: variants[0].label: required key is missing
### label-charset
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "stock 53", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:3:25: variants[0].label: invalid label 'stock 53': use only letters, digits, '.', '_' and '-'
### label-dotdot
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "..", "source": "s", "build": {"system": "autotools"}}]}
>>>
@:3:25: variants[0].label: invalid label '..': '.' and '..' are reserved
### label-duplicate
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}},
              {"label": "b", "source": "s", "build": {"system": "cmake"}}]}
>>>
@:4:25: variants[1].label: duplicate label 'b' (first at 3:25)
### variant-no-kind
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "artifacts": ["lib/a.a"]}]}
>>>
@:3:15: variants[0]: a variant needs one of 'source', 'relink' or 'runtime_of'
### variant-two-kinds
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "a", "source": "s", "build": {"system": "autotools"}},
              {"label": "b", "source": "s", "build": {"system": "autotools"}, "runtime_of": "a"}]}
>>>
@:4:79: variants[1].runtime_of: a variant has exactly one of 'source', 'relink' or 'runtime_of' (already has 'source')
### source-without-build
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s"}]}
>>>
@:3:15: variants[0].build: required key is missing
### build-without-source
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "a", "source": "s", "build": {"system": "autotools"}},
              {"label": "b", "runtime_of": "a", "build": {"system": "autotools"}}]}
>>>
@:4:49: variants[1].build: 'build' needs 'source' (only build variants have it)
### unknown-source
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "jemaloc", "build": {"system": "autotools"}}]}
>>>
@:3:40: variants[0].source: unknown source 'jemaloc'
### build-unknown-key
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools", "target": ["all"]}}]}
>>>
@:3:78: variants[0].build.target: unknown key (did you mean 'targets'?)
### build-system-unknown
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "meson"}}]}
>>>
@:3:65: variants[0].build.system: unknown build system 'meson' (expected 'autotools', 'cmake' or 'cargo')
### build-system-missing
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"configure": []}}]}
>>>
@:3:54: variants[0].build.system: required key is missing
### autotools-defines
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools", "defines": {"A": "1"}}}]}
>>>
@:3:78: variants[0].build.defines: 'defines' is for cmake builds; an autotools build takes 'configure'
### autotools-generator
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools", "generator": "Ninja"}}]}
>>>
@:3:78: variants[0].build.generator: 'generator' is for cmake builds
### cmake-configure
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "cmake", "configure": ["--prefix=/"]}}]}
>>>
@:3:74: variants[0].build.configure: 'configure' is for autotools builds; a cmake build takes 'defines'
### defines-value-type
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "cmake", "defines": {"FLB_JEMALLOC": true}}}]}
>>>
@:3:102: variants[0].build.defines.FLB_JEMALLOC: expected a string, got a boolean
### configure-element-type
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools", "configure": ["--a", 3]}}]}
>>>
@:3:99: variants[0].build.configure[1]: expected a string, got a number
### jobs-zero
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools", "jobs": 0}}]}
>>>
@:3:86: variants[0].build.jobs: must be a positive integer, got 0
### jobs-string
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools", "jobs": "4"}}]}
>>>
@:3:86: variants[0].build.jobs: expected an integer, got a string
### build-env-value
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools", "env": {"CFLAGS": ["-O2"]}}}]}
>>>
@:3:96: variants[0].build.env.CFLAGS: expected a string, got an array
### runtime-env-name
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"},
               "runtime": {"env": {"MALLOC_CONF=x": "y"}}}]}
>>>
@:4:36: variants[0].runtime.env["MALLOC_CONF=x"]: invalid environment variable name 'MALLOC_CONF=x': expected [A-Za-z_][A-Za-z0-9_]*
### runtime-unset-type
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"},
               "runtime": {"unset": "LD_PRELOAD"}}]}
>>>
@:4:37: variants[0].runtime.unset: expected an array, got a string
### runtime-of-unknown
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}},
              {"label": "fit", "runtime_of": "stock"}]}
>>>
@:4:46: variants[1].runtime_of: unknown variant 'stock'
### runtime-of-cycle
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}},
              {"label": "x", "runtime_of": "y"},
              {"label": "y", "runtime_of": "x"}]}
>>>
@:5:44: variants[2].runtime_of: dependency cycle: x -> y -> x
### relink-from-unknown
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "cmake"}},
              {"label": "r", "relink": {"from": "fb", "link_txt": "l.txt", "output": "o",
                                        "replace": [{"path": "a.a", "with": {"variant": "b", "artifact": "a.a"}}]}}]}
>>>
@:4:49: variants[1].relink.from: unknown variant 'fb'
### relink-from-runtime
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "cmake"}},
              {"label": "f", "runtime_of": "b"},
              {"label": "r", "relink": {"from": "f", "link_txt": "l.txt", "output": "o",
                                        "replace": [{"path": "a.a", "with": {"variant": "b", "artifact": "a.a"}}]}}]}
>>>
@:5:49: variants[2].relink.from: variant 'f' is not a build variant
### relink-cycle
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "cmake"}},
              {"label": "r", "relink": {"from": "b", "link_txt": "l.txt", "output": "o",
                                        "replace": [{"path": "a.a", "with": {"variant": "r", "artifact": "o"}}]}}]}
>>>
@:5:89: variants[1].relink.replace[0].with.variant: dependency cycle: r -> r
### relink-replace-empty
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "cmake"}},
              {"label": "r", "relink": {"from": "b", "link_txt": "l.txt", "output": "o", "replace": []}}]}
>>>
@:4:101: variants[1].relink.replace: at least one replacement is required (or a "layout")
### relink-replace-entry
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "cmake"}},
              {"label": "r", "relink": {"from": "b", "link_txt": "l.txt", "output": "o",
                                        "replace": [{"path": "a.a", "variant": "b"}]}}]}
>>>
@:5:53: variants[1].relink.replace[0].with: required key is missing
@:5:69: variants[1].relink.replace[0].variant: unknown key
### relink-paths
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "cmake"}},
              {"label": "r", "relink": {"from": "b", "link_txt": "/tmp/link.txt", "output": "../fb",
                                        "replace": [{"path": "a.a", "with": {"variant": "b", "artifact": "lib/../../a.a"}}]}}]}
>>>
@:4:66: variants[1].relink.link_txt: '/tmp/link.txt' is absolute: it must be relative to the build directory
@:4:93: variants[1].relink.output: '../fb' leaves the build directory: '..' is not allowed
@:5:106: variants[1].relink.replace[0].with.artifact: 'lib/../../a.a' leaves the build directory: '..' is not allowed
### artifacts-escape
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"},
               "artifacts": ["lib/a.a", "../a.a", "/usr/lib/a.a", ""]}]}
>>>
@:4:41: variants[0].artifacts[1]: '../a.a' leaves the build directory: '..' is not allowed
@:4:51: variants[0].artifacts[2]: '/usr/lib/a.a' is absolute: it must be relative to the build directory
@:4:67: variants[0].artifacts[3]: empty path
### allocator-kind
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"},
               "allocator": {"kind": "hoard"}, "artifacts": ["x"]}]}
>>>
@:4:38: variants[0].allocator.kind: unknown allocator kind 'hoard' (expected jemalloc, mimalloc, tcmalloc or glibc)
### allocator-kind-missing
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"},
               "allocator": {"archive": "lib/a.a"}}]}
>>>
@:4:29: variants[0].allocator.kind: required key is missing
### allocator-upstream
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"},
               "allocator": {"kind": "jemalloc", "upstream": "jemalloc-5.3.0"}, "artifacts": ["x"]}]}
>>>
@:4:62: variants[0].allocator.upstream: unknown source 'jemalloc-5.3.0'
### allocator-paths
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"},
               "allocator": {"kind": "mimalloc", "archive": "/lib/a.a", "vendored": "lib/.."}}]}
>>>
@:4:61: variants[0].allocator.archive: '/lib/a.a' is absolute: it must be relative to the build directory
@:4:85: variants[0].allocator.vendored: 'lib/..' leaves the source tree: '..' is not allowed
### variant-unknown-key
{"recipe": 1, "name": "t",
 "sources": {"s": {"archive": {"urls": ["u"], "sha256": "${SHA}"}}},
 "variants": [{"label": "b", "source": "s", "build": {"system": "autotools"}, "env": {}}]}
>>>
@:3:79: variants[0].env: unknown key
EOF

n=0
cd cases
for want in *.want; do
	name=${want%.want}
	sed "s/^@:/$name.json:/" "$want" >"$name.expected"
	expect_exit 2 "$AB" validate "$name.json"
	expect_file err <"$name.expected"
	expect_file out </dev/null
	n=$((n + 1))
done
[ "$n" -ge 70 ] || fail "only $n cases ran"
