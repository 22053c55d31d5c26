#!/usr/bin/env bash
# The main job on a bundled sample workload (filled in as the subcommands land).
set -euo pipefail
echo "tally demo: build/tally $(build/tally --version)"
