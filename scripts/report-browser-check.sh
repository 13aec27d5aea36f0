#!/usr/bin/env bash
# Usage: scripts/report-browser-check.sh STACKLAB [SCREENSHOT.png]
#   Renders the HTML report of the committed fixtures (Tests/LabCommandsTests/Fixtures/report) in headless
#   Chromium, at the default 800-pixel window and at 1200, and fails when the page's script did not run, the
#   browser logged a script error, or the page's own check found a problem: a line chart with no point, no
#   chart at all, or a page wider than the window (a table that does not scroll inside it). The check sets
#   the title to "ok N line charts (P points), B bars" or "problem: …"; the fixtures must give line charts.
#   Then the standalone SVG charts (`stacklab report --charts`): the fixtures' and the README's committed ones
#   (results/charts/*.svg) must load as SVG documents (no XML error) with a chart in them.
#   Writes a screenshot when asked (docs/report.png is one). Installs Debian's chromium when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
stacklab=${1:?usage: scripts/report-browser-check.sh STACKLAB [SCREENSHOT.png]}
screenshot=${2:-}
if ! command -v chromium >/dev/null; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "installing: chromium"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fixtures=Tests/LabCommandsTests/Fixtures/report
"$stacklab" report "$fixtures/startup-base.csv" "$fixtures/startup-head.csv" "$fixtures/concurrency.csv" \
    --html "$work/report.html" >/dev/null
browser() { # ARGS...: headless Chromium as root in a container too, its own profile, no GPU
    timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
        --enable-logging=stderr --v=0 "$@"
}
for size in 800,600 1200,1500; do
    browser --window-size="$size" --dump-dom "file://$work/report.html" >"$work/dom.html" 2>"$work/console.log" || {
        cat "$work/console.log" >&2
        echo "report-browser-check: chromium failed" >&2
        exit 1
    }
    title=$(grep -m 1 -o '<title>[^<]*</title>' "$work/dom.html" || true)
    if grep -E 'Uncaught|CONSOLE.*(Error|error)' "$work/console.log" >&2; then
        echo "report-browser-check: a script error in the page" >&2
        exit 1
    fi
    case "$title" in
        "<title>ok "*) ;;
        *) echo "report-browser-check: the page's check did not pass at $size: $title" >&2; exit 1 ;;
    esac
    # The fixtures sweep store size and batch size: their charts are lines, each with points.
    charts=$(sed -E 's/^<title>ok ([0-9]+) line charts \(([0-9]+) points\).*/\1 \2/' <<<"$title")
    read -r lines points <<<"$charts"
    if ! [ "${lines:-0}" -ge 1 ] 2>/dev/null || [ "${points:-0}" -lt "$lines" ]; then
        echo "report-browser-check: no line chart drew: $title" >&2
        exit 1
    fi
done
# The SVG files a README shows: the fixtures' figures as written now, and the committed charts.
"$stacklab" report "$fixtures/startup-base.csv" "$fixtures/startup-head.csv" "$fixtures/concurrency.csv" \
    --charts "$work/charts" >/dev/null
for svg in "$work"/charts/*.svg results/charts/*.svg; do
    browser --dump-dom "file://$(realpath "$svg")" >"$work/svg-dom.xml" 2>>"$work/console.log" || {
        echo "report-browser-check: chromium failed on $svg" >&2
        exit 1
    }
    if grep -q '<parsererror' "$work/svg-dom.xml"; then
        echo "report-browser-check: $svg is not a well-formed SVG document" >&2
        exit 1
    fi
    if ! grep -qE 'class="(line-chart|bar|change|phase)"' "$work/svg-dom.xml"; then
        echo "report-browser-check: $svg has no chart in it" >&2
        exit 1
    fi
done
if [ -n "$screenshot" ]; then
    # Scrollbars shown: a wide table's scrollbar is what tells a reader there is more of it.
    browser --window-size=1200,2300 --screenshot="$screenshot" "file://$work/report.html" \
        2>>"$work/console.log"
    [ -s "$screenshot" ] || { echo "report-browser-check: no screenshot" >&2; exit 1; }
fi
echo "report-browser-check: $title"
