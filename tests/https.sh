#!/bin/bash
# HTTPS: a farm behind a certificate from a CA of our own is refused
# unless --cacert names that CA; a redirect from https down to http is
# refused; an index served over https may not point at file:// URLs.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"

need_cmd openssl
mkdir -p "$T/pki"
(
	cd "$T/pki" &&
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=artbisect test CA" \
		-keyout ca.key -out ca.pem &&
	openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout server.key -out server.csr &&
	printf 'subjectAltName=IP:127.0.0.1\n' > ext &&
	openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
		-extfile ext -out server.pem
) > "$T/pki.log" 2>&1 || bail_out "openssl could not make the certificates"

mkfarm --out "$T/farm" --builds 20 --culprit 13
start_server "$T/farm" --tls "$T/pki/server.pem" "$T/pki/server.key"
HTTPS="https://127.0.0.1:$PORT"
ab() { "$ARTBISECT" --cache-dir "$T/cache" --json --probe ./usr/bin/app "$@"; }

run ab --index "$HTTPS/index.json" --work-dir "$T/w1"
is "$RC" 2 "a certificate from an unknown CA: exit 2"
like "$ERR" 'index\.json: .*(certificate|SSL)' "the message says why"
is "$(count_requests '^GET /builds/')" 0 "nothing was downloaded"

run ab --index "$HTTPS/index.json" --work-dir "$T/w2" --cacert "$T/pki/ca.pem"
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0013 "with --cacert naming the CA: found over https"

# A plain http server holding the same files, and an https server that
# redirects one build there.
mkdir -p "$T/plain"
"$PYTHON3" "$TESTS_SRCDIR/httpserver.py" --root "$T/farm" --port 0 --port-file "$T/plain.port" \
	--log "$T/plain.log" > /dev/null 2>&1 &
plain_pid=$!
at_exit "kill $plain_pid 2>/dev/null"
i=0
while [ ! -s "$T/plain.port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
HTTP="http://127.0.0.1:$(cat "$T/plain.port")"
art=$(cd "$T/farm" && ls builds | grep b0009)
set_faults "{\"builds/$art\": [\"always:redirect=$HTTP/builds/$art\"]}"
run ab --index "$HTTPS/index.json" --work-dir "$T/w3" --cacert "$T/pki/ca.pem" --cache-dir "$T/cache3" \
	--no-prefetch
is "$RC/$(echo "$OUT" | json_get - first_new.id)" 0/b0013 "a build redirected to http: the bisection goes around it"
is "$(echo "$OUT" | json_get - steps.0.by)" unavailable "the redirected build is unavailable"
like "$(echo "$OUT" | json_get - steps.0.reason)" "$art: .*(redirect|[Pp]rotocol)" "the reason names the redirect"
is "$(grep -c "GET /builds/$art" "$T/plain.log" 2>/dev/null || echo 0)" 0 "nothing was fetched over plain http"

set_faults '{"index.json": ["always:redirect='"$HTTP"'/index.json"]}'
run ab --index "$HTTPS/index.json" --work-dir "$T/w4" --cacert "$T/pki/ca.pem"
is "$RC" 2 "an index redirected from https to http: exit 2"
set_faults '{}'

# An https index with file:// artifacts is refused before anything is fetched.
"$PYTHON3" - "$T/farm/index.json" "$T/farm/local.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["builds"][3]["artifacts"][0]["url"] = "file:///etc/passwd"
json.dump(d, open(sys.argv[2], "w"))
PY
run ab --index "$HTTPS/local.json" --work-dir "$T/w5" --cacert "$T/pki/ca.pem"
like "$RC/$ERR" "^2/.*file:// URLs are not allowed in an index served over http or https" "file:// in an https index: exit 2, said"

plan_done
