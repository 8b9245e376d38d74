#!/usr/bin/env bash
# Training tools from Debian (not part of the extension build; CI never runs this): PyTorch and NumPy for
# Debian's python3. Needs root (apt-get).
set -euo pipefail
if /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null; then exit 0; fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq python3-torch python3-numpy >/dev/null || { apt-get update -qq && apt-get install -y -qq python3-torch python3-numpy >/dev/null; }
/usr/bin/python3 -c 'import torch; print("install: torch", torch.__version__)'
