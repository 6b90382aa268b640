#!/bin/bash
# 300 randomly mutated indexes through the real binary: every one ends
# with a documented exit status (0-3), none crashes or hangs. The seed is
# printed so that a failure can be replayed (MUTATION_SEED=N).
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

mkfarm --out "$T/farm" --builds 12 --culprit 7 --failed 3
seed=${MUTATION_SEED:-$(( $$ * 7 + $(date +%s) % 1000 ))}
diag "MUTATION_SEED=$seed"
"$PYTHON3" - "$T" "$ARTBISECT" "$seed" > "$T/summary" 2> "$T/failures" <<'PY'
import copy, json, os, random, subprocess, sys
T, binary, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rnd = random.Random(seed)
text = open(os.path.join(T, "farm", "index.json"), "rb").read()
doc = json.loads(text)
values = [None, True, False, 0, -1, 2**63, 1e308, "", "x" * 5000, "file:///etc/passwd",
          "ftp://x/y", "../../../etc/passwd", "\u202e\u0007", [], {}, [[[[[]]]]], {"a": {"b": {}}}]

def walk(o, path=()):
    yield path, o
    if isinstance(o, dict):
        for k, v in o.items():
            yield from walk(v, path + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from walk(v, path + (i,))

def mutate_structure(d):
    d = json.loads(json.dumps(d))
    for _ in range(rnd.randint(1, 4)):
        paths = [p for p, _ in walk(d) if p]
        p = rnd.choice(paths)
        parent = d
        for k in p[:-1]:
            parent = parent[k]
        op = rnd.random()
        if op < 0.45:
            parent[p[-1]] = copy.deepcopy(rnd.choice(values))
        elif op < 0.7 and isinstance(parent, dict):
            del parent[p[-1]]
        elif op < 0.85 and isinstance(parent, list):
            parent.insert(rnd.randrange(len(parent) + 1), json.loads(json.dumps(rnd.choice(parent))))
        elif isinstance(parent, dict):
            parent["unknown-" + str(rnd.randrange(100))] = copy.deepcopy(rnd.choice(values))
    return json.dumps(d).encode()

def mutate_bytes(b):
    b = bytearray(b)
    for _ in range(rnd.randint(1, 8)):
        op = rnd.random()
        i = rnd.randrange(len(b)) if b else 0
        if op < 0.4 and b:
            b[i] = rnd.randrange(256)
        elif op < 0.6 and b:
            del b[i:i + rnd.randint(1, 50)]
        elif op < 0.8:
            b[i:i] = rnd.choice([b"{", b"[", b"\"", b",", b"\\u0000", b"\xff\xfe", b"1e999", b"-"])
        else:
            b = b[:i]
    return bytes(b)

counts, failures = {}, 0
for n in range(300):
    data = mutate_structure(doc) if n % 2 else mutate_bytes(text)
    path = os.path.join(T, "farm", "m.json")
    with open(path, "wb") as f:
        f.write(data)
    work = os.path.join(T, "w")
    try:
        r = subprocess.run([binary, "--index", path, "--probe", "./usr/bin/app", "--no-prefetch",
                            "--work-dir", work, "--cache-dir", os.path.join(T, "c"), "--json",
                            "--timeout", "10"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=60)
        rc = r.returncode
        if rc not in (0, 1, 2, 3):
            failures += 1
            sys.stderr.write("mutation %d: exit %d\n%s\n" % (n, rc, r.stderr.decode(errors="replace")[-2000:]))
            open(os.path.join(T, "failed-%d.json" % n), "wb").write(data)
        elif rc == 2 and not r.stderr.strip():
            failures += 1
            sys.stderr.write("mutation %d: exit 2 without a reason\n" % n)
        counts[rc] = counts.get(rc, 0) + 1
    except subprocess.TimeoutExpired:
        failures += 1
        sys.stderr.write("mutation %d: hung\n" % n)
    subprocess.run(["rm", "-rf", work])
print("failures=%d" % failures)
print("counts=%s" % " ".join("exit%d:%d" % kv for kv in sorted(counts.items())))
PY
summary=$(cat "$T/summary")
is "$(grep -o 'failures=[0-9]*' <<<"$summary")" failures=0 "300 mutated indexes: no crash, no hang, a reason for every refusal"
[ -s "$T/failures" ] && diag "$(head -c 3000 "$T/failures")"
like "$summary" 'exit2:[0-9]+' "some were refused as bad input ($(grep counts <<<"$summary"))"
like "$summary" 'exit[01]:[0-9]+' "some still bisected"

plan_done
