#!/usr/bin/env bash
# Tests for the simulated V4L2 camera (scripts/v4l2sim), driven through real
# third-party clients (v4l2-ctl, ffmpeg) and a small probe (simprobe.c) for exact
# errno values and the burned-in frame code. Prints "ok - NAME" / "not ok - NAME"
# per check and "N passed, M failed"; exits non-zero if any check failed.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d /tmp/simcam-tests.XXXXXX)"
trap 'rm -rf "$work"' EXIT
build="$work/build"
lib="$build/libv4l2sim.so"
probe="$build/simprobe"
faults="$work/faults"
node=/dev/video-sim0
enc=/dev/video-sim-enc0
passed=0
failed=0

T() { timeout -k 2 30 "$@"; }

# Runs a command against the simulator with the test configuration.
sim() {
  LD_PRELOAD="$lib" LIVEPUSH_SIM_DEVICES="$node,/dev/video-sim1" LIVEPUSH_SIM_0_CARD="Test Cam A" \
    LIVEPUSH_SIM_ENCODERS="$enc" LIVEPUSH_SIM_ENC_LOG="$work/enc.log" LIVEPUSH_SIM_FAULTS="$faults" "$@"
}

check() {
  local name="$1"
  shift
  : >"$faults"
  local rc=0
  # a subshell outside any condition, so that set -e applies inside the check
  set +e
  (set -e; "$@") >"$work/out" 2>&1
  rc=$?
  set -e
  if [[ $rc -eq 0 ]]; then
    echo "ok - $name"
    passed=$((passed + 1))
  else
    echo "not ok - $name"
    sed 's/^/#   /' "$work/out" | tail -n 20
    failed=$((failed + 1))
  fi
  : >"$faults"
}

fails() { # fails CMD...: CMD must exit non-zero
  if "$@"; then
    echo "expected failure: $*" >&2
    return 1
  fi
}

expect() { # expect FILE PATTERN...: every extended regex must match a line of FILE
  local file="$1" pattern
  shift
  for pattern in "$@"; do
    grep -Eq -- "$pattern" "$file" || { echo "missing /$pattern/ in:"; head -n 40 "$file"; return 1; }
  done
}

# Waits (bounded) until FILE has at least N lines matching PATTERN.
wait_lines() {
  local file="$1" pattern="$2" n="$3" i
  for i in $(seq 1 100); do
    [[ $(grep -Ec -- "$pattern" "$file" 2>/dev/null || true) -ge $n ]] && return 0
    sleep 0.05
  done
  echo "timed out waiting for $n lines /$pattern/ in $file"
  return 1
}

# Frame codes in a decode listing: consecutive from FIRST, COUNT of them, spaced ~1/FPS apart.
frames_in_order() {
  local listing="$1" first="$2" count="$3" fps="$4"
  awk -v first="$first" -v count="$count" -v fps="$fps" '
    $2 == "none" { print "frame without code at " NR; bad = 1; next }
    { if ($2 != first + n) { print "frame " n " has code " $2 ", want " first + n; bad = 1 }
      if (n == 0) t0 = $4; tl = $4; n++ }
    END {
      if (n != count) { print "got " n " frames, want " count; exit 1 }
      if (bad) exit 1
      spacing = (tl - t0) / (count - 1) / 1e6; want = 1000 / fps
      if (spacing < want * 0.9 || spacing > want * 1.1) { print "spacing " spacing " ms, want " want; exit 1 }
      print "frames " first ".." first + count - 1 ", spacing " spacing " ms" }' "$listing"
}

t_build() {
  mkdir -p "$build"
  T make -s -C "$repo/scripts/v4l2sim" OUT="$build" 2>"$work/warnings"
  T gcc -Wall -Wextra -O2 -o "$probe" "$repo/Tests/SimCameraTests/simprobe.c"
  [[ ! -s "$work/warnings" ]] || { cat "$work/warnings"; return 1; }
  [[ -f "$lib" ]]
}

t_all() {
  sim T v4l2-ctl -d $node --all >"$work/all"
  expect "$work/all" 'Driver name +: v4l2sim' 'Card type +: Test Cam A' 'Bus info +: usb-' \
    'Device Caps +: 0x05200001' 'Width/Height +: 640/480' "Pixel Format +: 'YUYV'" 'Bytes per Line +: 1280' \
    'Size Image +: 614400' 'Frames per second: 30.000' 'Video input : 0 \(Camera 1: ok\)'
  sim T v4l2-ctl -d /dev/video-sim1 --info | grep -q 'Card type *: livepush Sim Camera 1'
}

t_formats() {
  sim T v4l2-ctl -d $node --list-formats-ext >"$work/fmts"
  expect "$work/fmts" "\[0\]: 'YUYV'" "\[1\]: 'MJPG' \(Motion-JPEG, compressed\)" "\[2\]: 'NV12'"
  [[ $(grep -c 'Size: Discrete 1920x1080' "$work/fmts") -eq 3 ]]
  # 1080p YUYV offers only 5 fps (USB 2 bandwidth); 1080p MJPEG offers 30 and 15
  awk '/\[0\]/,/\[1\]/' "$work/fmts" | grep -A3 1920x1080 >"$work/yuyv1080"
  expect "$work/yuyv1080" '5.000 fps'
  fails grep -q '30.000 fps' "$work/yuyv1080"
  awk '/\[1\]/,/\[2\]/' "$work/fmts" | grep -A2 1920x1080 | grep -q '30.000 fps'
}

t_controls() {
  sim T v4l2-ctl -d $node --list-ctrls-menus >"$work/ctrls"
  expect "$work/ctrls" 'brightness 0x00980900 \(int\) +: min=0 max=255 step=1 default=128 value=128' \
    'contrast 0x00980901' 'saturation 0x00980902' 'white_balance_temperature_auto 0x0098090c \(bool\)' \
    'white_balance_temperature 0x0098091a .*flags=inactive' 'power_line_frequency 0x00980918 \(menu\)' \
    '1: 50 Hz' 'exposure_auto 0x009a0901 \(menu\) .*value=3 \(Aperture Priority Mode\)' '1: Manual Mode' \
    'exposure_absolute 0x009a0902 .*flags=inactive' 'focus_auto 0x009a090c' 'focus_absolute 0x009a090a .*flags=inactive'
  fails grep -q '2: Shutter Priority Mode' "$work/ctrls"
}

t_set_get_ctrl() {
  sim T v4l2-ctl -d $node --set-ctrl brightness=77,exposure_auto=1,contrast=300 \
    --get-ctrl brightness,exposure_auto,contrast --list-ctrls >"$work/get"
  expect "$work/get" '^brightness: 77$' '^exposure_auto: 1' '^contrast: 255$' \
    'exposure_absolute 0x009a0902 \(int\) +: min=3 max=2047 step=1 default=250 value=250$'
  # menu index 2 is not offered: the driver refuses it
  fails sim T v4l2-ctl -d $node --set-ctrl exposure_auto=2 2>"$work/err"
  expect "$work/err" 'Invalid argument'
}

t_ctrl_state_dir() {
  mkdir -p "$work/state"
  LIVEPUSH_SIM_STATE_DIR="$work/state" sim T v4l2-ctl -d $node --set-ctrl saturation=42
  LIVEPUSH_SIM_STATE_DIR="$work/state" sim T v4l2-ctl -d $node --get-ctrl saturation >"$work/get"
  expect "$work/get" '^saturation: 42$'
  sim T v4l2-ctl -d $node --get-ctrl saturation | grep -q '^saturation: 128$'
}

t_fmt_snap() {
  sim T v4l2-ctl -d $node --set-fmt-video=width=1000,height=700,pixelformat=NV12 --get-fmt-video >"$work/fmt"
  expect "$work/fmt" 'Width/Height +: 1280/720' "Pixel Format +: 'NV12'" 'Size Image +: 1382400'
  sim T v4l2-ctl -d $node --set-fmt-video=width=1920,height=1080,pixelformat=YUYV --set-parm=30 --get-parm >"$work/parm"
  expect "$work/parm" 'Frames per second: 5.000 \(5/1\)'
  sim T v4l2-ctl -d $node --set-parm=15 --get-parm | grep -q 'Frames per second: 15.000 (15/1)'
}

t_unknown_ioctl() {
  fails sim T v4l2-ctl -d $node --get-standard >"$work/std" 2>&1
  expect "$work/std" 'VIDIOC_G_STD.*Inappropriate ioctl for device'
}

t_stream_v4l2ctl() {
  sim T v4l2-ctl -d $node --set-fmt-video=width=1280,height=720,pixelformat=YUYV --stream-mmap --stream-count=60 \
    --stream-to="$work/s.yuv"
  local size
  size=$(stat -c %s "$work/s.yuv")
  [[ $size -eq $((60 * 1280 * 720 * 2)) ]] || { echo "size $size"; return 1; }
  "$probe" decode yuyv 1280 720 "$work/s.yuv" >"$work/codes"
  frames_in_order "$work/codes" 0 60 30
}

t_ffmpeg_yuyv() {
  sim T ffmpeg -nostdin -hide_banner -loglevel error -y -f v4l2 -input_format yuyv422 -video_size 640x480 \
    -i $node -frames:v 30 -f rawvideo "$work/f.yuv"
  [[ $(stat -c %s "$work/f.yuv") -eq $((30 * 640 * 480 * 2)) ]]
  "$probe" decode yuyv 640 480 "$work/f.yuv" >"$work/codes"
  frames_in_order "$work/codes" "$(awk 'NR==1{print $2}' "$work/codes")" 30 30
}

t_ffmpeg_mjpeg() {
  sim T ffmpeg -nostdin -hide_banner -loglevel error -y -f v4l2 -input_format mjpeg -video_size 1280x720 \
    -i $node -frames:v 20 -c copy -f mjpeg "$work/f.mjpeg" 2>"$work/ffm.err" || { cat "$work/ffm.err"; return 1; }
  T ffmpeg -nostdin -hide_banner -loglevel error -y -i "$work/f.mjpeg" -f rawvideo -pix_fmt gray "$work/f.gray"
  [[ $(stat -c %s "$work/f.gray") -eq $((20 * 1280 * 720)) ]]
  "$probe" decode gray 1280 720 "$work/f.gray" >"$work/codes"
  frames_in_order "$work/codes" "$(awk 'NR==1{print $2}' "$work/codes")" 20 30
}

t_probe_nv12() {
  sim T "$probe" stream $node NV12 640 480 5 3000 >"$work/p"
  expect "$work/p" '^eagain$' '^buf seq=0 bytesused=460800 ts=[0-9]+ flags=0x12001 code=0 ' '^buf seq=4 .* code=4 ' '^done$'
  awk '/^buf/ { split($4, t, "="); split($7, c, "="); if (t[2] != c[2]) { print "ts " t[2] " != code " c[2]; bad = 1 } }
       END { exit bad }' "$work/p"
}

t_fault_busy() {
  echo "$node busy" >"$faults"
  fails sim T v4l2-ctl -d $node --all >"$work/e" 2>&1
  expect "$work/e" 'Device or resource busy'
  echo "* busy streamon" >"$faults"
  # v4l2-ctl reports a failed STREAMON but still exits 0, so only its message is checked
  sim T v4l2-ctl -d $node --stream-mmap --stream-count=1 --stream-to=/dev/null >"$work/e" 2>&1 || true
  expect "$work/e" 'VIDIOC_STREAMON returned -1 \(Device or resource busy\)'
}

t_fault_eacces() {
  echo "$node eacces" >"$faults"
  fails sim T v4l2-ctl -d $node --all >"$work/e" 2>&1
  expect "$work/e" 'Permission denied'
  sim T v4l2-ctl -d /dev/video-sim1 --info >/dev/null # other node unaffected
}

t_fault_unplug_open() {
  echo "$node unplug" >"$faults"
  fails sim T v4l2-ctl -d $node --all >"$work/e" 2>&1
  expect "$work/e" 'Cannot open device /dev/video-sim0'
  sim T "$probe" stream $node YUYV 640 480 1 1000 >"$work/p" || true
  expect "$work/p" '^open errno=No such file or directory$'
  : >"$faults" # replug
  sim T v4l2-ctl -d $node --info >/dev/null
}

t_fault_unplug_streaming() {
  sim T "$probe" stream $node YUYV 640 480 100000 8000 >"$work/p" 2>&1 &
  local pid=$!
  wait_lines "$work/p" '^buf ' 5
  echo "$node unplug" >"$faults"
  local rc=0
  wait $pid || rc=$?
  [[ $rc -eq 3 ]] || { echo "probe exit $rc"; cat "$work/p"; return 1; }
  expect "$work/p" '^pollerr$' '^dqbuf errno=No such device$'
  # v4l2-ctl (blocking DQBUF) streaming when the camera goes away
  : >"$faults"
  sim T v4l2-ctl -d $node --stream-mmap --stream-count=1000 --stream-to=/dev/null >"$work/v" 2>&1 &
  pid=$!
  sleep 0.5
  echo "$node unplug" >"$faults"
  wait $pid || true # v4l2-ctl exits 0 after a failed DQBUF; it must stop, not hang, and say why
  expect "$work/v" 'VIDIOC_DQBUF: failed: No such device'
  : >"$faults" # replug: a new open streams again
  sim T "$probe" stream $node YUYV 640 480 3 3000 >"$work/p2"
  expect "$work/p2" '^buf seq=2 '
}

t_fault_stall() {
  sim T "$probe" stream $node YUYV 640 480 12 6000 >"$work/p" &
  local pid=$!
  wait_lines "$work/p" '^buf ' 4
  echo "$node stall" >"$faults"
  sleep 1
  : >"$faults"
  wait $pid
  # a gap of >= 0.9 s between two consecutive buffers, and frames resumed after it
  awk '/^buf/ { split($4, t, "="); if (prev && t[2] - prev > 9e8) gap = 1; prev = t[2]; n++ }
       END { if (!gap || n != 12) { print "gap " gap " frames " n; exit 1 } }' "$work/p"
}

t_fault_corrupt_mjpeg() {
  echo "$node corrupt-mjpeg 3" >"$faults"
  sim T "$probe" stream $node MJPG 640 480 9 5000 >"$work/p"
  # every 3rd frame (seq 2, 5, 8) is cut to a third of the size of its neighbours
  awk '/^buf/ { split($2, s, "="); split($3, b, "="); size[s[2]] = b[2] }
       END { for (q = 2; q <= 8; q += 3) if (!(size[q] * 2 < size[q - 1])) { print "seq " q ": " size[q] " vs " size[q - 1]; exit 1 }
             if (!(size[0] > 10000 && size[1] * 2 > size[0])) { print "good frames too small"; exit 1 } }' "$work/p"
  # what a client sees on the wire: v4l2-ctl stores them, the JPEG decoder complains
  sim T v4l2-ctl -d $node --set-fmt-video=width=640,height=480,pixelformat=MJPG --stream-mmap --stream-count=6 \
    --stream-to="$work/c.mjpeg"
  T ffmpeg -nostdin -hide_banner -loglevel error -f mjpeg -i "$work/c.mjpeg" -f null - >"$work/dec" 2>&1 || true
  [[ -s "$work/dec" ]] || { echo "ffmpeg decoded corrupt frames without complaint"; return 1; }
}

t_fault_drop_seq() {
  echo "$node drop-seq 3 5" >"$faults"
  sim T "$probe" stream $node YUYV 640 480 12 5000 >"$work/p"
  grep '^buf' "$work/p" | sed 's/^buf seq=\([0-9]*\) .*code=\([0-9]*\) .*/\1 \2/' >"$work/seqs"
  # 0-4, then 3 numbers skipped every 5 frames: 8-12, 16-17; the frame code follows the sequence
  [[ "$(awk '{print $1}' "$work/seqs" | paste -sd' ')" == "0 1 2 3 4 8 9 10 11 12 16 17" ]] || { cat "$work/seqs"; return 1; }
  awk '$1 != $2 { exit 1 }' "$work/seqs"
}

t_sim_camera_script() {
  printf '[/dev/video-cfg0]\ncard = Config Cam\nsizes = 320x240,800x600\nformats = MJPG\nfps = 20\n' >"$work/sim.conf"
  LIVEPUSH_SIM_BUILD_DIR="$build" T "$repo/scripts/sim-camera" --config "$work/sim.conf" -- \
    v4l2-ctl -d /dev/video-cfg0 --all --list-formats-ext >"$work/o" 2>"$work/e"
  expect "$work/e" 'simulated V4L2 nodes: /dev/video-cfg0'
  expect "$work/o" 'Card type +: Config Cam' 'Width/Height +: 320/240' "Pixel Format +: 'MJPG'" \
    'Frames per second: 20.000' 'Size: Discrete 800x600'
  fails grep -q "'YUYV'" "$work/o"
}

t_enc_all() {
  sim T v4l2-ctl -d $enc --all --list-formats --list-formats-out >"$work/all"
  expect "$work/all" 'Driver name +: bcm2835-codec' 'Card type +: bcm2835-codec-encode' \
    'Video Memory-to-Memory Multiplanar' 'Format Video Capture Multiplanar' "Pixel Format +: 'H264'" \
    "Pixel Format +: 'YU12'" "\[0\]: 'H264' \(H.264, compressed\)" "\[1\]: 'NV12'" \
    'video_bitrate 0x009909cf \(int\) +: min=25000 max=25000000 step=25000 default=10000000' \
    'video_bitrate_mode 0x009909ce \(menu\)' 'repeat_sequence_header 0x009909e2 \(bool\)' \
    'force_key_frame 0x009909e5 \(button\)' 'h264_i_frame_period 0x00990a66' \
    'h264_level 0x00990a67 \(menu\) +: min=0 max=13 default=11' 'h264_profile 0x00990a6b \(menu\) +: min=0 max=4 default=4'
  # the bitrate is clamped to the driver's limits
  sim T v4l2-ctl -d $enc --set-ctrl video_bitrate=90000000 --get-ctrl video_bitrate | grep -q '^video_bitrate: 25000000$'
}

# v4l2-ctl lists only nodes named video<digit>…: with the Pi's names, both nodes show, grouped by bus.
t_enc_list_devices() {
  LD_PRELOAD="$lib" LIVEPUSH_SIM_DEVICES=/dev/video0 LIVEPUSH_SIM_ENCODERS=/dev/video11 T v4l2-ctl --list-devices >"$work/list"
  expect "$work/list" '^bcm2835-codec-encode \(platform:bcm2835-codec\):' '^	/dev/video11$' \
    '^livepush Sim Camera 0 \(usb-0000:00:14.0-1\):' '^	/dev/video0$'
}

# FFmpeg's own h264_v4l2m2m finds the node by reading /dev and encodes through it.
enc_ffmpeg() { # enc_ffmpeg PIXFMT FRAMES OUT
  sim T ffmpeg -nostdin -hide_banner -loglevel error -y -f lavfi -i testsrc=size=640x480:rate=30 -frames:v "$2" \
    -pix_fmt "$1" -c:v h264_v4l2m2m -b:v 1M "$3"
}

t_enc_ffmpeg() {
  local fmt
  for fmt in yuv420p nv12; do
    : >"$work/enc.log"
    enc_ffmpeg $fmt 90 "$work/e.h264"
    T ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=codec_name,width,height,nb_read_frames \
      -of default=nw=1 "$work/e.h264" >"$work/probe"
    expect "$work/probe" '^codec_name=h264$' '^width=640$' '^height=480$' '^nb_read_frames=90$'
    # I-period 60: two IDRs; SPS/PPS only in front of the first (the bcm2835-codec quirk)
    [[ $(grep -c ' idr=1 ' "$work/enc.log") -eq 2 && $(grep -c ' sps=1 ' "$work/enc.log") -eq 1 ]] ||
      { cat "$work/enc.log" | grep -E 'idr=1|open|streamon'; return 1; }
    [[ $(T ffprobe -v error -show_entries frame=pict_type -of csv "$work/e.h264" | grep -c ',I') -eq 2 ]]
  done
  expect "$work/enc.log" 'streamon output' 'streamon capture' 'ctrl bitrate=1000000'
}

t_enc_wedge() {
  echo "$enc wedge" >"$faults"
  : >"$work/enc.log"
  local rc=0
  sim timeout -k 2 4 ffmpeg -nostdin -hide_banner -loglevel error -y -f lavfi -i testsrc=size=640x480:rate=30 \
    -frames:v 30 -pix_fmt yuv420p -c:v h264_v4l2m2m "$work/w.h264" || rc=$?
  # frames went in, no packet came out: ffmpeg fails (it asserts, or hangs in the drain until the timeout)
  [[ $rc -ne 0 ]] || { echo "ffmpeg exit $rc"; return 1; }
  expect "$work/enc.log" 'streamon capture'
  fails grep -q ' frame ' "$work/enc.log"
  [[ ! -s "$work/w.h264" ]]
}

check build t_build
if [[ $failed -gt 0 ]]; then
  echo "0 passed, 1 failed"
  exit 1
fi
check v4l2-ctl-all t_all
check v4l2-ctl-list-formats-ext t_formats
check v4l2-ctl-list-ctrls-menus t_controls
check v4l2-ctl-set-get-ctrl t_set_get_ctrl
check controls-persist-in-state-dir t_ctrl_state_dir
check s-fmt-snaps-and-parm t_fmt_snap
check unknown-ioctl-enotty t_unknown_ioctl
check v4l2-ctl-stream-60-frames-720p t_stream_v4l2ctl
check ffmpeg-yuyv422-640x480 t_ffmpeg_yuyv
check ffmpeg-mjpeg-1280x720 t_ffmpeg_mjpeg
check probe-nv12-eagain-timestamps t_probe_nv12
check fault-busy t_fault_busy
check fault-eacces t_fault_eacces
check fault-unplug-open-enoent-replug t_fault_unplug_open
check fault-unplug-while-streaming t_fault_unplug_streaming
check fault-stall t_fault_stall
check fault-corrupt-mjpeg t_fault_corrupt_mjpeg
check fault-drop-seq t_fault_drop_seq
check sim-camera-config-file t_sim_camera_script
check encoder-v4l2-ctl-all t_enc_all
check encoder-v4l2-ctl-list-devices t_enc_list_devices
check encoder-ffmpeg-h264_v4l2m2m t_enc_ffmpeg
check encoder-fault-wedge t_enc_wedge

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
