#!/usr/bin/env bash
# Installs the Debian packages tally needs to build, test, benchmark and demo.
# As root it runs apt-get; otherwise it prints the one line to run.
set -euo pipefail
packages=(
  build-essential pkg-config libjansson-dev libsqlite3-dev sqlite3 libpq-dev
  postgresql libmicrohttpd-dev jq bc procps time coop-computing-tools pajeng
  libsimgrid-dev chromium hyperfine nodejs curl
  nats-server libnats-dev openmpi-bin libopenmpi-dev mpich libmpich-dev
  gfortran prometheus prometheus-node-exporter afl++ clang libclang-rt-14-dev
  libpapi-dev tmux iproute2
  socat passwd util-linux coop-computing-tools-dev openssl strace
  slurm-wlm slurmctld slurmd munge libslurm-dev slurmdbd mariadb-server
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "tally: missing packages; run as root: apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
