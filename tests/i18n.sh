#!/bin/bash
# Translations: German output under a German locale, from the catalog
# built from po/de.po; exit statuses, JSON and numbers stay the same.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

gmo="$TESTS_BUILDDIR/../po/de.gmo"
[ -f "$gmo" ] || gmo="$TESTS_SRCDIR/../po/de.gmo"
[ -f "$gmo" ] || skip_all "po/de.gmo has not been built"
mkdir -p "$T/mo/de/LC_MESSAGES"
cp "$gmo" "$T/mo/de/LC_MESSAGES/artbisect.mo"
# A German locale of our own (LOCPATH), so the system needs none installed.
mkdir -p "$T/loc"
if ! localedef -i de_DE -f UTF-8 "$T/loc/de_DE.UTF-8" > "$T/localedef.out" 2>&1 &&
	! [ -d "$T/loc/de_DE.UTF-8" ]; then
	skip_all "cannot make a de_DE.UTF-8 locale (install the locales package)"
fi
de() { LOCPATH="$T/loc" LC_ALL=de_DE.UTF-8 ARTBISECT_LOCALEDIR="$T/mo" "$@"; }

run de "$ARTBISECT" --help
like "$RC/$OUT" '^0/Aufruf: artbisect --index URL \[Optionen\]' "--help in German"
like "$OUT" '--work-dir VERZ' "option names stay, their arguments are translated"
run de "$ARTBISECT" good --help
like "$OUT" 'Festhalten, dass Build ID' "per-command help in German"

mkfarm --out "$T/farm" --builds 20 --culprit 13
run de "$ARTBISECT" --index "$T/farm/index.json" --probe ./usr/bin/app --work-dir "$T/w" --cache-dir "$T/c" --timeout 2.5
is "$RC" 0 "a bisection under German: exit 0"
like "$OUT" 'Der erste schlechte Build ist b0013\.' "the report in German"
like "$OUT" 'Letzter guter Build: b0012' "the report's details in German"
like "$OUT" '5 Builds getestet \(5 vom Testskript\)' "plural forms through ngettext"
like "$ERR" 'Teste b0009 \[1\.0\.9\]: 19 Kandidaten übrig, noch etwa 5 Schritte' "progress in German"
like "$ERR" 'b0013: schlecht \([0-9]+\.[0-9]+ s\)' "numbers keep the decimal point, verdicts are in German too"

run de "$ARTBISECT" --index "$T/farm/index.json" --probe ./usr/bin/app --good b0012 --bad b0014 \
	--work-dir "$T/w2" --cache-dir "$T/c" --json
like "$ERR" '1 Build getestet \(1 vom Testskript\)' "the singular form"
like "$ERR" 'noch etwa 1 Schritt$' "the singular form of steps"
is "$(echo "$OUT" | json_get - result)/$(echo "$OUT" | json_get - steps.0.verdict)" found/bad \
	"the JSON report keeps its English keys and values"
like "$(echo "$OUT" | json_get - steps.0.seconds)" '^[0-9]+(\.[0-9]+)?$' "JSON numbers keep the decimal point"

run de "$ARTBISECT" --index "$T/farm/index.json" --probe true --good nosuch --work-dir "$T/w3"
is "$RC" 2 "an error under German: the same exit status"
like "$ERR" "unbekannter Build 'nosuch'" "the error message in German"

run de "$ARTBISECT" status --work-dir "$T/w3"
like "$RC/$ERR" "^2/.*keine Sitzung in" "a session message in German"

# The catalog is complete.
if command -v msgfmt > /dev/null; then
	stats=$(msgfmt --check --statistics -o /dev/null "$TESTS_SRCDIR/../po/de.po" 2>&1)
	like "$stats" '^[0-9]+ translated messages\.$' "de.po: every message translated, none fuzzy ($stats)"
else
	skip "de.po statistics" "msgfmt is not installed"
fi

plan_done
