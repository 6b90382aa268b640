#!/bin/bash
# The source's layers (README, "Tour of the source") hold: every file
# of src/ is in a layer's folder, each layer includes only the layers
# it may use, the engine is pure (no I/O headers), the library (every
# folder but cli/) never writes to the terminal, and each header opens
# by saying which module it is, what it owns and what it never does.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

SRC=$(cd "$TESTS_SRCDIR/../src" && pwd)
LAYERS="base engine index net pkg farms bisect cli"

# What each layer may include besides itself. net and pkg are
# siblings: neither uses the other; the engine uses nothing.
may_use() {
	case $1 in
	base | engine) echo "" ;;
	index) echo "base" ;;
	net | pkg) echo "base index" ;;
	farms) echo "base index net pkg" ;;
	bisect) echo "base engine index net pkg farms" ;;
	cli) echo "base engine index net pkg farms bisect" ;;
	esac
}

stray=$(cd "$SRC" && find . -name '*.[ch]' | sed 's|^\./||' | while read -r f; do
	case " $LAYERS " in *" ${f%%/*} "*) [ "${f#*/}" != "$f" ] || echo "$f" ;; *) echo "$f" ;; esac
done)
is "$stray" "" "every source file is in a layer's folder (src/LAYER/)"

# The includes of LAYER under ROOT that it may not use, one a line.
bad_includes() { # ROOT LAYER
	local allowed="$2 $(may_use "$2")"
	grep -Ho '#include "[^"]*"' "$1/$2"/*.[ch] | while IFS=: read -r file inc; do
		target=${inc#\#include \"}
		target=${target%\"}
		[ "$target" = config.h ] && continue
		case "$target" in */*) ;; *) echo "${file#"$1"/}: $target (no layer)"; continue ;; esac
		case " $allowed " in *" ${target%%/*} "*) ;; *) echo "${file#"$1"/}: $target" ;; esac
	done
}

# Lines of the library under ROOT that touch the terminal: everything
# but src/cli and the helper program's main (pkg/unpack_main.c). The
# one exception: util.c's message before it aborts when memory runs out.
terminal_use() { # ROOT
	find "$1" -name '*.c' ! -path "$1/cli/*" ! -name unpack_main.c -print0 | sort -z |
		xargs -0 grep -nE '\b(stdout|stderr|stdin)\b|(^|[^a-z_])(printf|puts|perror|putchar|isatty|getchar)\s*\(' |
		grep -v -E 'fflush\(std(out|err)\)|"artbisect: out of memory\\n", stderr' | sed "s|^$1/||"
}

for layer in $LAYERS; do
	ok "src/$layer exists and has sources" test -n "$(ls "$SRC/$layer"/*.[ch] 2>/dev/null)"
	is "$(bad_includes "$SRC" "$layer")" "" "src/$layer includes only $layer $(may_use "$layer")"
done

# The engine is pure: no header that does I/O, no call that reads the world.
sys=$(grep -ho '#include <[^>]*>' "$SRC"/engine/*.[ch] | sort -u |
	grep -v -E '<(stddef|stdbool|stdlib|stdint|string|math|limits|float|assert)\.h>')
is "$sys" "" "the engine includes no I/O header"
io=$(grep -nE '\b(fopen|open|read|write|close|fork|exec[a-z]*|time|clock_gettime|getenv|rand|random)\s*\(' \
	"$SRC"/engine/*.c)
is "$io" "" "the engine calls nothing that reads the world"

is "$(terminal_use "$SRC")" "" "the library never touches the terminal (it reports through callbacks)"

# The checks see a violation: a copy of the tree where the engine uses
# the front end, net uses pkg, and the index prints.
cp -R "$SRC" "$T/src"
printf '#include "cli/cli.h"\n' >> "$T/src/engine/engine.c"
printf '#include "pkg/deb.h"\n' >> "$T/src/net/cache.c"
printf 'static void shout(void) { printf("x"); }\n' >> "$T/src/index/index_find.c"
like "$(bad_includes "$T/src" engine)" '^engine/engine\.c: cli/cli\.h$' "a front-end include in the engine is caught"
like "$(bad_includes "$T/src" net)" '^net/cache\.c: pkg/deb\.h$' "a pkg include in net is caught"
like "$(terminal_use "$T/src")" '^index/index_find\.c:[0-9]+:.*printf' "a printf in the library is caught"

# Each header names itself, says what its module owns or is, and, in
# the same opening comment, what it never does.
heads=$(for h in "$SRC"/*/*.h; do
	sed -n 1p "$h" | grep -q "^/\* $(basename "$h") - ." || echo "${h#"$SRC"/}"
done)
is "$heads" "" "each header opens with '/* NAME.h - what it is'"
nevers=$(for h in "$SRC"/*/*.h; do
	sed -n '1,/\*\//p' "$h" | grep -qiE 'never|nothing|no I/O' || echo "${h#"$SRC"/}"
done)
is "$nevers" "" "each header's opening comment says what its module never does"

plan_done
