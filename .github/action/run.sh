#!/usr/bin/env bash
# The step of the listings GitHub Action (action.yml at the repository root): publish the catalog(s) of
# INPUT_SOURCE with listings-cli, leave the reports for actions/upload-artifact, and write the step's outputs.
# Every input arrives in an INPUT_* variable (never pasted into this script), the API key in LISTINGS_API_KEY from
# the workflow's env:. Annotations and the job summary come from listings itself (GITHUB_ACTIONS=true).
set -uo pipefail

lines() { # the non-empty lines of $1, trimmed, one per line
  printf '%s\n' "$1" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' | grep -v '^$' || true
}
truthy() { case "$1" in true | True | TRUE | yes | 1) return 0 ;; *) return 1 ;; esac; }
fail() { echo "::error title=listings action::$1" >&2; exit 2; }

# The profile settings given as inputs; the others come from the workflow's env: or a profile.
setting() { if [ -n "${2:-}" ]; then export "$1=$2"; fi; }
setting LISTINGS_BASE_URL "${INPUT_BASE_URL:-}"
setting LISTINGS_MARKETPLACE "${INPUT_MARKETPLACE:-}"
setting LISTINGS_MERCHANT_LOCATION_KEY "${INPUT_MERCHANT_LOCATION_KEY:-}"
setting LISTINGS_FULFILLMENT_POLICY_ID "${INPUT_FULFILLMENT_POLICY_ID:-}"
setting LISTINGS_PAYMENT_POLICY_ID "${INPUT_PAYMENT_POLICY_ID:-}"
setting LISTINGS_RETURN_POLICY_ID "${INPUT_RETURN_POLICY_ID:-}"
setting LISTINGS_CONDITION "${INPUT_CONDITION:-}"
if truthy "${INPUT_SAVED_DEFAULTS:-false}"; then export LISTINGS_SAVED_DEFAULTS=true; fi

args=(publish)
mapfile -t sources < <(lines "${INPUT_SOURCE:-}")
[ "${#sources[@]}" -gt 0 ] || fail "the input 'source' is empty: give a catalog (a path, an http(s) URL or s3://...), one per line"
args+=("${sources[@]}")
mapfile -t reports < <(lines "${INPUT_REPORTS:-}")
for report in "${reports[@]}"; do
  mkdir -p -- "$(dirname -- "$report")"
  args+=(--report "$report")
done
if [ -n "${INPUT_SHARD:-}" ]; then args+=(--shard "$INPUT_SHARD"); fi
if truthy "${INPUT_CHANGED_ONLY:-false}"; then args+=(--changed-only); fi
if truthy "${INPUT_DRY_RUN:-false}"; then args+=(--dry-run); fi
# Further flags, split on white space (no quoting): e.g. "--max-errors 500 --concurrency 32".
if [ -n "${INPUT_ARGS:-}" ]; then read -r -a extra <<<"$INPUT_ARGS" && args+=("${extra[@]}"); fi
summary_json="${INPUT_SUMMARY_JSON:-listings-summary.json}"
mkdir -p -- "$(dirname -- "$summary_json")"

# listings itself: on PATH when the workflow installed it, else the version asked for, else the action's own.
if ! command -v listings >/dev/null 2>&1; then
  version="${INPUT_VERSION:-}"
  if [ -z "$version" ]; then
    version="$(node -p 'require(process.argv[1]).version' "${GITHUB_ACTION_PATH:-.}/package.json" 2>/dev/null || echo latest)"
  fi
  echo "::group::install listings-cli@$version" >&2
  npm install --global --no-audit --no-fund "listings-cli@$version" >&2 || fail "could not install listings-cli@$version"
  echo "::endgroup::" >&2
fi

listings "${args[@]}" --json >"$summary_json"
code=$?

# Outputs: the exit code, and the reports written (for actions/upload-artifact's path:).
written=()
for file in "${reports[@]}" "$summary_json"; do
  if [ -s "$file" ]; then written+=("$file"); fi
done
html=""
for file in "${written[@]}"; do
  case "$file" in *.html | *.htm) html="$file"; break ;; esac
done
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  delimiter="listings_$RANDOM$RANDOM$RANDOM"
  {
    echo "exit-code=$code"
    echo "summary-json=$([ -s "$summary_json" ] && printf '%s' "$summary_json")"
    echo "html-report=$html"
    echo "reports<<$delimiter"
    if [ "${#written[@]}" -gt 0 ]; then printf '%s\n' "${written[@]}"; fi
    echo "$delimiter"
  } >>"$GITHUB_OUTPUT"
fi

# Rows that failed or were invalid (exit 1) fail the step unless fail-on-rows is false; every other code does.
if [ "$code" -eq 1 ] && ! truthy "${INPUT_FAIL_ON_ROWS:-true}"; then
  echo "::warning title=listings::some rows failed or were invalid (exit 1): see the annotations, the job summary and the reports" >&2
  exit 0
fi
exit "$code"
