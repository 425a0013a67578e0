# validate: JSON syntax errors are reported with their exact position and
# the path of the value being read, exit 2, nothing on stdout.
. "$TOP/tests/lib.sh"

# check NAME EXPECTED-MESSAGE: validate NAME.json (written by the caller)
check() {
	expect_exit 2 "$AB" validate "$1.json"
	echo "$1.json:$2" | expect_file err
	expect_file out </dev/null
}

: >empty.json
check empty '1:1: $: expected a value, got end of input'

printf '\n  \n' >blank.json
check blank '3:1: $: expected a value, got end of input'

printf '{\n  "recipe": 1,\n  "name": "x"\n' >unclosed.json
check unclosed '4:1: $: expected '"','"' or '"'}'"', got end of input'

printf '{\n  "recipe": 1,\n}\n' >trailing-comma.json
check trailing-comma "3:1: \$: expected a string key, got '}'"

printf '{\n  "recipe": 1\n  "name": "x"\n}\n' >missing-comma.json
check missing-comma "3:3: \$: expected ',' or '}', got '\"'"

printf '{"variants": [{"label": "a"}, {"label" "b"}]}' >missing-colon.json
check missing-colon "1:40: variants[1].label: expected ':' after the key, got '\"'"

printf '{"variants": [1, 2,]}' >array-comma.json
check array-comma "1:20: variants[2]: expected a value, got ']'"

printf "{'recipe': 1}" >single-quotes.json
check single-quotes "1:2: \$: expected a string key, got '''"

printf '{recipe: 1}' >bare-key.json
check bare-key "1:2: \$: expected a string key, got 'r'"

printf '{"recipe": True}' >python-true.json
check python-true "1:12: recipe: expected a value, got 'True'"

printf '{"recipe": 01}' >leading-zero.json
check leading-zero "1:12: recipe: invalid number"

printf '{"recipe": 1.}' >bad-fraction.json
check bad-fraction "1:12: recipe: invalid number"

printf '{"recipe": -}' >lone-minus.json
check lone-minus "1:12: recipe: invalid number"

printf '{"name": "a\\qb"}' >bad-escape.json
check bad-escape "1:12: name: invalid escape '\\q' in string"

printf '{"name": "a\\u12"}' >short-unicode.json
check short-unicode '1:12: name: invalid \u escape in string'

printf '{"name": "\\ud800"}' >lone-surrogate.json
check lone-surrogate '1:11: name: unpaired surrogate \ud800 in string'

printf '{"name": "a\\u0000"}' >nul-escape.json
check nul-escape '1:12: name: \u0000 is not allowed in strings'

printf '{"name": "tab\there"}' >raw-tab.json
check raw-tab '1:14: name: control character 0x09 in string (escape it)'

printf '{"name": "caf\xe9"}' >latin1.json
check latin1 '1:14: name: invalid UTF-8 in string'

printf '{"name": "caf\xc3\xa9", "x": ]}' >utf8-columns.json
check utf8-columns "1:23: x: expected a value, got ']'"

printf '{\n\t"sources": {"x": {"git": {"url": "u", "commit": "abc\n' >unterminated.json
check unterminated '2:50: sources.x.git.commit: unterminated string'

printf '{"a": ["b", {"c d": [1, 2 3]}]}' >nested-path.json
check nested-path "1:27: a[1][\"c d\"]: expected ',' or ']', got '3'"

printf '{}\n{}\n' >two-documents.json
check two-documents "2:1: \$: expected end of input, got '{'"

printf '{} // comment\n' >comment.json
check comment "1:4: \$: expected end of input, got '/'"

printf '\xef\xbb\xbf{"recipe": x}' >bom.json
check bom "1:12: recipe: expected a value, got 'x'"

# a byte order mark in front of a one-byte document (cJSON alone rejects it; found by the fuzzer)
printf '\xef\xbb\xbf4' >bom-short.json
check bom-short '1:1: $: expected an object, got a number'

printf '{"a": 1\x00}' >nul-byte.json
check nul-byte '1:8: $: expected '"','"' or '"'}'"', got byte 0x00'

printf '{"a": %s1}' "$(printf '%070d' 0)" >long-number.json
check long-number '1:7: a: invalid number'
printf '{"a": 1%s}' "$(printf '%070d' 0)" >long-number2.json
check long-number2 '1:7: a: number longer than 63 characters'

python3 -c 'print("[" * 300 + "]" * 300)' >deep.json
expect_exit 2 "$AB" validate deep.json
expect_grep "deep.json:1:257: \$[0][0][0]" err
expect_grep "]: nesting deeper than 256 levels" err

# a syntax error stops at the first one: there is no tree to check further
printf '{"recipe": 2, "name": 1, "x": }' >first-only.json
check first-only "1:31: x: expected a value, got '}'"
