#!/bin/bash
# The unpack helper: artbisect-unpack (libarchive alone, quick to start)
# when it sits beside artbisect or is installed with it; artbisect
# itself started again when it is not there.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

helper=$(dirname "$ARTBISECT")/artbisect-unpack
ok "artbisect-unpack is built beside artbisect" test -x "$helper"
run "$helper"
is "$RC" 2 "artbisect-unpack by hand: exit 2"
like "$ERR" "run by artbisect, not by hand" "... and it says what it is for"
run "$helper" --internal-unpack-helper=0.0.0-other 1 0 1000 /nonexistent /nonexistent
is "$RC" 2 "a helper asked by another version refuses the job"

mkfarm --out "$T/farm" --builds 16 --culprit 11
bisect_with() { # DIR-OF-ARTBISECT
	run "$1/artbisect" --index "$T/farm/index.json" --probe ./usr/bin/app --json --no-prefetch \
		--cache-dir "$T/cache" --work-dir "$T/work-$(basename "$1")"
}

# Beside artbisect: used for every artifact unpacked (no prefetch here,
# so that those are the builds tested).
mkdir -p "$T/lean"
cp "$ARTBISECT" "$T/lean/artbisect"
cat > "$T/lean/artbisect-unpack" <<SH
#!/bin/sh
echo "\$1" >> "$T/calls"
exec "$helper" "\$@"
SH
chmod +x "$T/lean/artbisect-unpack"
bisect_with "$T/lean"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0011 "with the helper beside it: the right answer"
tested=$(echo "$OUT" | json_get - tested)
is "$(grep -c . "$T/calls" 2>/dev/null)" "$tested" "the helper unpacked each build tested ($tested)"
like "$(head -n 1 "$T/calls")" '^--internal-unpack-helper=[0-9]' "it is asked with the program's version"

# Alone: artbisect unpacks with itself.
mkdir -p "$T/alone"
cp "$ARTBISECT" "$T/alone/artbisect"
: > "$T/calls"
bisect_with "$T/alone"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0011 "without the helper: the right answer all the same"
is "$(grep -c . "$T/calls")" 0 "... and no helper was asked"

plan_done
