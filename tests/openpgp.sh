#!/bin/bash
# tests/openpgp.sh - farms/openpgp.c through tests/pgp-verify: detached
# signatures (armoured and binary) and clear-signed texts made by a real
# gpg, checked against keyrings in every form gpg writes them, and the
# private GnuPG home: made under $TMPDIR, gone afterwards, ~/.gnupg never
# touched.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

need_cmd gpg
V="$TESTS_BUILDDIR/pgp-verify"
[ -x "$V" ] || bail_out "tests/pgp-verify is not built"

# The signer's own GnuPG home, as a release manager's would be.
export GNUPGHOME="$T/signer"
mkdir -m 700 "$GNUPGHOME"
# The user's home: nothing may appear in its ~/.gnupg.
export HOME="$T/home"
mkdir -p "$HOME"
# Where ab_pgp_open makes its private home: must be empty after each run.
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"

g() { gpg --batch --pinentry-mode loopback --passphrase '' "$@"; }
fpr_of() { gpg --batch --with-colons --list-keys "$1" 2>/dev/null | awk -F: '$1 == "fpr" {print $10; exit}'; }

g --quick-gen-key 'Release Signer <release@example.org>' ed25519 sign never 2>"$T/gen.err" ||
	bail_out "gpg cannot make a key: $(cat "$T/gen.err")"
g --quick-gen-key 'Someone Else <else@example.org>' ed25519 sign never 2>>"$T/gen.err" ||
	bail_out "gpg cannot make a second key"
GOOD=$(fpr_of release@example.org)
OTHER=$(fpr_of else@example.org)
OTHER_ID=${OTHER: -16}
[ ${#GOOD} -eq 40 ] && [ ${#OTHER} -eq 40 ] || bail_out "no fingerprints: '$GOOD' '$OTHER'"

mkdir "$T/keys" "$T/files"
gpg --batch --export --armor release@example.org >"$T/keys/good.asc"
gpg --batch --export release@example.org >"$T/keys/good.gpg"
gpg --batch --export else@example.org >"$T/keys/other.gpg"
cp "$GNUPGHOME/pubring.kbx" "$T/keys/both.kbx"

F="$T/files"
cat >"$F/SHA256SUMS" <<'EOF'
4f9d3c2a1b0e8d7c6b5a49382716f5e4d3c2b1a09f8e7d6c5b4a392817f6e5d4  linux-image-6.8.0-generic_amd64.deb
0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9  linux-modules-6.8.0-generic_amd64.deb
EOF
g -u release@example.org --detach-sign --armor -o "$F/SHA256SUMS.asc" "$F/SHA256SUMS"
g -u release@example.org --detach-sign -o "$F/SHA256SUMS.gpg" "$F/SHA256SUMS"
g -u else@example.org --detach-sign -o "$F/SHA256SUMS.other.gpg" "$F/SHA256SUMS"
g -u release@example.org --clearsign -o "$F/CHECKSUMS.clear" "$F/SHA256SUMS"
sed 's/^4f9d/5f9d/' "$F/SHA256SUMS" >"$F/SHA256SUMS.tampered"
sed 's/^4f9d/5f9d/' "$F/CHECKSUMS.clear" >"$F/CHECKSUMS.tampered"
# Bytes that are no OpenPGP data, the same on every run.
"$PYTHON3" -c 'import random, sys; random.seed(7); sys.stdout.buffer.write(bytes(random.randrange(256) for _ in range(300)))' >"$F/garbage.sig"
printf 'not a key, just text\n' >"$T/keys/nokey.txt"

# A key that expired (made and used in 2020, valid one day) and a key
# revoked after it signed.
g --faked-system-time '20200101T000000!' --quick-gen-key 'Old Signer <old@example.org>' ed25519 sign 1d 2>>"$T/gen.err"
OLD=$(fpr_of old@example.org)
g --faked-system-time '20200101T120000!' -u old@example.org --detach-sign -o "$F/SHA256SUMS.old.gpg" "$F/SHA256SUMS" 2>>"$T/gen.err"
gpg --batch --export old@example.org >"$T/keys/old.gpg"
g --quick-gen-key 'Gone Signer <gone@example.org>' ed25519 sign never 2>>"$T/gen.err"
GONE=$(fpr_of gone@example.org)
g -u gone@example.org --detach-sign -o "$F/SHA256SUMS.gone.gpg" "$F/SHA256SUMS"
sed 's/^://' "$GNUPGHOME/openpgp-revocs.d/$GONE.rev" | gpg --batch --import 2>>"$T/gen.err"
gpg --batch --export gone@example.org >"$T/keys/gone.gpg"
# A key that signs with a subkey, as most distribution keys do.
g --quick-gen-key 'Sub Signer <sub@example.org>' ed25519 cert never 2>>"$T/gen.err"
SUBP=$(fpr_of sub@example.org)
g --quick-add-key "$SUBP" ed25519 sign never 2>>"$T/gen.err"
SUBK=$(gpg --batch --with-colons --list-keys sub@example.org 2>/dev/null | awk -F: '$1 == "fpr" {f = $10} END {print f}')
g -u "$SUBK!" --detach-sign -o "$F/SHA256SUMS.sub.gpg" "$F/SHA256SUMS"
gpg --batch --export sub@example.org >"$T/keys/sub.gpg"
# The pacman-key layout: NAME.gpg with NAME-revoked beside it.
mkdir "$T/arch"
cp "$T/keys/good.gpg" "$T/arch/distro.gpg"
echo "$GOOD" >"$T/arch/distro-revoked"

tmp_empty() { [ -z "$(ls -A "$TMPDIR")" ]; }
# The user's own ~/.gnupg holds every key: were it read, the "key not in
# the keyring" cases would pass. Its files and times must stay as they are.
mkdir -m 700 "$HOME/.gnupg"
cp -p "$GNUPGHOME/pubring.kbx" "$GNUPGHOME/trustdb.gpg" "$HOME/.gnupg/"
home_state() { (cd "$HOME" && find .gnupg -exec ls -ld --time-style=full-iso {} + && find .gnupg -type f -exec sha256sum {} +) | sort; }
home_before=$(home_state)
# pgp-verify runs as a user would, with no GNUPGHOME.
pv() { env -u GNUPGHOME "$V" "$@"; }

# -- detached signatures ------------------------------------------------
run pv "$T/keys/good.asc" -- "$F/SHA256SUMS" "$F/SHA256SUMS.asc"
is "$RC $OUT" "0 OK $GOOD" "armoured signature, armoured key: good, signer's fingerprint"
run pv "$T/keys/good.gpg" -- "$F/SHA256SUMS" "$F/SHA256SUMS.gpg"
is "$RC $OUT" "0 OK $GOOD" "binary signature, binary key: good"
run pv "$T/keys/good.gpg" -- "$F/SHA256SUMS" "$F/SHA256SUMS.asc"
is "$RC $OUT" "0 OK $GOOD" "armoured signature, binary key: good"
run pv --fd "$T/keys/good.asc" -- "$F/SHA256SUMS" "$F/SHA256SUMS.gpg"
is "$RC $OUT" "0 OK $GOOD" "the data read from a descriptor: good"
run pv "$T/keys/both.kbx" -- "$F/SHA256SUMS" "$F/SHA256SUMS.gpg"
is "$RC $OUT" "0 OK $GOOD" "a keybox (pubring.kbx) as keyring: good"
run pv "$T/keys/other.gpg" "$T/keys/good.asc" -- "$F/SHA256SUMS" "$F/SHA256SUMS.gpg"
is "$RC $OUT" "0 OK $GOOD" "two keyrings, the signer's second: good"

run pv --threads "$T/keys/good.asc" -- "$F/SHA256SUMS" "$F/SHA256SUMS.asc"
is "$RC $OUT" "0 OK $GOOD" "four threads on one keyring set: every verify good"

run pv "$T/keys/sub.gpg" -- "$F/SHA256SUMS" "$F/SHA256SUMS.sub.gpg"
is "$RC $OUT" "0 OK $SUBP" "signed by a subkey: good, the primary key's fingerprint given"
isnt "$SUBK" "$SUBP" "... (the subkey is not the primary key)"

run pv "$T/keys/good.asc" -- "$F/SHA256SUMS.tampered" "$F/SHA256SUMS.asc"
is "$RC" 1 "tampered data: refused"
like "$OUT" "^BAD: $F/SHA256SUMS.tampered: BAD signature by key [0-9A-F]*${GOOD: -16}" \
	"tampered data: says BAD signature, label first, names the key"
run pv --fd "$T/keys/good.asc" -- "$F/SHA256SUMS.tampered" "$F/SHA256SUMS.gpg"
like "$RC $OUT" "^1 BAD: .*BAD signature" "tampered data from a descriptor: refused"

run pv --threads "$T/keys/good.asc" -- "$F/SHA256SUMS.tampered" "$F/SHA256SUMS.asc"
like "$RC $OUT" "^1 BAD: .*BAD signature" "four threads, tampered data: refused"

run pv "$T/keys/good.asc" -- "$F/SHA256SUMS" "$F/SHA256SUMS.other.gpg"
is "$RC" 1 "signed by a key not in the keyring: refused"
like "$OUT" "^BAD: .*signed by a key not in --keyring \([0-9A-F]*$OTHER_ID\)" \
	"signed by a key not in the keyring: names its key id ($OTHER_ID)"

run pv "$T/keys/good.asc" -- "$F/SHA256SUMS" "$F/garbage.sig"
like "$RC $OUT" "^1 BAD: $F/SHA256SUMS: not an OpenPGP signature" "random bytes as signature: refused"
run pv "$T/keys/good.asc" -- "$F/SHA256SUMS" "$T/keys/good.asc"
like "$RC $OUT" "^1 BAD: $F/SHA256SUMS: not an OpenPGP signature" "a key as signature: refused"

run pv "$T/keys/old.gpg" -- "$F/SHA256SUMS" "$F/SHA256SUMS.old.gpg"
like "$RC $OUT" "^1 BAD: .*signed by key [0-9A-F]*${OLD: -16}, which has expired" \
	"signature by an expired key: refused as expired"
run pv "$T/keys/gone.gpg" -- "$F/SHA256SUMS" "$F/SHA256SUMS.gone.gpg"
like "$RC $OUT" "^1 BAD: .*signed by key [0-9A-F]*${GONE: -16}, which has been revoked" \
	"signature by a revoked key: refused as revoked"
run pv "$T/arch/distro.gpg" -- "$F/SHA256SUMS" "$F/SHA256SUMS.gpg"
is "$RC $OUT" "1 BAD: $F/SHA256SUMS: signed by key $GOOD, which has been revoked" \
	"a key listed in NAME-revoked beside NAME.gpg: refused"

# -- keyrings refused at open ----------------------------------------------
run pv "$T/keys/nokey.txt" -- "$F/SHA256SUMS" "$F/SHA256SUMS.gpg"
is "$RC" 2 "a keyring with no key: refused at open (exit 2)"
like "$ERR" "^$T/keys/nokey.txt: no OpenPGP public key in it" "... naming the file"
: >"$T/keys/empty.gpg"
run pv "$T/keys/empty.gpg" -- "$F/SHA256SUMS" "$F/SHA256SUMS.gpg"
like "$RC $ERR" "^2 $T/keys/empty.gpg: no OpenPGP public key in it" "an empty keyring: refused naming it"
run pv "$T/keys/good.asc" "$T/keys/missing.gpg" -- "$F/SHA256SUMS" "$F/SHA256SUMS.gpg"
is "$RC" 2 "a missing keyring: refused at open (exit 2)"
like "$ERR" "$T/keys/missing.gpg: cannot open: No such file" "... naming the file"
is "$OUT" "" "a refused keyring: no verdict printed"

# -- clear-signed texts -----------------------------------------------------
run pv --clearsigned "$T/keys/good.asc" -- "$F/CHECKSUMS.clear"
is "$RC" 0 "clear-signed, good: accepted"
is "$OUT" "OK
$(cat "$F/SHA256SUMS")" "clear-signed: the signed text alone comes back"
run pv --clearsigned "$T/keys/good.asc" -- "$F/CHECKSUMS.tampered"
like "$RC $OUT" "^1 BAD: $F/CHECKSUMS.tampered: BAD signature" "clear-signed, tampered: refused"
run pv --clearsigned "$T/keys/other.gpg" -- "$F/CHECKSUMS.clear"
like "$RC $OUT" "^1 BAD: .*signed by a key not in --keyring \([0-9A-F]*${GOOD: -16}\)" \
	"clear-signed by a key not in the keyring: refused naming it"
run pv --clearsigned "$T/keys/good.asc" -- "$F/SHA256SUMS"
like "$RC $OUT" "^1 BAD: .*not a clear-signed text" "a text with no signature: refused"
g -u release@example.org -u else@example.org --clearsign -o "$F/twokeys.clear" "$F/SHA256SUMS"
run pv --clearsigned "$T/keys/good.asc" -- "$F/twokeys.clear"
is "$RC $OUT" "0 OK
$(cat "$F/SHA256SUMS")" "clear-signed by two keys, one in the keyring: accepted (as InRelease)"
run pv --clearsigned "$T/keys/old.gpg" -- "$F/twokeys.clear"
like "$RC $OUT" "^1 BAD: .*signed by a key not in --keyring" "clear-signed by two keys, neither in the keyring: refused"
g -u else@example.org --clearsign -o "$F/other.clear" "$F/SHA256SUMS.tampered"
cat "$F/CHECKSUMS.clear" "$F/other.clear" >"$F/two.clear"
run pv --clearsigned "$T/keys/good.asc" "$T/keys/other.gpg" -- "$F/two.clear"
like "$RC $OUT" "^1 BAD: " "two clear-signed blocks in one text: refused, not half-taken"

# -- the private home ---------------------------------------------------------
ok "no private GnuPG home left in TMPDIR after all runs" tmp_empty
is "$(home_state)" "$home_before" "the user's ~/.gnupg is untouched"
run pv --count "$T/keys/good.asc" "$T/keys/other.gpg"
is "$RC $OUT" "0 keys: 2" "two keyrings: two keys imported"

# -- the keyrings distributions install --------------------------------------
run pv --default mainline
is "$RC $OUT" "0 n: 0" "no default keyring for mainline"
fedora=$(ls /usr/share/distribution-gpg-keys/fedora/RPM-GPG-KEY-fedora-*-primary 2>/dev/null | sort)
run pv --default koji
is "$RC $(echo "$OUT" | grep -v '^n: ' | sort)" "0 $fedora" "koji: the Fedora keys of distribution-gpg-keys, if installed (here: $(echo "$fedora" | grep -c .))"
if [ -r /usr/share/keyrings/archlinux.gpg ]; then
	run pv --default arch
	is "$RC $OUT" "0 /usr/share/keyrings/archlinux.gpg
n: 1" "arch: the archlinux-keyring package's keyring"
	want=$(gpg --batch --with-colons --show-keys /usr/share/keyrings/archlinux.gpg 2>/dev/null | grep -c '^pub:')
	run pv --count /usr/share/keyrings/archlinux.gpg
	is "$RC $OUT" "0 keys: $want" "the Arch Linux keyring opens with all its $want keys"
else
	skip "arch: the archlinux-keyring package's keyring" "/usr/share/keyrings/archlinux.gpg is not installed (package archlinux-keyring)"
	skip "the Arch Linux keyring opens" "/usr/share/keyrings/archlinux.gpg is not installed (package archlinux-keyring)"
fi
# A real clear-signed text: apt's InRelease, with the Debian archive keys,
# and gpgv as the second opinion.
inrel=""
for f in /var/lib/apt/lists/*_InRelease; do
	[ -r "$f" ] && [ -r /usr/share/keyrings/debian-archive-keyring.gpg ] || continue
	gpgv --keyring /usr/share/keyrings/debian-archive-keyring.gpg "$f" >/dev/null 2>&1 && { inrel=$f; break; }
done
if [ -n "$inrel" ]; then
	run pv --clearsigned /usr/share/keyrings/debian-archive-keyring.gpg -- "$inrel"
	like "$RC $(echo "$OUT" | sed -n 2p)" "^0 (Origin|Label|Suite|Codename): " \
		"apt's $(basename "$inrel") with debian-archive-keyring: good, as gpgv says, its fields come back"
	unlike "$OUT" "BEGIN PGP" "... and no armour in the text that comes back"
	sed '0,/^ [0-9a-f]\{64\} /s// 0000000000000000000000000000000000000000000000000000000000000000 /' "$inrel" >"$F/InRelease.tampered"
	run pv --clearsigned /usr/share/keyrings/debian-archive-keyring.gpg -- "$F/InRelease.tampered"
	like "$RC $OUT" "^1 BAD: .*BAD signature" "... one SHA256 line changed: refused"
	run pv --clearsigned "$T/keys/good.asc" -- "$inrel"
	like "$RC $OUT" "^1 BAD: .*signed by a key not in --keyring" "... with another keyring: refused"
else
	for d in good "no armour" tampered "another keyring"; do
		skip "apt's InRelease: $d" "no InRelease that gpgv accepts with debian-archive-keyring in /var/lib/apt/lists"
	done
fi
ok "still no private home left in TMPDIR" tmp_empty
# TMPDIR unset: the home goes to /tmp (not checked for leftovers: other
# tests share /tmp), and still works.
run env -u TMPDIR -u GNUPGHOME "$V" "$T/keys/good.asc" -- "$F/SHA256SUMS" "$F/SHA256SUMS.asc"
is "$RC $OUT" "0 OK $GOOD" "TMPDIR unset: the home is made in /tmp"

# -- under memcheck: no invalid access, no definite leak --------------------
vg() {
	run env -u GNUPGHOME valgrind --quiet --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite --show-leak-kinds=definite \
		--log-file="$T/vg.%p.log" "$V" "$@"
	for f in "$T"/vg.*.log; do
		[ -s "$f" ] && diag "$(head -n 40 "$f")"
		rm -f "$f"
	done
}
if ! command -v valgrind >/dev/null 2>&1; then
	for d in good tampered threads clear-signed keybox; do
		skip "memcheck: $d" "valgrind is not installed"
	done
elif ldd "$V" 2>/dev/null | grep -q -E 'lib(asan|ubsan)'; then
	for d in good tampered threads clear-signed keybox; do
		skip "memcheck: $d" "built with sanitizers, which valgrind cannot run"
	done
else
	vg --fd "$T/keys/good.asc" -- "$F/SHA256SUMS" "$F/SHA256SUMS.gpg"
	is "$RC $OUT" "0 OK $GOOD" "memcheck: a good signature, clean"
	vg "$T/keys/good.asc" -- "$F/SHA256SUMS.tampered" "$F/SHA256SUMS.asc"
	like "$RC $OUT" "^1 BAD: .*BAD signature" "memcheck: tampered data, clean"
	vg --threads "$T/keys/good.asc" -- "$F/SHA256SUMS" "$F/SHA256SUMS.gpg"
	is "$RC $OUT" "0 OK $GOOD" "memcheck: four threads, clean"
	vg --clearsigned "$T/keys/good.asc" -- "$F/CHECKSUMS.clear"
	like "$RC $OUT" "^0 OK" "memcheck: clear-signed, clean"
	vg "$T/keys/both.kbx" "$T/keys/nokey.txt" -- "$F/SHA256SUMS" "$F/SHA256SUMS.gpg"
	like "$RC $ERR" "^2 $T/keys/nokey.txt: no OpenPGP public key" "memcheck: a keybox, then a keyring refused, clean"
	ok "memcheck runs left no private home in TMPDIR" tmp_empty
fi

plan_done
