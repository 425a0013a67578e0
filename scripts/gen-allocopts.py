#!/usr/bin/env python3
"""Generate provenance/alloc/allocopts_tables.c: the runtime option names each
release of an allocator reads, taken from the releases' own sources, in one
shape (struct ab_alloc_release of struct ab_alloc_option {name, alias,
feature, value}; provenance/alloc/allocopts.h).

usage: scripts/gen-allocopts.py JEMALLOC_GIT_DIR MIMALLOC_GIT_DIR GLIBC_SRC_DIR GPERFTOOLS_SRC_DIR \
         > provenance/alloc/allocopts_tables.c

GLIBC_SRC_DIR and GPERFTOOLS_SRC_DIR are unpacked release trees (Debian 12's
`apt-get source glibc google-perftools`: glibc 2.36, gperftools 2.10); their
version is read from the tree.

jemalloc: the string literals of malloc_conf_init_helper (5.2.1 and later;
malloc_conf_init before; src/conf.c from 5.3.1) minus the option values
that appear there as literals. Each name is tagged with the configure
feature it needs (names jemalloc only reads when built with --enable-prof,
fill, utrace, xmalloc, log); a build without the feature reports the name
as an invalid conf pair.

mimalloc: the MI_OPTION(name) and MI_OPTION_LEGACY(name, legacy) entries
of the options table of src/options.c, with their default values; the
environment variable is MIMALLOC_ + the upper-cased name (or legacy name).

glibc: the tunables of the malloc namespace of elf/dl-tunables.list
(glibc.malloc.NAME), each with its env_alias (MALLOC_ARENA_MAX,
MALLOC_TOP_PAD_ ...).

tcmalloc (gperftools): every TCMALLOC_* variable its sources read (EnvToInt64,
EnvToBool, TCMallocGetenvSafe ... of a string literal), from src/.

Only facts (option names, defaults) are copied, never code. The table is
committed; run this again to add releases.
"""
import os
import re
import subprocess
import sys

JE_TAGS = ["5.0.0", "5.0.1", "5.1.0", "5.2.0", "5.2.1", "5.3.0", "5.3.1"]
JE_VALUES = {"alloc", "free", "true", "false", "default", "high", "jeprof", "malloc_conf_2_conf_harder",
             "disabled", "percpu", "phycpu", "primary", "secondary"}
MI_TAGS = ["v2.0.0", "v2.0.1", "v2.0.2", "v2.0.3", "v2.0.4", "v2.0.5", "v2.0.6", "v2.0.7", "v2.0.9",
           "v2.1.0", "v2.1.1", "v2.1.2", "v2.1.4", "v2.1.5", "v2.1.6", "v2.1.7", "v2.1.8", "v2.1.9",
           "v2.2.2", "v2.2.3", "v2.2.4", "v2.2.6", "v2.2.7", "v2.3.0", "v2.3.1", "v2.3.2", "v2.4.0", "v2.4.1",
           "v3.0.1", "v3.0.3", "v3.0.7", "v3.0.8", "v3.0.9", "v3.0.10", "v3.0.11", "v3.0.12",
           "v3.1.4", "v3.1.5", "v3.1.6", "v3.2.6", "v3.2.7", "v3.2.8", "v3.3.0", "v3.3.1", "v3.3.2",
           "v3.4.0", "v3.4.1", "v3.4.2", "v3.4.3"]


def show(repo, rev, path):
    r = subprocess.run(["git", "-C", repo, "show", f"{rev}:{path}"], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def commit(repo, rev):
    return subprocess.run(["git", "-C", repo, "rev-parse", f"{rev}^{{commit}}"], capture_output=True,
                          text=True).stdout.strip()


def function_body(src, names):
    for name in names:
        m = re.search(r"^" + name + r"\(", src, re.M)
        if m:
            end = re.search(r"^}", src[m.start():], re.M)
            return src[m.start():m.start() + end.start()]
    return ""


def feature_of(body, pos):
    """the config_X of the innermost 'if (config_X)' block open at pos"""
    depth, stack = 0, []
    for m in re.finditer(r"if \((config_[a-z]+)\) \{|\{|\}", body[:pos]):
        t = m.group(0)
        if t == "}":
            depth -= 1
            while stack and stack[-1][1] > depth:
                stack.pop()
        else:
            depth += 1
            if m.group(1):
                stack.append((m.group(1), depth))
    for feat, _ in reversed(stack):
        if feat in ("config_prof", "config_fill", "config_utrace", "config_xmalloc", "config_log"):
            return feat[len("config_"):]
    return ""


def jemalloc_options(repo, tag):
    src = show(repo, tag, "src/conf.c") if tag >= "5.3.1" else None
    if not src:
        src = show(repo, tag, "src/jemalloc.c")
    body = function_body(src, ["malloc_conf_init_helper", "malloc_conf_init"])
    opts = {}
    for m in re.finditer(r'"([a-z_0-9]+)"', body):
        n = m.group(1)
        if n in JE_VALUES or n in opts:
            continue
        opts[n] = feature_of(body, m.start())
    return opts


def mimalloc_options(repo, tag):
    src = show(repo, tag, "src/options.c")
    table = re.search(r"static mi_option_desc_t (?:mi_)?options\[[^\]]*\]\s*=\s*\{(.*?)\n\};", src, re.S).group(1)
    table = re.sub(r"//[^\n]*", "", table)
    opts = []
    seen = set()
    for m in re.finditer(r"\{\s*([^,{}]+?),\s*(?:MI_OPTION_)?(?:UNINIT|INITIALIZED|DEFAULTED)\s*,\s*MI_OPTION(?:_LEGACY)?\(\s*"
                         r"([a-z_]+)\s*(?:,\s*([a-z_]+)\s*)?\)", table):
        default, name, legacy = m.group(1).strip(), m.group(2), m.group(3)
        if name in seen:
            continue  # the same option under different #if branches
        seen.add(name)
        if not re.fullmatch(r"-?[0-9]+", default):
            default = ""  # a macro or an expression: not known here
        opts.append((name, legacy or "", default))
    return opts


def glibc_options(src):
    text = open(f"{src}/elf/dl-tunables.list").read()
    block = re.search(r"^  malloc \{\n(.*?)^  \}", text, re.S | re.M).group(1)
    opts = []
    for m in re.finditer(r"^    ([a-z_]+) \{\n(.*?)^    \}", block, re.S | re.M):
        alias = re.search(r"env_alias: ([A-Z_]+)", m.group(2))
        opts.append(("glibc.malloc." + m.group(1), alias.group(1) if alias else "", "", ""))
    return opts


def glibc_version(src):
    return re.search(r'VERSION "([0-9.]+)"', open(f"{src}/version.h").read()).group(1)


def tcmalloc_options(src):
    names = set()
    for root, _, files in os.walk(f"{src}/src"):
        if "/tests" in root or "/windows" in root:
            continue
        for f in files:
            if f.endswith((".cc", ".h")):
                names |= set(re.findall(r'(?:EnvTo[A-Za-z0-9]+|TCMallocGetenvSafe|getenv)\("(TCMALLOC_[A-Z_0-9]+)"',
                                        open(os.path.join(root, f), errors="replace").read()))
    return [(n, "", "", "") for n in sorted(names)]


def tcmalloc_version(src):
    m = re.search(r"AC_INIT\(\[gperftools\],\s*\[([0-9.]+)\]", open(f"{src}/configure.ac").read())
    return m.group(1)


def one_release(out, prefix, table, version, opts):
    out.append(f"static const struct ab_alloc_option {prefix}_set0[] = {{")
    for o in opts:
        out.append("\t{" + ", ".join(cstr(x) for x in o) + "},")
    out.append("\t{NULL, NULL, NULL, NULL},\n};")
    out.append(f"\nconst struct ab_alloc_release {table}[] = {{")
    out.append(f"\t{{{cstr(version)}, \"\", {prefix}_set0}},")
    out.append("\t{NULL, NULL, NULL},\n};")


def cstr(s):
    return '"' + s + '"'


def main():
    je_repo, mi_repo, glibc_src, gpt_src = sys.argv[1:5]
    out = ["/* generated by scripts/gen-allocopts.py from the allocator release sources; do not edit */",
           '#include "allocopts.h"', ""]
    sets, je_versions = [], []
    for tag in JE_TAGS:
        opts = jemalloc_options(je_repo, tag)
        key = tuple(sorted(opts.items()))
        if key not in sets:
            sets.append(key)
        je_versions.append((tag, commit(je_repo, tag), sets.index(key)))
    for i, key in enumerate(sets):
        out.append(f"static const struct ab_alloc_option je_set{i}[] = {{")
        for name, feat in key:
            out.append(f"\t{{{cstr(name)}, \"\", {cstr(feat)}, \"\"}},")
        out.append("\t{NULL, NULL, NULL, NULL},\n};")
    out.append("\nconst struct ab_alloc_release ab_jemalloc_releases[] = {")
    for tag, c, i in je_versions:
        out.append(f"\t{{{cstr(tag)}, {cstr(c)}, je_set{i}}},")
    out.append("\t{NULL, NULL, NULL},\n};\n")
    sets, mi_versions = [], []
    for tag in MI_TAGS:
        if show(mi_repo, tag, "src/options.c") is None:
            continue
        key = tuple(mimalloc_options(mi_repo, tag))
        if key not in sets:
            sets.append(key)
        mi_versions.append((tag.lstrip("v"), commit(mi_repo, tag), sets.index(key)))
    for i, key in enumerate(sets):
        out.append(f"static const struct ab_alloc_option mi_set{i}[] = {{")
        for name, legacy, default in key:
            out.append(f"\t{{{cstr(name)}, {cstr(legacy)}, \"\", {cstr(default)}}},")
        out.append("\t{NULL, NULL, NULL, NULL},\n};")
    out.append("\nconst struct ab_alloc_release ab_mimalloc_releases[] = {")
    for tag, c, i in mi_versions:
        out.append(f"\t{{{cstr(tag)}, {cstr(c)}, mi_set{i}}},")
    out.append("\t{NULL, NULL, NULL},\n};\n")
    one_release(out, "glibc", "ab_glibc_releases", glibc_version(glibc_src), glibc_options(glibc_src))
    out.append("")
    one_release(out, "tc", "ab_tcmalloc_releases", tcmalloc_version(gpt_src), tcmalloc_options(gpt_src))
    print("\n".join(out))


if __name__ == "__main__":
    main()
