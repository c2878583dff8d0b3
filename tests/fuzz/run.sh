#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make fuzz: run each libFuzzer target BUILD/fuzz-NAME for SECONDS, from its
# seed corpus tests/fuzz/corpus/NAME/ (read only); inputs it finds go to
# BUILD/corpus/NAME/, crashes and leaks to BUILD/artifacts/. Any crash, leak
# or sanitizer report fails the run.
#   tests/fuzz/run.sh BUILD SECONDS NAME...
set -u
B=$1 S=$2
shift 2
repo=$(cd "$(dirname "$0")/../.." && pwd)
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=0:print_stacktrace=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
st=0
for t in "$@"; do
	mkdir -p "$B/corpus/$t" "$B/artifacts"
	dict=()
	[ -f "$repo/tests/fuzz/$t.dict" ] && dict=(-dict="$repo/tests/fuzz/$t.dict")
	log=$B/fuzz-$t.log
	"$B/fuzz-$t" -max_total_time="$S" -timeout=10 -max_len=4096 -print_final_stats=1 \
		"${dict[@]}" -artifact_prefix="$B/artifacts/$t-" \
		"$B/corpus/$t" "$repo/tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
	if [ $rc = 0 ]; then
		echo "fuzz $t: ok, ${execs:-?} execs in ${S}s, ${cov:-no coverage line}, corpus $(ls "$B/corpus/$t" | wc -l) new inputs"
	else
		st=1
		echo "fuzz $t: FAILED (status $rc), log $log:"
		grep -v '^#[0-9]' "$log" | tail -60
		ls "$B/artifacts/$t-"* 2>/dev/null | sed 's/^/  input: /'
	fi
done
exit $st
