"""Many run records from a few real ones, for bench/compare.sh.

usage: compare.py OUTDIR SEED_NAME NAME COUNT

Takes the first record of each label of OUTDIR/runs/SEED_NAME and writes
COUNT records under OUTDIR/runs/NAME: one invocation (batch 1) of COUNT /
labels rotated repetitions, each label once per repetition, numbered in
order; wall and CPU seconds, peak RSS and a driver's figure (ops_per_s, higher
is better) drawn from a seeded normal distribution, the second label's
figure 1% higher. Each record is listed in SHA256SUMS with its digest, as
`run` lists it (its log is not written: compare never reads logs, verify
would name them missing).
"""
import glob
import hashlib
import json
import os
import random
import sys

outdir, seed_name, name, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
first = {}
for path in sorted(glob.glob("%s/runs/%s/*.intoto.json" % (outdir, seed_name))):
    doc = json.load(open(path))
    first.setdefault(doc["predicate"]["label"], doc)
labels = sorted(first)
reps = count // len(labels)
rng = random.Random(32)
os.makedirs("%s/runs/%s" % (outdir, name), exist_ok=True)
lines = []
number = 0
for rep in range(reps):
    order = labels[rep % len(labels):] + labels[:rep % len(labels)]
    for label in order:
        number += 1
        doc = json.loads(json.dumps(first[label]))
        p = doc["predicate"]
        base = "%04d-%s" % (number, label)
        p.update(name=name, number=number, batch=1, repetition=rep + 1, repetitions=reps, order=order, rotated=True)
        p["wall_s"] = rng.gauss(0.010, 0.0005)
        p["user_s"] = rng.gauss(0.004, 0.0002)
        p["sys_s"] = rng.gauss(0.002, 0.0001)
        p["maxrss_kb"] = int(rng.gauss(4000, 40))
        p["metrics"] = [{"name": "ops_per_s", "value": rng.gauss(1000 * (1 + 0.01 * labels.index(label)), 15),
                         "unit": "ops/s",
                         "cell": None, "better": "higher", "reported": 1}]
        p["log"]["path"] = "runs/%s/%s.log" % (name, base)
        for b in p.get("byproducts", []):
            b["name"] = "runs/%s/%s.log" % (name, base)
        rel = "runs/%s/%s.intoto.json" % (name, base)
        data = (json.dumps(doc, indent="\t") + "\n").encode()
        with open(os.path.join(outdir, rel), "wb") as f:
            f.write(data)
        lines.append("%s  %s\n" % (hashlib.sha256(data).hexdigest(), rel))
with open(os.path.join(outdir, "SHA256SUMS"), "a") as f:
    f.writelines(lines)
