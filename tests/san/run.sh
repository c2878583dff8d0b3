#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make sanitize: the unit and host tests (Landlock too) against a build made with ASan +
# UBSan (and LeakSanitizer). Every report is written to a file under
# BUILD/reports, whatever the process (Criterion's forked tests, agentcage's
# children, a test script that discards stderr); any report fails the run,
# as does any suite failing.
set -u
B=${1:-build/san}
repo=$(cd "$(dirname "$0")/../.." && pwd)
R=$(realpath "$B")/reports
rm -rf "$R"
mkdir -p "$R" && chmod 1777 "$R"      # the host tests also run agentcage as nobody
common="halt_on_error=1:print_stacktrace=1:log_path=$R/report"
export ASAN_OPTIONS="$common:detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="$common"
st=0
"$B/unit" || { echo "sanitize: unit tests failed"; st=1; }
"$repo/tests/host/run.sh" "$B/agentcage" || { echo "sanitize: host tests failed"; st=1; }
"$repo/tests/host/net.sh" "$B/nettest" || { echo "sanitize: host network tests failed"; st=1; }
"$repo/tests/host/landlock.sh" "$B/agentcage" || { echo "sanitize: host Landlock tests failed"; st=1; }
reports=$(find "$R" -type f | sort)
for f in $reports; do
	echo "==== sanitizer report $f"
	cat "$f"
done
n=$(echo -n "$reports" | grep -c .)
echo "sanitize: $n sanitizer reports"
[ "$n" = 0 ] && [ $st = 0 ]
