#!/bin/bash
# Real RPMs made by rpm's own tools (shared/testdata/rpm-org): librpm
# checks digests and signatures before anything is unpacked, and the
# report names the reason when a package is refused.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

# make check passes TESTDATA; by hand, look beside the source tree.
: "${TESTDATA:=$(cd "$TESTS_SRCDIR/../.." 2>/dev/null && pwd)/shared/testdata}"
R=$TESTDATA/rpm-org
[ -n "${TESTDATA:-}" ] && [ -d "$R" ] ||
	skip_all "rpm.org's test packages are not in '${TESTDATA:-}'; for the full run, ./configure --with-testdata=DIR where DIR/rpm-org holds them (the project's shared/testdata)"
need_cmd gpg

KEY=$R/rpm.org-rsa-2048-test.pub
mkdir -p "$T/farm"
cp "$R"/*.rpm "$T/farm/"

# An index of three builds: the ends are taken as given, so the one
# probe runs on the middle build, which each case chooses.
mkindex() { # FILE MIDDLE-RPM
	"$PYTHON3" - "$T/farm" "$1" "$2" <<'PY'
import hashlib, json, os, sys
farm, out, middle = sys.argv[1:]
def art(name):
    data = open(os.path.join(farm, name), "rb").read()
    return {"url": name, "sha256": hashlib.sha256(data).hexdigest(),
            "size": len(data), "type": "rpm"}
builds = [{"id": "first", "artifacts": [art("hello-2.0-1.x86_64.rpm")]},
          {"id": "middle", "artifacts": [art(middle)]},
          {"id": "last", "artifacts": [art("hello-2.0-1.x86_64-signed.rpm")]}]
json.dump({"format": "artbisect-index", "version": 1, "builds": builds},
          open(os.path.join(farm, out), "w"))
PY
}
start_server "$T/farm"

# The probe records what it saw in the root, then says good.
probe="find . | sort > '$T/seen'; exit 0"

bisect() { # INDEX [OPTIONS...]
	local index=$1
	shift
	rm -f "$T/seen"
	run "$ARTBISECT" --index "$BASE/$index" --probe "$probe" --json \
		--cache-dir "$T/cache" --work-dir "$T/work" "$@"
	echo "$OUT" > "$T/report.json"
}

# The old-format package (header SHA1 and MD5 only, gzip payload) unpacks.
mkindex old.json hello-1.0-1.i386.rpm
bisect old.json
is "$RC" 0 "old-format rpm: exit 0"
is "$(json_get "$T/report.json" tested)" 1 "old-format rpm: the probe ran"
like "$(cat "$T/seen" 2>/dev/null)" '\./usr/local/bin/hello' "old-format rpm: its files are in the root"
like "$(cat "$T/seen" 2>/dev/null)" '\./usr/share/doc/hello-1.0/FAQ' "old-format rpm: its doc too"

# The unsigned package: accepted without --keyring, digests checked.
mkindex unsigned.json hello-2.0-1.x86_64.rpm
bisect unsigned.json
is "$RC" 0 "unsigned rpm without --keyring: exit 0"
like "$(cat "$T/seen" 2>/dev/null)" '\./usr/bin/hello' "unsigned rpm: unpacked"
[ ! -e "$T/work/roots/1-middle" ]
tap_ok $? "the scratch root is gone after the verdict (no --keep-roots)"

# ... and refused under --keyring: never unpacked, the report says why.
bisect unsigned.json --keyring "$KEY"
# The only build tried was unavailable: exit 3 (section 5).
is "$RC" 3 "unsigned rpm under --keyring: exit 3, nothing could be tested"
is "$(json_get "$T/report.json" tested)" 0 "unsigned rpm under --keyring: no probe ran"
[ ! -e "$T/seen" ]
tap_ok $? "unsigned rpm under --keyring: the probe never saw it"
is "$(json_get "$T/report.json" steps.0.by)" unavailable "unsigned rpm: step is unavailable"
is "$(json_get "$T/report.json" steps.0.reason)" "hello-2.0-1.x86_64.rpm: not signed" \
	"unsigned rpm: reason says not signed"
is "$(json_get "$T/report.json" candidates)" '["middle", "last"]' "both remain candidates"

# The signed package verifies against its key.
mkindex signed.json hello-2.0-1.x86_64-signed.rpm
bisect signed.json --keyring "$KEY"
is "$RC" 0 "signed rpm under its key: exit 0"
like "$(cat "$T/seen" 2>/dev/null)" '\./usr/bin/hello' "signed rpm: unpacked"

# ... and is refused under a keyring without that key.
export GNUPGHOME="$T/gnupg"
mkdir -m 700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key 'Other <other@example.org>' rsa2048 sign never 2>/dev/null
gpg --batch --armor --export other@example.org > "$T/other.asc"
bisect signed.json --keyring "$T/other.asc"
is "$RC" 3 "signed rpm, unknown key: exit 3"
is "$(json_get "$T/report.json" steps.0.reason)" \
	"hello-2.0-1.x86_64-signed.rpm: signed by unknown key 1964c5fc (NOKEY)" \
	"signed rpm, unknown key: the reason names the key"
[ ! -e "$T/seen" ]
tap_ok $? "signed rpm, unknown key: the probe never saw it"
# Two keyrings: one of them is enough.
bisect signed.json --keyring "$T/other.asc" --keyring "$KEY"
is "$RC" 0 "signed rpm, two keyrings, one with its key: exit 0"

# The corrupted package: refused with or without a keyring.
mkindex corrupt.json hello-2.0-1.x86_64-corrupted.rpm
for opt in "" "--keyring $KEY"; do
	# shellcheck disable=SC2086
	bisect corrupt.json $opt
	is "$RC" 3 "corrupted rpm ${opt:-without keyring}: exit 3"
	is "$(json_get "$T/report.json" steps.0.reason)" \
		"hello-2.0-1.x86_64-corrupted.rpm: payload SHA256 digest BAD" \
		"corrupted rpm ${opt:-without keyring}: reason names the payload digest"
	[ ! -e "$T/seen" ]
	tap_ok $? "corrupted rpm ${opt:-without keyring}: the probe never saw it"
done
is "$(json_get "$T/report.json" result)" inconclusive "corrupted rpm: result inconclusive"

# --install rpm: a real rpm transaction into the scratch root, with its
# own database there (never the system's).
mkindex install.json hello-2.0-1.i686.rpm
if [ "$(id -u)" = 0 ] || unshare --user true 2>/dev/null; then
	bisect install.json --install rpm --keep-roots
	is "$RC" 0 "--install rpm: exit 0"
	like "$(cat "$T/seen" 2>/dev/null)" '\./usr/bin/hello' "--install rpm: the package's files are in the root"
	like "$(cat "$T/seen" 2>/dev/null)" '\./var/lib/rpm/rpmdb\.sqlite' "--install rpm: rpm's database is inside the root"
	ok "--install rpm: rpm -q in the root knows the package" \
		rpm --root "$T/work/roots/1-middle" --dbpath /var/lib/rpm -q hello-2.0-1.i686
	bisect signed.json --install rpm --keyring "$T/other.asc"
	is "$(json_get "$T/report.json" steps.0.by)" unavailable "--install rpm under a keyring without the key: refused"
	[ ! -e "$T/seen" ]
	tap_ok $? "--install rpm, unknown key: the probe never saw it"
else
	skip "--install rpm" "neither root nor user namespaces here"
fi

# A keyring that is not a key: exit 2, the file named, nothing downloaded.
reset_log
bisect signed.json --keyring /etc/hostname
is "$RC" 2 "a keyring that is no key: exit 2"
like "$ERR" '/etc/hostname: not an ASCII-armored OpenPGP public key' "the message names the file"
is "$(count_requests '\.rpm')" 0 "nothing downloaded"

plan_done
