# validate: the shipped default recipe, usage errors and unreadable files
. "$TOP/tests/lib.sh"

expect_exit 0 "$AB" validate "$TOP/recipes/jemalloc-5.3.0-policy.json"
echo "$TOP/recipes/jemalloc-5.3.0-policy.json: recipe 'jemalloc-5.3.0-policy': 2 sources, 7 variants (4 builds, 3 runtimes)" |
	expect_file out
expect_file err </dev/null

# relative path as given, several recipes at once
cp "$TOP/recipes/jemalloc-5.3.0-policy.json" a.json
cp a.json b.json
expect_exit 0 "$AB" validate a.json b.json
cat <<EOT | expect_file out
a.json: recipe 'jemalloc-5.3.0-policy': 2 sources, 7 variants (4 builds, 3 runtimes)
b.json: recipe 'jemalloc-5.3.0-policy': 2 sources, 7 variants (4 builds, 3 runtimes)
EOT

expect_exit 2 "$AB" validate
cat <<EOT | expect_file err
allocbuild: validate: no recipe given
Try 'allocbuild help validate'.
EOT
expect_file out </dev/null

expect_exit 2 "$AB" validate missing.json
echo "allocbuild: cannot open 'missing.json': No such file or directory" | expect_file err
expect_file out </dev/null

mkdir d
expect_exit 2 "$AB" validate d
echo "allocbuild: cannot read recipe 'd': is a directory" | expect_file err

expect_exit 2 "$AB" validate --bogus a.json
cat <<EOT | expect_file err
allocbuild: validate: unknown option '--bogus'
Try 'allocbuild help validate'.
EOT

# one bad recipe among good ones: the good ones are still summarised, exit 2
echo '{' >bad.json
expect_exit 2 "$AB" validate a.json bad.json b.json
cat <<EOT | expect_file out
a.json: recipe 'jemalloc-5.3.0-policy': 2 sources, 7 variants (4 builds, 3 runtimes)
b.json: recipe 'jemalloc-5.3.0-policy': 2 sources, 7 variants (4 builds, 3 runtimes)
EOT
echo "bad.json:2:1: \$: expected a string key, got end of input" | expect_file err

expect_exit 0 "$AB" validate --help
expect_grep "usage: allocbuild validate" out
