#!/bin/sh
# Side-by-side speed comparison, in one run, of `harnesskit patch apply` and the Codex CLI's
# native applier (npm package @openai/codex, its binary invoked through a link named
# apply_patch: patch on stdin, applied in the current directory) on the same patch and file:
# a 100,000-line file and one Update section of 1,000 exact chunks (patch/internal/benchgen).
# Before every timed run both working copies are restored from the pristine file.
#
# Usage, from anywhere inside the repository:
#   HARNESSKIT_CODEX_APPLY_PATCH=/path/to/codex patch/testdata/bench/compare.sh
# Environment:
#   HARNESSKIT_CODEX_APPLY_PATCH  the Codex native binary or a link to it (default: apply_patch
#                                 on PATH). Install: npm install --prefix /tmp/codex-oracle
#                                 @openai/codex@0.171.0; the binary is
#                                 /tmp/codex-oracle/node_modules/@openai/codex-*/vendor/*/bin/codex
#   RUNS     timed runs per command (default 30)      LINES, CHUNKS  size (default 100000, 1000)
#   OUT      directory for hyperfine's JSON and Markdown exports (default: not kept)
# Times with hyperfine when installed (Debian: apt-get install -y hyperfine), and always with
# patch/internal/sidebyside (interleaved runs, CPU time, results checked).
set -eu

repo=$(cd "$(dirname "$0")/../../.." && pwd)
runs=${RUNS:-30}
lines=${LINES:-100000}
chunks=${CHUNKS:-1000}

codex=${HARNESSKIT_CODEX_APPLY_PATCH:-$(command -v apply_patch || true)}
if [ -z "$codex" ] || [ ! -x "$codex" ]; then
	echo "compare.sh: the Codex applier is not installed; run" >&2
	echo "  npm install --prefix /tmp/codex-oracle @openai/codex@0.171.0" >&2
	echo "  export HARNESSKIT_CODEX_APPLY_PATCH=\$(ls /tmp/codex-oracle/node_modules/@openai/codex-*/vendor/*/bin/codex)" >&2
	exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/bin" "$work/codex" "$work/hk"
# Codex picks its apply_patch personality from argv[0].
ln -s "$(readlink -f "$codex")" "$work/bin/apply_patch"

cd "$repo"
go run ./patch/internal/benchgen -dir "$work/src" -lines "$lines" -chunks "$chunks"
go build -o "$work/bin/harnesskit" ./examples/harnesskit

restore="cp $work/src/file.txt $work/codex/file.txt && cp $work/src/file.txt $work/hk/file.txt"
codex_cmd="cd $work/codex && $work/bin/apply_patch < $work/src/patch.txt > /dev/null"
hk_cmd="$work/bin/harnesskit patch apply --root $work/hk < $work/src/patch.txt > /dev/null"

# Both must produce the expected file, or the timing means nothing.
sh -c "$restore"
sh -c "$codex_cmd"
sh -c "$hk_cmd"
for who in codex hk; do
	if ! cmp -s "$work/$who/file.txt" "$work/src/expected.txt"; then
		echo "compare.sh: $who did not produce the expected file" >&2
		exit 1
	fi
done
echo "both appliers produce expected.txt ($lines lines, $chunks chunks, patch $(wc -c < "$work/src/patch.txt") bytes)"

# 1. hyperfine, when installed: mean ± σ over RUNS runs, both copies restored before each run.
if command -v hyperfine > /dev/null; then
	set -- --warmup 3 --runs "$runs" --prepare "$restore"
	if [ -n "${OUT:-}" ]; then
		mkdir -p "$OUT"
		set -- "$@" --export-json "$OUT/compare.json" --export-markdown "$OUT/compare.md"
	fi
	hyperfine "$@" -n "harnesskit patch apply" "$hk_cmd" -n "codex apply_patch" "$codex_cmd"
else
	echo "hyperfine not found (Debian: apt-get install -y hyperfine); using sidebyside only"
fi

# 2. sidebyside: the same runs interleaved (A B A B …, so load changes hit both alike), no
# shell in between, the child's CPU time reported too, and every result checked.
go build -o "$work/bin/sidebyside" ./patch/internal/sidebyside
"$work/bin/sidebyside" -src "$work/src" -runs "$runs" \
	-cmd "codex=$work/bin/apply_patch" \
	-cmd "harnesskit=$work/bin/harnesskit patch apply --root ."
