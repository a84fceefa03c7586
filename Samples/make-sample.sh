#!/bin/sh
# Generates Samples/sample.flv and Samples/sample.mp4: 10 s of 1280x720 30 fps testsrc2 + 440 Hz sine,
# H.264 (libx264, GOP 30) + AAC. Idempotent: existing files are kept unless FORCE=1.
set -eu
cd "$(dirname "$0")"

make_sample() {
    out="$1"
    if [ -s "$out" ] && [ "${FORCE:-0}" != "1" ]; then
        echo "$out exists"
        return
    fi
    tmp="$out.tmp.$$"
    ext="${out##*.}"
    ffmpeg -hide_banner -loglevel error -y \
        -f lavfi -i "testsrc2=size=1280x720:rate=30" \
        -f lavfi -i "sine=frequency=440:sample_rate=48000" \
        -t 10 -map 0:v -map 1:a \
        -c:v libx264 -preset veryfast -pix_fmt yuv420p -g 30 -keyint_min 30 -sc_threshold 0 -b:v 2500k \
        -c:a aac -b:a 128k -ac 2 \
        -f "$ext" "$tmp"
    mv "$tmp" "$out"
    echo "wrote $out"
}

make_sample sample.flv
make_sample sample.mp4
