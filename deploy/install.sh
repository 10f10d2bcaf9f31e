#!/usr/bin/env bash
# Installs livepush as a systemd service on Raspberry Pi OS bookworm (arm64) or Debian/Ubuntu:
# system packages (scripts/install-deps, plus rpicam-apps on a Raspberry Pi for CSI cameras), a
# release build, the binary, the dashboard, the unit and an example config. The encoder is
# `auto`: livepush itself picks h264_v4l2m2m when it encodes a test frame (Pi 4), else libx264.
#   sudo deploy/install.sh            build from this checkout and install
#   sudo deploy/install.sh --no-build install an already built .build/release/livepush
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/usr/local
build=1
[[ "${1:-}" == "--no-build" ]] && build=0
[[ $(id -u) -eq 0 ]] || { echo "install.sh: run as root (sudo)" >&2; exit 1; }

echo "install.sh: $(. /etc/os-release; echo "$PRETTY_NAME") on $(uname -m)"
bash scripts/install-deps
# CSI cameras (rpicam:N sources) need Raspberry Pi OS's rpicam-apps.
if grep -qs "Raspberry Pi" /proc/device-tree/model; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends rpicam-apps >/dev/null \
    || echo "install.sh: rpicam-apps is not in this system's archive: CSI cameras (rpicam:N) will not work" >&2
fi
if ((build)); then
  swift build -c release --product livepush
fi
install -m 755 .build/release/livepush "$prefix/bin/livepush"
install -d "$prefix/share/livepush/web"
install -m 644 web/* "$prefix/share/livepush/web/"

install -d -m 755 /etc/livepush
if [[ ! -f /etc/livepush/livepush.yaml ]]; then
  sed "s/name: libx264/name: auto/" deploy/examples/livepush.yaml > /etc/livepush/livepush.yaml
  echo "install.sh: wrote /etc/livepush/livepush.yaml (encoder: auto)"
else
  echo "install.sh: keeping the existing /etc/livepush/livepush.yaml"
fi
"$prefix/bin/livepush" check-config /etc/livepush/livepush.yaml
"$prefix/bin/livepush" encoders | grep "auto picks" || true

install -m 644 deploy/livepush.service /etc/systemd/system/livepush.service
if [[ -d /run/systemd/system ]]; then
  systemctl daemon-reload
  systemctl enable --now livepush
  systemctl --no-pager status livepush | head -5 || true
  echo "install.sh: running; dashboard at http://127.0.0.1:8080 (ssh -L 8080:127.0.0.1:8080 this host)"
else
  echo "install.sh: systemd is not running here (container?): start with livepush serve --config /etc/livepush/livepush.yaml"
fi
