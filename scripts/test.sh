#!/usr/bin/env bash
# Installs what the tests need, then runs them all: the README's test command, and what
# CI runs (.ci/run calls this script).
#
# Installs, only when missing:
#   - git            the tests check repositories with the git command;
#   - gettext        `msgfmt` compiles the PO files `l10n export` writes;
#   - strace         the kill tests stop commands just before each write;
#   - translate-toolkit 3.20.4 (pip, for python3)
#                    the localization tests read our XLIFF/PO exports with it.
# System packages come from apt-get (through sudo when not root); on a machine without
# apt-get, install them yourself and run this again.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

missing=()
command -v git >/dev/null || missing+=(git)
command -v msgfmt >/dev/null || missing+=(gettext)
command -v strace >/dev/null || missing+=(strace)
command -v python3 >/dev/null || missing+=(python3)
python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null; then
    echo "scripts/test.sh: the tests need ${missing[*]}; this machine has no apt-get: install them, then run this again" >&2
    exit 2
  fi
  echo "installing ${missing[*]} (apt-get)" >&2
  $sudo apt-get update -q
  $sudo apt-get install -y -q "${missing[@]}"
fi

if ! python3 -c "import translate.storage" 2>/dev/null; then
  echo "installing translate-toolkit 3.20.4 (pip)" >&2
  # A system Python marked externally managed (PEP 668) needs the explicit flag.
  python3 -m pip install -q --user "translate-toolkit==3.20.4" 2>/dev/null ||
    python3 -m pip install -q "translate-toolkit==3.20.4" ||
    python3 -m pip install -q --break-system-packages "translate-toolkit==3.20.4"
fi

cargo test --workspace --locked
