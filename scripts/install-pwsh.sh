#!/usr/bin/env bash
# Installs real PowerShell (pwsh 7.6.9, a .NET global tool from NuGet) into .tools/pwsh inside the repo:
# the lab's Windows hosts run it as their login shell, and the tests parse every script the roles emit with it.
# Pinned: a later 7.7 may want a newer .NET than the machines have. Prints pwsh's path; idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

version=7.6.9
dir=.tools/pwsh
if [ -x "$dir/pwsh" ] && [ "$("$dir/pwsh" -NoLogo -NoProfile -NonInteractive -Command '$PSVersionTable.PSVersion.ToString()' 2>/dev/null)" = "$version" ]; then
  echo "$PWD/$dir/pwsh"
  exit 0
fi
if ! command -v dotnet >/dev/null; then
  echo "install-pwsh: the tests need real PowerShell $version, a .NET tool: install the .NET SDK (8 or later) first," >&2
  echo "  then run: dotnet tool install --tool-path $dir PowerShell --version $version" >&2
  exit 1
fi
echo "install-pwsh: installing PowerShell $version into $dir (dotnet tool)" >&2
rm -rf "$dir"
DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 dotnet tool install --tool-path "$dir" PowerShell --version "$version" >&2
echo "$PWD/$dir/pwsh"
