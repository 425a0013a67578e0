# validate: every error of a recipe at once, sorted by position; unpinned
# commits and --allow-unpinned; the complete example of docs/recipe.md.
. "$TOP/tests/lib.sh"

cat >many.json <<'EOT'
{
  "recipe": 1,
  "name": "many errors",
  "sources": {
    "je": {"git": {"url": "https://example.org/jemalloc.git", "commit": "5.3.0"}},
    "fb": {"archive": {"urls": ["https://example.org/fb.tar.gz"], "sha256": "abc", "strip": -2},
           "overlay": {"lib/jemalloc": "jemalloc"}}
  },
  "variants": [
    {"label": "a", "source": "je", "build": {"system": "make"}},
    {"label": "a", "source": "fb", "build": {"system": "cmake", "configure": ["-x"]}},
    {"label": "r", "relink": {"from": "b", "link_txt": "/l", "output": "o", "replace": []}},
    {"label": "f", "runtime_of": "g", "runtime": {"env": {"MALLOC_CONF": 30}}},
    {"label": "g", "runtime_of": "f", "allocator": {"kind": "hoard"}, "extra": true}
  ]
}
EOT
expect_exit 2 "$AB" validate many.json
cat <<'EOT' | expect_file err
many.json:3:11: name: invalid name 'many errors': use only letters, digits, '.', '_' and '-'
many.json:5:73: sources.je.git.commit: '5.3.0' is not a 40-digit commit id (use --allow-unpinned to resolve it)
many.json:6:77: sources.fb.archive.sha256: 'abc' is not a sha256 (64 lowercase hex digits)
many.json:6:93: sources.fb.archive.strip: must not be negative, got -2
many.json:7:40: sources.fb.overlay["lib/jemalloc"]: unknown source 'jemalloc'
many.json:10:56: variants[0].build.system: unknown build system 'make' (expected 'autotools', 'cmake' or 'cargo')
many.json:11:15: variants[1].label: duplicate label 'a' (first at 10:15)
many.json:11:65: variants[1].build.configure: 'configure' is for autotools builds; a cmake build takes 'defines'
many.json:12:39: variants[2].relink.from: unknown variant 'b'
many.json:12:56: variants[2].relink.link_txt: '/l' is absolute: it must be relative to the build directory
many.json:12:88: variants[2].relink.replace: at least one replacement is required (or a "layout")
many.json:13:74: variants[3].runtime.env.MALLOC_CONF: expected a string, got a number
many.json:14:34: variants[4].runtime_of: dependency cycle: f -> g -> f
many.json:14:61: variants[4].allocator.kind: unknown allocator kind 'hoard' (expected jemalloc, mimalloc, tcmalloc or glibc)
many.json:14:71: variants[4].extra: unknown key
EOT
expect_file out </dev/null

# with --allow-unpinned the commit is no longer an error, the rest stays
expect_exit 2 "$AB" validate --allow-unpinned many.json
expect_no_grep "sources.je.git.commit" err
[ "$(wc -l <err)" = 14 ] || fail "expected 14 errors"

# an unpinned but otherwise valid recipe
cat >unpinned.json <<'EOT'
{"recipe": 1, "name": "head",
 "sources": {"je": {"git": {"url": "https://example.org/jemalloc.git", "commit": "dev"}, "prepare": [["./autogen.sh"]]}},
 "variants": [{"label": "dev", "source": "je", "build": {"system": "autotools"}}]}
EOT
expect_exit 2 "$AB" validate unpinned.json
echo "unpinned.json:2:82: sources.je.git.commit: 'dev' is not a 40-digit commit id (use --allow-unpinned to resolve it)" |
	expect_file err
expect_exit 0 "$AB" validate --allow-unpinned unpinned.json
echo "unpinned.json: recipe 'head': 1 source (1 unpinned), 1 variant (1 build)" | expect_file out
expect_file err </dev/null

# --json: the same errors as objects, every one, and the same exit status; a valid recipe beside it
expect_exit 2 "$AB" validate many.json
cp err text-errors
expect_exit 2 "$AB" validate --json --allow-unpinned unpinned.json many.json
expect_file err </dev/null
python3 - out <<'PY' >json.txt
import json, sys
for r in json.load(open(sys.argv[1])):
    print(r["file"], r["valid"], r.get("name"), r.get("variants"), len(r["errors"]))
    for e in r["errors"]:
        print(f'{e["file"]}:{e["line"]}:{e["col"]}: {e["path"]}: {e["message"]}')
PY
{ echo "unpinned.json True head {'build': 1, 'relink': 0, 'runtime': 0} 0"
  echo "many.json False None None 14"; grep -v "sources.je.git.commit" text-errors; } >want
expect_file json.txt <want

# the complete example of the reference validates
sed -n '/^<!-- example -->$/,/^```$/p' "$TOP/docs/recipe.md" | sed '1,2d;$d' >example.json
[ -s example.json ] || fail "no example found in docs/recipe.md"
expect_exit 0 "$AB" validate example.json
echo "example.json: recipe 'fluent-bit-jemalloc': 3 sources, 5 variants (2 builds, 1 relink, 2 runtimes)" |
	expect_file out
