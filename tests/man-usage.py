# The man page's synopses against each command's usage (allocbuild help
# CMD): for every command, the options its usage lists and those its man
# synopses list are the same set ("[source options]" standing for the
# options docs/allocbuild.1 defines under "Source options"). Prints each
# difference; exit 1 when there is one. Used by t9110.
import re, subprocess, sys

ab, manpath = sys.argv[1], sys.argv[2]
man = open(manpath).read().split('\n')
OPT = re.compile(r'(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])')

def plain(s):
    return ' '.join(re.sub(r'\\f[BIRP]', '', s).replace('\\-', '-').replace('"', '').split())

source_opts = set()
in_src = False
for i, l in enumerate(man):
    if l.startswith(('.SH', '.SS')):
        in_src = l.startswith('.SS Source options')
    elif in_src and l.startswith(('.B ', '.BI ')) and man[i - 1] == '.TP':
        source_opts |= set(OPT.findall(plain(l.split(' ', 1)[1])))

helptext = subprocess.run([ab, 'help'], capture_output=True, text=True).stdout
cmds = [l.split()[0] for l in helptext.split('Commands:')[1].split('\n') if l.startswith('  ')]
synopses = {}
for i, l in enumerate(man):
    if l.startswith('.B ') and man[i - 1] in ('.TP', '.TQ'):
        t = plain(l[3:])
        if t.split()[0] in cmds:
            synopses.setdefault(t.split()[0], []).append(t)

bad = 0
for c in cmds:
    text = subprocess.run([ab, 'help', c], capture_output=True, text=True).stdout
    usage = text.split('\n\n')[0]
    want = set(OPT.findall(usage))
    got = set()
    for s in synopses.get(c, []):
        got |= set(OPT.findall(s))
        if '[source options]' in s:
            got |= source_opts
    if not synopses.get(c):
        print(f'{c}: no synopsis in {manpath}')
        bad += 1
    elif want != got:
        print(f'{c}: usage only: {" ".join(sorted(want - got)) or "-"}; man page only: {" ".join(sorted(got - want)) or "-"}')
        bad += 1
sys.exit(1 if bad else 0)
