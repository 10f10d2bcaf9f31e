#!/usr/bin/env bash
# Installs livepush as a systemd service on Raspberry Pi OS bookworm (arm64) or Debian/Ubuntu:
# system packages (scripts/install-deps), a release build, the binary, the dashboard, the unit and
# an example config. Picks the hardware H.264 encoder (h264_v4l2m2m, Raspberry Pi 4) when it
# really opens, else libx264 (Pi 5 and PCs), and says which.
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
if ((build)); then
  swift build -c release --product livepush
fi
install -m 755 .build/release/livepush "$prefix/bin/livepush"
install -d "$prefix/share/livepush/web"
install -m 644 web/* "$prefix/share/livepush/web/"

# Encoder choice: try a one-second hardware encode; fall back to libx264.
encoder=libx264
if timeout 20 ffmpeg -hide_banner -loglevel error -f lavfi -i testsrc=size=640x480:rate=30 -t 1 \
     -c:v h264_v4l2m2m -b:v 1M -f null - 2>/dev/null; then
  encoder=h264_v4l2m2m
  echo "install.sh: the hardware encoder h264_v4l2m2m works here: using it"
else
  echo "install.sh: no working hardware H.264 encoder (h264_v4l2m2m did not open): using libx264"
fi

install -d -m 755 /etc/livepush
if [[ ! -f /etc/livepush/livepush.yaml ]]; then
  sed "s/name: libx264/name: $encoder/" deploy/examples/livepush.yaml > /etc/livepush/livepush.yaml
  echo "install.sh: wrote /etc/livepush/livepush.yaml (encoder $encoder)"
else
  echo "install.sh: keeping the existing /etc/livepush/livepush.yaml"
fi
"$prefix/bin/livepush" check-config /etc/livepush/livepush.yaml

install -m 644 deploy/livepush.service /etc/systemd/system/livepush.service
if [[ -d /run/systemd/system ]]; then
  systemctl daemon-reload
  systemctl enable --now livepush
  systemctl --no-pager status livepush | head -5 || true
  echo "install.sh: running; dashboard at http://127.0.0.1:8080 (ssh -L 8080:127.0.0.1:8080 this host)"
else
  echo "install.sh: systemd is not running here (container?): start with livepush serve --config /etc/livepush/livepush.yaml"
fi
