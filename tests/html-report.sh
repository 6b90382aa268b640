#!/bin/bash
# --report FILE.html (issue 22): one self-contained page, checked in a
# real browser. Headless Chromium loads each page from file:// as a mail
# attachment would be opened, with every host name unresolvable, and
# dumps its DOM: every build a step tested has a mark with the step's
# verdict, the culprit and the last good build are highlighted, there is
# no script, no image and no link but the compare link, and Chromium's
# network log shows no request made by the page. Screenshots at a
# desktop's and a phone's size are real PNGs. Hostile index strings
# stay text.
set -u
. "${TESTS_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/lib.sh"
command -v chromium >/dev/null 2>&1 ||
	skip_all "chromium is not installed (Debian: apt-get install chromium)"

ab() { "$ARTBISECT" --cache-dir "$T/cache" "$@"; }

# chromium PAGE ARGS...: headless, with its own profile, no background
# traffic of its own that is not labelled so, and no host resolving
# but 127.0.0.1 (the test server, so that a request a page makes there
# is seen in its log).
chrome() {
	local page=$1
	shift
	timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$T/chrome" \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --disable-default-apps --disable-extensions \
		--host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE 127.0.0.1" "$@" "file://$page" 2>>"$T/chrome.err"
}

# The checks on one page, from the DOM Chromium built (html.parser over
# --dump-dom) and from its network log. Prints one problem a line.
cat > "$T/check.py" <<'EOF'
import json, sys
from html.parser import HTMLParser

dom_file, netlog, page, report = sys.argv[1:5]
opts = sys.argv[5:]
problems = []

class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.els = []       # (tag, attrs)
        self.stack = []
        self.text = {}      # id of an element -> its text
        self.style = ""
        self.all_text = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.els.append((tag, a))
        self.stack.append((tag, a))
    def handle_startendtag(self, tag, attrs):
        self.els.append((tag, dict(attrs)))
    def handle_endtag(self, tag):
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break
    def handle_data(self, data):
        self.all_text.append(data)
        for t, a in self.stack:
            if "id" in a:
                self.text[a["id"]] = self.text.get(a["id"], "") + data
            if "class" in a:
                for c in a["class"].split():
                    self.text["." + c] = self.text.get("." + c, "") + data
        if self.stack and self.stack[-1][0] == "style":
            self.style += data

d = Dom()
d.feed(open(dom_file, encoding="utf-8").read())
rep = json.load(open(report))
marks = {}
for tag, a in d.els:
    if a.get("class") == "mark":
        if a.get("data-id") in marks:
            problems.append("two marks for %r" % a.get("data-id"))
        marks[a.get("data-id")] = a

# Each build a step judged: its mark, with the verdict of its last step.
want = {}
for s in rep["steps"]:
    v = {"unavailable": "unavailable", "failed-build": "failed"}.get(s["by"], s["verdict"])
    want[s["id"]] = v
# Under the flaky model a build judged both ways is drawn as such.
if "flaky" in opts:
    seen = {}
    for s in rep["steps"]:
        if s["by"] not in ("unavailable", "failed-build"):
            seen.setdefault(s["id"], set()).add(s["verdict"])
    for i, vs in seen.items():
        if vs >= {"good", "bad"}:
            want[i] = "mixed"
    if "mixed" not in want.values() and "steady" not in opts:
        problems.append("no build was judged both ways (the test needs one)")
    fl = rep["flaky"]
    if "(probability %.3f)" % fl["probability"] not in "".join(d.all_text):
        problems.append("the heading does not give the probability %.3f" % fl["probability"])
    import html, re
    raw = open(dom_file, encoding="utf-8").read()
    rows = [(html.unescape(i), int(f), int(p)) for f, p, i in
            re.findall(r'<tr[^>]* data-fails="(\d+)" data-passes="(\d+)"><td><code>([^<]*)</code>', raw)]
    if rows != [(r["id"], r["fails"], r["passes"]) for r in fl["runs"]]:
        problems.append("the table of runs %r is not the report's %r" % (rows[:5], fl["runs"][:5]))
    ranked = re.findall(r'<table id="ranked">.*?<tr class="culprit"><td><code>([^<]*)</code></td><td>([0-9.]+)</td>', raw, re.S)
    if [(html.unescape(i), p) for i, p in ranked] != [(fl["culprit"], "%.3f" % fl["probability"])]:
        problems.append("the most likely builds do not start with the culprit and its probability: %r" % ranked)
    if "good and bad" not in "".join(d.all_text):
        problems.append("the legend does not say what a build judged both ways looks like")
for i, v in want.items():
    m = marks.get(i)
    if m is None:
        problems.append("no mark for tested build %r" % i)
    elif m.get("data-verdict") != v:
        problems.append("build %r: mark says %r, the report %r" % (i, m.get("data-verdict"), v))
rows = [a for t, a in d.els if t == "tr" and "data-verdict" in a]
if len(rows) != len(rep["steps"]):
    problems.append("%d rows in the table of steps for %d steps" % (len(rows), len(rep["steps"])))
if "all-marks" in opts and len(marks) != rep["builds"]:
    problems.append("%d marks for %d builds" % (len(marks), rep["builds"]))
if "bands" in opts and not any(a.get("class") == "band-run" for t, a in d.els):
    problems.append("no band for the untested builds")

ids = {a.get("id") for t, a in d.els}
last = rep["last_old"]["id"]
if "lastgood" not in ids or last not in d.text.get(".lastgood", ""):
    problems.append("the last good build %r is not highlighted" % last)
if rep["result"] == "found":
    cul = rep["first_new"]["id"]
    if "culprit" not in ids or cul not in d.text.get(".culprit", ""):
        problems.append("the culprit %r is not highlighted" % cul)
    if marks.get(cul, {}).get("data-verdict") not in ("bad", "good", "mixed"):
        problems.append("the culprit's mark has no verdict")
elif "culprit" in ids:
    problems.append("a culprit is highlighted in an inconclusive run")
if rep["result"] == "found" and rep.get("compare_url") and "commands" not in ids:
    problems.append("no git commands")

# Self-contained: no script, nothing to load, one link at most.
for tag, a in d.els:
    if tag in ("script", "img", "iframe", "object", "embed", "link", "image", "use",
               "audio", "video", "source", "base", "form", "meta") and not (
               tag == "meta" and set(a) <= {"charset", "name", "content"} and
               a.get("name") in (None, "viewport", "generator")):
        problems.append("element <%s %s>" % (tag, a))
    for k, v in a.items():
        if k.startswith("on") or k in ("src", "srcset", "xlink:href", "background", "action"):
            problems.append("attribute %s=%r on <%s>" % (k, v, tag))
        if k == "href" and not (tag == "a" and a.get("id") == "compare" and v == rep.get("compare_url")):
            problems.append("href=%r on <%s>" % (v, tag))
if "url(" in d.style or "@import" in d.style:
    problems.append("the style loads something")
if "@media print" not in d.style or "600px" not in d.style:
    problems.append("no print or phone rule in the style")
if "jobs" in opts and "jobs" not in ids:
    problems.append("no picture of the probes under --jobs")
if "jobs" in opts:
    n = sum(1 for t, a in d.els if a.get("class") == "probe-run")
    if n < 2:
        problems.append("%d probes in the picture of the jobs" % n)
if "hostile" in opts:
    text = "".join(d.all_text)
    for s in ("<script>", '"><img src=', "\\x1b"):
        if s not in text:
            problems.append("the text does not show %r" % s)
    if "\x1b" in text or "\x07" in text:
        problems.append("a raw control character in the text")

# The network log: a request the page started has an initiator; the
# browser's own have none ("not an origin").
nl = json.load(open(netlog))
names = {v: k for k, v in nl["constants"]["logEventTypes"].items()}
for e in nl["events"]:
    p = e.get("params", {})
    if names.get(e["type"]) == "URL_REQUEST_START_JOB" and "url" in p \
            and p["url"] != "file://" + page \
            and p.get("initiator") != "not an origin":
        problems.append("the page made a request: %s" % p.get("url"))
for p in problems:
    print(p)
EOF

# render NAME JSON OPTS...: the DOM, the network log and the two
# screenshots of $T/NAME.html, and the checks on them.
render() {
	local name=$1 json=$2
	shift 2
	local page="$T/$name.html"
	chrome "$page" --log-net-log="$T/$name.net.json" --dump-dom > "$T/$name.dom"
	tap_ok $? "$name: Chromium loads the page and dumps its DOM"
	"$PYTHON3" "$T/check.py" "$T/$name.dom" "$T/$name.net.json" "$page" "$json" "$@" > "$T/$name.problems" 2>&1
	is "$(cat "$T/$name.problems")" "" "$name: from the DOM: a mark per tested build with its verdict, highlights, nothing to load, no request"
	for size in 1200,900 390,844; do
		rm -f "$T/$name-$size.png"
		chrome "$page" --screenshot="$T/$name-$size.png" --window-size="$size" --hide-scrollbars >/dev/null
		is "$(head -c 8 "$T/$name-$size.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')/$([ -s "$T/$name-$size.png" ] && echo nonempty)" \
			"89504e470d0a1a0a/nonempty" "$name: a PNG screenshot at $size"
	done
	# A quoted src= is an attribute: escaped text has no raw quote.
	[ -s "$page" ] && ! sed 's/<a id="compare" href="[^"]*">//g' "$page" |
		grep -Eiq '<script|[[:space:]](src|srcset|href)="|@import|url\('
	tap_ok $? "$name: the file has no script, src=\" or url()"
}

# The checker itself sees a page request and a script (or this test
# would pass on a page that loads things).
mkdir -p "$T/cache"
cat > "$T/control.html" <<'EOF'
<!DOCTYPE html><html><head><title>x</title></head><body><img src="http://example.invalid/x.png"><script>1</script></body></html>
EOF
echo '{"result":"aborted","steps":[],"last_old":{"id":"x"},"builds":0}' > "$T/control.json"
chrome "$T/control.html" --log-net-log="$T/control.net.json" --dump-dom > "$T/control.dom"
"$PYTHON3" "$T/check.py" "$T/control.dom" "$T/control.net.json" "$T/control.html" "$T/control.json" > "$T/control.problems" 2>&1
like "$(cat "$T/control.problems")" 'the page made a request: http://example\.invalid/x\.png' "the checks see a request the page made"
like "$(cat "$T/control.problems")" 'element <script' "the checks see a script"

# 1. A finished run, past failed, missing and skipped builds.
mkfarm --out "$T/farm" --builds 60 --culprit 37 --failed 18,19 --missing 30 --skip-builds 28,29
start_server "$T"
run ab --index "$BASE/farm/index.json" --probe ./usr/bin/app --json --report "$T/found.html" --work-dir "$T/w1"
echo "$OUT" > "$T/found.json"
is "$RC/$(json_get "$T/found.json" first_new.id)" 0/b0037 "finished run: found b0037"
render found "$T/found.json" all-marks
chrome "$T/found.html" --print-to-pdf="$T/found.pdf" --no-pdf-header-footer >/dev/null
is "$(head -c 5 "$T/found.pdf" 2>/dev/null)" "%PDF-" "found: it prints (to a PDF) with the print style"
like "$(head -c 15 "$T/found.html")" '^<!DOCTYPE html>' "a name ending in .html gets the HTML page"
run ab --index "$BASE/farm/index.json" --probe ./usr/bin/app --report "$T/found.HTM" --work-dir "$T/w1b"
like "$(head -c 15 "$T/found.HTM")" '^<!DOCTYPE html>' ".HTM in capitals too"
run ab --index "$BASE/farm/index.json" --probe ./usr/bin/app --report "$T/found.md" --work-dir "$T/w1c"
like "$(head -n 1 "$T/found.md")" '^## .*: regression in build b0037$' "any other name still gets the Markdown"

# 2. Inconclusive: the builds before the culprit cannot be tested.
mkfarm --out "$T/inc" --builds 40 --culprit 23 --skip-builds 21,22
run ab --index "$BASE/inc/index.json" --probe ./usr/bin/app --json --report "$T/inconclusive.html" --work-dir "$T/w2"
echo "$OUT" > "$T/inconclusive.json"
is "$(json_get "$T/inconclusive.json" result)" inconclusive "the second run is inconclusive"
render inconclusive "$T/inconclusive.json" all-marks
like "$(cat "$T/inconclusive.dom")" 'Candidates \(they could not be told apart\):' "the inconclusive page lists the candidates"

# 3. --jobs 3: probes side by side, each drawn over the time it ran.
mkfarm --out "$T/jobs" --builds 64 --culprit 40 --failed 20 --missing 33 --skip-builds 45
printf 'sleep 0.3\nexec ./usr/bin/app\n' > "$T/slow.sh"
run ab --index "$BASE/jobs/index.json" --probe "sh $T/slow.sh" --json --jobs 3 --report "$T/jobs.html" --work-dir "$T/w3"
echo "$OUT" > "$T/jobs.json"
is "$RC/$(json_get "$T/jobs.json" first_new.id)" 0/b0040 "--jobs 3: found b0040"
render jobs "$T/jobs.json" all-marks jobs

# 4. Hostile names: markup and control characters stay text.
mkfarm --out "$T/evil" --builds 24 --culprit 15
"$PYTHON3" - "$T/evil/index.json" "$BASE" <<'EOF'
import json, sys
path, base = sys.argv[1:]
d = json.load(open(path))
img = '"><img src=%s/canary.png onerror=alert(1)>' % base
d["name"] = "<script>alert(1)</script>" + img + "\x1b[2J"
for i, b in enumerate(d["builds"]):
    b["version"] = "1.%d<script>alert(2)</script>\x1b]0;t\x07" % i
    b["date"] = img + "'\r\n"
    b["id"] = "%s<script>x</script>%s'" % (b["id"], img)
d["vcs"]["compare_url"] = "https://git.example.org/c?{old}..{new}&q=\"><img src=%s/canary2.png>" % base
json.dump(d, open(path, "w"))
EOF
reset_log
run ab --index "$BASE/evil/index.json" --probe ./usr/bin/app --json --report "$T/hostile.html" --work-dir "$T/w4"
echo "$OUT" > "$T/hostile.json"
is "$RC/$(json_get "$T/hostile.json" result)" 0/found "hostile names: the run finds the culprit"
# The server's log sees a request a page makes to it (or the check
# below would pass whatever the page does).
reset_log
printf '<!DOCTYPE html><html><body><img src="%s/canary-control.png"></body></html>\n' "$BASE" > "$T/canary-control.html"
chrome "$T/canary-control.html" --dump-dom > /dev/null
tap_ok $(( $(count_requests canary-control) > 0 ? 0 : 1 )) "the test server's log sees a request a page makes to it"
reset_log
render hostile "$T/hostile.json" all-marks hostile
is "$(count_requests canary)" 0 "hostile names: the browser asked the test server for nothing"
# The same names under the flaky model: its section and the progress
# lines escape them too.
reset_log
run ab --index "$BASE/evil/index.json" --probe ./usr/bin/app --flaky --json --report "$T/hostile-flaky.html" \
	--work-dir "$T/w4f"
echo "$OUT" > "$T/hostile-flaky.json"
is "$RC/$(json_get "$T/hostile-flaky.json" result)" 0/found "hostile names, --flaky: the run finds the culprit"
render hostile-flaky "$T/hostile-flaky.json" all-marks hostile flaky steady
is "$(count_requests canary)" 0 "hostile names, --flaky: the browser asked the test server for nothing"
is "$(printf '%s' "$ERR" | tr -d '\n' | LC_ALL=C grep -c $'[\x01-\x1f\x7f]')" 0 \
	"hostile names, --flaky: no raw control character in the progress lines"
like "$ERR" 'most likely first bad build b0023<script>x</script>' "where they show the ids as text"

# 5. Over 2,000 builds: untested ones in bands, tested ones each a mark.
mkfarm --out "$T/big" --builds 2500 --culprit 1700 --skip-builds 1000
run ab --index "$BASE/big/index.json" --probe ./usr/bin/app --json --report "$T/big.html" --work-dir "$T/w5"
echo "$OUT" > "$T/big.json"
is "$RC/$(json_get "$T/big.json" first_new.id)" 0/b1700 "2,500 builds: found b1700"
render big "$T/big.json" bands
like "$(wc -c < "$T/big.html")" '^[0-9]{1,5}$' "2,500 builds: the page stays under 100 kB"

# 6. --flaky: a probe that fails on the 2nd and 4th of every 5 runs of
# a bad build, never on a good one. The page gives the probability, the
# most likely builds, each build's runs, and draws builds judged both
# ways as such.
mkfarm --out "$T/flakyfarm" --builds 64 --culprit 37
cat > "$T/flaky-probe" <<P
#!/bin/sh
k=\$(cat "$T/runs.\$ARTBISECT_BUILD" 2>/dev/null || echo 0)
k=\$((k + 1))
echo "\$k" > "$T/runs.\$ARTBISECT_BUILD"
./usr/bin/app >/dev/null 2>&1 && exit 0
case \$((k % 5)) in 2|4) exit 1 ;; esac
exit 0
P
chmod +x "$T/flaky-probe"
run ab --index "$BASE/flakyfarm/index.json" --probe "$T/flaky-probe" --flaky --json --report "$T/flaky.html" --work-dir "$T/w6"
echo "$OUT" > "$T/flaky.json"
is "$RC/$(json_get "$T/flaky.json" first_new.id)" 0/b0037 "--flaky: found b0037"
render flaky "$T/flaky.json" flaky
run ab --index "$BASE/farm/index.json" --probe ./usr/bin/app --report "$T/steady.html" --work-dir "$T/w7"
unlike "$(cat "$T/steady.html")" 'id="flaky"|good and bad|probability' "a steady run's page has no flaky section"

plan_done
