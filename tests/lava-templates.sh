#!/bin/bash
# The shipped LAVA job templates for boards (u-boot and grub over TFTP),
# checked by LAVA's own dispatcher: lava-boot makes the job for a build
# of a farm served here, and `lava-run --validate` builds the whole job
# pipeline against a real device type of Debian's lava-server (a
# BeagleBone Black through u-boot, a Raspberry Pi 4 with an arm64 Image,
# an UP Squared through grub): every action, the downloads (each farm
# URL is asked for), the TFTP deploy, the boot loader commands and the
# login. No board boots here, and no lab is started; tests/lava.sh boots
# the qemu template on a real lab.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

DT=/usr/share/lava-server/device-types
command -v lava-run > /dev/null 2>&1 ||
	skip_all "LAVA's dispatcher is not installed here: apt-get install lava-server lava-dispatcher"
[ -f "$DT/beaglebone-black.jinja2" ] && [ -f "$DT/upsquare.jinja2" ] ||
	skip_all "lava-server's device types are not installed here: apt-get install lava-server"
/usr/bin/python3 -c 'import jinja2, yaml' 2> /dev/null ||
	skip_all "python3-jinja2 and python3-yaml are needed to render device dictionaries"

P="$TESTS_SRCDIR/../data/probes/lava-boot"
TPLS="$TESTS_SRCDIR/../data/lava"

# A farm build with kernel, initramfs and device tree as file artifacts.
mkdir -p "$T/farm/k1"
head -c 200000 /dev/urandom > "$T/farm/k1/zImage"
head -c 200000 /dev/urandom > "$T/farm/k1/Image"
head -c 100000 /dev/urandom > "$T/farm/k1/initrd.img"
head -c 30000 /dev/urandom > "$T/farm/k1/board.dtb"
start_server "$T/farm"
sum() { sha256sum < "$T/farm/k1/$1" | cut -d' ' -f1; }

# A device dictionary as a lab admin writes it: the type's template, a
# console and power commands (never run by a validation).
device() {	# TYPE: prints the rendered device configuration
	/usr/bin/python3 - "$DT" "$1" <<'EOF'
import sys, jinja2
env = jinja2.Environment(loader=jinja2.FileSystemLoader([sys.argv[1]]),
                         autoescape=False, trim_blocks=True)
print(env.from_string("""{%% extends '%s.jinja2' %%}
{%% set connection_command = 'telnet 127.0.0.1 7001' %%}
{%% set hard_reset_command = '/bin/true' %%}
{%% set power_off_command = '/bin/true' %%}
{%% set power_on_command = '/bin/true' %%}
""" % sys.argv[2]).render())
EOF
}

# job TEMPLATE TYPE KERNEL [--set ...]: lava-boot's job for build k1
job() {
	local tpl=$1 type=$2 kernel=$3
	shift 3
	ARTBISECT_BUILD=k1 ARTBISECT_VERSION=6.1.1 ARTBISECT_STEP=1 ARTBISECT_ROOT="$T/root" \
		ARTBISECT_ARTIFACT_URLS=$(printf '%s\n' "$BASE/k1/$kernel" "$BASE/k1/initrd.img" "$BASE/k1/board.dtb") \
		ARTBISECT_ARTIFACT_SHA256S=$(printf '%s\n' "$(sum "$kernel")" "$(sum initrd.img)" "$(sum board.dtb)") \
		"$P" --lava http://127.0.0.1:1 --print-job --template "$TPLS/$tpl" --device-type "$type" "$@"
}

# validate NAME JOB TYPE: runs the dispatcher's validation; RC and $T/NAME/
validate() {
	rm -rf "$T/$1"
	mkdir -p "$T/$1/out"
	device "$3" > "$T/$1/device.yaml"
	RC=0
	timeout 120 lava-run --job-id 1 --output-dir "$T/$1/out" --validate \
		--device "$T/$1/device.yaml" "$2" > "$T/$1/log" 2>&1 || RC=$?
}
actions() { grep -o 'name: [a-z-]*' "$T/$1/out/description.yaml" 2> /dev/null | sort -u | tr '\n' ' '; }
why() { grep '"error_msg"' "$T/$1/log" | head -n 1; }

# --- u-boot on a BeagleBone Black (zImage, bootz) ---------------------------
mkdir -p "$T/root"
job uboot-tftp-ramdisk.yaml beaglebone-black zImage > "$T/uboot.yaml"
is "$?" 0 "lava-boot makes a u-boot job for a build with zImage, initramfs and device tree"
like "$(tr -d ' ' < "$T/uboot.yaml")" "url:'$BASE/k1/board.dtb'" "the job takes the device tree from the farm"
validate bbb "$T/uboot.yaml" beaglebone-black
is "$RC" 0 "LAVA's dispatcher validates it against the beaglebone-black device type"
[ "$RC" = 0 ] || diag "$(tail -n 5 "$T/bbb/log")"
a=$(actions bbb)
like "$a" "tftp-deploy" "its pipeline deploys over TFTP"
like "$a" "uboot-commands" "boots through u-boot's commands"
like "$a" "auto-login-action" "and waits for the prompt"
for f in zImage initrd.img board.dtb; do
	ok "the dispatcher asked the farm's server for k1/$f" grep -q "/k1/$f" "$T/server.log"
done

# --- u-boot on a Raspberry Pi 4, arm64 Image (booti) ------------------------
job uboot-tftp-ramdisk.yaml bcm2711-rpi-4-b Image --set kernel_type=image > "$T/rpi.yaml"
validate rpi "$T/rpi.yaml" bcm2711-rpi-4-b
is "$RC" 0 "with kernel_type=image it validates against bcm2711-rpi-4-b"
[ "$RC" = 0 ] || diag "$(tail -n 5 "$T/rpi/log")"

# --- grub on an UP Squared ---------------------------------------------------
job grub-tftp-ramdisk.yaml upsquare zImage > "$T/grub.yaml"
validate up "$T/grub.yaml" upsquare
is "$RC" 0 "the grub template validates against the upsquare device type"
[ "$RC" = 0 ] || diag "$(tail -n 5 "$T/up/log")"
a=$(actions up)
like "$a" "grub-main-action" "its pipeline boots through grub"
like "$a" "tftp-deploy" "after a TFTP deploy"

# --- the check tells wrong jobs from right ones ------------------------------
sed 's/^device_type: .*/device_type: upsquare/' "$T/uboot.yaml" > "$T/wrong.yaml"
validate wrong "$T/wrong.yaml" upsquare
isnt "$RC" 0 "a u-boot job for a grub board is refused"
like "$(why wrong)" "None of the boot strategies accepted" "because no boot strategy of that board takes it"
rm "$T/farm/k1/board.dtb"
validate gone "$T/uboot.yaml" beaglebone-black
isnt "$RC" 0 "a job whose device tree has gone from the farm is refused before any board is touched"
like "$(why gone)" "board.dtb' \\(404\\)" "naming the URL that is missing"

plan_done
