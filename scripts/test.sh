#!/usr/bin/env bash
# The README's test command: makes sure the system packages the suite needs are present, then runs vitest.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t packages < <(grep -vE '^\s*(#|$)' scripts/system-packages.txt)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if ((${#missing[@]} > 0)); then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "test: installing ${missing[*]} (apt-get)" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "test: the suite needs these Debian packages: ${missing[*]}" >&2
    echo "run:  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

if [ "$(id -u)" != 0 ] && [ -z "${GC_SKIP_LAB:-}" ]; then
  echo "test: the lab tests make network namespaces and run sshd, which needs root." >&2
  echo "run it as root (for example: sudo npm test), or GC_SKIP_LAB=1 npm test for the tests that need no root" >&2
  exit 1
fi

[ -d node_modules ] || npm ci
# Real PowerShell: the lab's Windows hosts run it, and the Windows scripts are parsed with it (.tools/pwsh).
GC_PWSH="$(bash scripts/install-pwsh.sh)"
export GC_PWSH
mkdir -p test-results
projects=()
[ -n "${GC_SKIP_LAB:-}" ] && projects=(--project unit)
exec npx vitest run "${projects[@]}" --reporter=default --reporter=json --outputFile.json=test-results/vitest.json "$@"
