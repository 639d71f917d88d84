#!/usr/bin/env bash
# Installs the C libraries mixrender builds on (Debian 12 package names), and any packages named on the command line
# with them in the same apt-get call (CI adds chromium, slurm-wlm and munge for its page and Slurm tests).
set -euo pipefail
packages=("$@" pkg-config libsndfile1-dev libogg-dev libmpg123-dev libsamplerate0-dev libsoxr-dev libfftw3-dev libpng-dev libebur128-dev libespeak-ng-dev espeak-ng-data libtag1-dev libavformat-dev libavcodec-dev libavutil-dev python3-venv libsqlite3-dev zlib1g-dev postgresql postgresql-client)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update
$sudo apt-get install -y "${missing[@]}"
