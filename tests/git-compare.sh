#!/bin/bash
# artbisect against `git bisect run` on linear histories turned into
# farms (one `git archive` tarball per commit): the same first bad commit,
# or the same candidate list when untestable commits (exit 125) hide it,
# and no more test runs than git in total.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
need_cmd git

export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
export GIT_CONFIG_NOSYSTEM=1 HOME="$T"

# Writes a linear history: commit i has state good/bad/skip per the plan.
# plan: N CULPRIT SKIPS (comma list of I or I-J).
make_repo() { # DIR N CULPRIT SKIPS
	"$PYTHON3" - "$@" <<'PY'
import subprocess, sys
d, n, culprit, skips = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
skip = set()
for part in filter(None, skips.split(',')):
    a, _, b = part.partition('-')
    skip.update(range(int(a), int(b or a) + 1))
test = b'#!/bin/sh\necho run >> "$COUNTER"\ncase $(cat state) in good) exit 0;; bad) exit 1;; *) exit 125;; esac\n'
out = []
for i in range(n):
    state = b'skip' if i in skip else (b'bad' if i >= culprit else b'good')
    out.append(b'commit refs/heads/main\n')
    out.append(b'mark :%d\n' % (i + 1))
    out.append(b'committer t <t@example.org> %d +0000\n' % (1700000000 + i * 60))
    msg = b'commit %d\n' % i
    out.append(b'data %d\n%s' % (len(msg), msg))
    if i:
        out.append(b'from :%d\n' % i)
    for name, data in ((b'state', state + b'\n'), (b'test.sh', test), (b'n', b'%d\n' % i)):
        out.append(b'M 100644 inline %s\ndata %d\n%s\n' % (name, len(data), data))
subprocess.run(['git', 'init', '-q', '-b', 'main', d], check=True)
subprocess.run(['git', '-C', d, 'fast-import', '--quiet'], input=b''.join(out), check=True)
subprocess.run(['git', '-C', d, 'checkout', '-q', 'main'], check=True)
PY
}

# Runs git bisect run; prints "RUNS SHORT-SHAS..." (12-character shas).
git_bisect() { # REPO
	local repo=$1 out runs
	: > "$T/git-counter"
	out=$(cd "$repo" && git bisect start main "$(git rev-list --max-parents=0 main)" >/dev/null &&
		COUNTER="$T/git-counter" git bisect run sh ./test.sh 2>&1; git bisect reset >/dev/null 2>&1)
	runs=$(wc -l < "$T/git-counter")
	if grep -q "is the first bad commit" <<<"$out"; then
		echo "$runs $(grep -m1 'is the first bad commit' <<<"$out" | cut -c1-12)"
	else
		echo "$runs $(sed -n '/could be any of:/,/We cannot bisect more/p' <<<"$out" | grep -E '^[0-9a-f]{40}$' | cut -c1-12 | sort | tr '\n' ' ')"
	fi
}

# Runs artbisect on the repo's farm; prints "RUNS IDS..." the same way.
art_bisect() { # REPO FARM
	local repo=$1 farm=$2 out runs
	mkfarm --from-git "$repo" --out "$farm"
	: > "$T/art-counter"
	out=$(COUNTER="$T/art-counter" "$ARTBISECT" --index "$farm/index.json" --probe 'sh ./test.sh' \
		--json --quiet --cache-dir "$T/cache" --work-dir "$T/work" 2>/dev/null)
	runs=$(wc -l < "$T/art-counter")
	echo "$runs $(json_get - candidates <<<"$out" | "$PYTHON3" -c 'import json,sys; print(" ".join(sorted(json.load(sys.stdin))))')"
}

# N CULPRIT SKIPS
scenarios=(
	"100 63 -"
	"33 1 -"
	"40 39 -"
	"64 20 18-22"
	"64 20 10-13,40-47"
	"50 32 30-34"
	"120 70 5,17,29,41,53,65,77,89,101,113"
	"120 70 60-69"
	"200 150 100-109,140-149,151-156"
	"90 45 44,46"
	"128 64 30-34,62-66,90-100"
	"75 12 11-13,50-60"
)
# And a seeded random corpus: no skips, isolated skips, clustered skips
# (untestable commits usually come in runs: a broken build system, a
# dependency that was missing for a while).
while read -r line; do scenarios+=("$line"); done < <("$PYTHON3" - <<'PY'
import random
rnd = random.Random(20261203)
for i in range(36):
    n = rnd.randint(20, 200)
    culprit = rnd.randint(1, n - 1)
    kind = i % 4
    skips = set()
    if kind == 1:
        skips = {j for j in range(1, n - 1) if rnd.random() < rnd.uniform(0.05, 0.2)}
    elif kind >= 2:
        cover = rnd.uniform(0.1, 0.3) * n
        while len(skips) < cover:
            start, length = rnd.randint(1, n - 2), rnd.randint(1, 8)
            skips.update(range(start, min(start + length, n - 1)))
    print(n, culprit, ",".join(map(str, sorted(skips))) or "-")
PY
)

git_total=0 art_total=0 n=0
for s in "${scenarios[@]}"; do
	read -r nb culprit skips <<<"$s"
	[ "$skips" = - ] && skips=
	n=$((n + 1))
	repo="$T/repo$n"
	make_repo "$repo" "$nb" "$culprit" "$skips"
	read -r g_runs g_ans <<<"$(git_bisect "$repo")"
	read -r a_runs a_ans <<<"$(art_bisect "$repo" "$T/farm$n")"
	is "$a_ans" "$g_ans" "history $n ($nb commits, culprit $culprit, $(tr -cd , <<<"$skips," | wc -c) untestable): same answer as git bisect"
	diag "history $n: git bisect run used $g_runs runs, artbisect $a_runs"
	git_total=$((git_total + g_runs))
	art_total=$((art_total + a_runs))
	rm -rf "$repo" "$T/farm$n" "$T/cache"
done
diag "total test runs: git bisect $git_total, artbisect $art_total"
tap_ok $(( art_total <= git_total ? 0 : 1 )) "artbisect used no more runs than git bisect in total ($art_total vs $git_total)"

plan_done
