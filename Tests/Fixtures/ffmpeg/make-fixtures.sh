#!/usr/bin/env bash
# Makes the small FFmpeg-only fixtures that FFmpegFileReaderTests and the CLI tests read. The tests do not
# need this script nor the ffmpeg command: the files it made are committed beside it. Run it again (with
# Debian 12's ffmpeg 5.1: `apt-get install ffmpeg`) only to change them, and update the tests' constants.
#
# The signal is made here by FFmpeg's aevalsrc from a formula, which the tests compute again
# (FFmpegFixtures.swift): 1.5 s of a 440 Hz sine at 0.4 with a 1 kHz burst at 0.4 from 0.75 s for 0.1 s.
# The stereo files carry 660 Hz (at 0.3) on the right instead of 440 Hz, so that the channel order shows.
set -euo pipefail
cd "$(dirname "$0")"

mono='0.4*sin(2*PI*440*t)+0.4*between(t,0.75,0.85-1/(2*s))*sin(2*PI*1000*(t-0.75))'
right='0.3*sin(2*PI*660*t)+0.4*between(t,0.75,0.85-1/(2*s))*sin(2*PI*1000*(t-0.75))'
input=(-hide_banner -loglevel error -y -f lavfi -i)
exact=(-fflags +bitexact -flags:a +bitexact -map_metadata -1)

# An iPhone voice memo: AAC-LC in .m4a, 48 kHz mono, with an edit list for the encoder's priming, and tags.
ffmpeg "${input[@]}" "aevalsrc='${mono}':s=48000:d=1.5" "${exact[@]}" -c:a aac -b:a 64k \
    -metadata title="Voice memo" -metadata artist="mixrender tests" -metadata comment="440 Hz and a burst" \
    memo-48k-mono.m4a
# AAC-LC in .mp4, 44.1 kHz stereo.
ffmpeg "${input[@]}" "aevalsrc='${mono}|${right}':s=44100:d=1.5" "${exact[@]}" -c:a aac -b:a 96k \
    stereo-44k.mp4
# Opus in WebM (Matroska), 48 kHz mono.
ffmpeg "${input[@]}" "aevalsrc='${mono}':s=48000:d=1.5" "${exact[@]}" -c:a libopus -b:a 48k opus-48k-mono.webm
# Vorbis in WebM, 44.1 kHz stereo.
ffmpeg "${input[@]}" "aevalsrc='${mono}|${right}':s=44100:d=1.5" "${exact[@]}" -c:a libvorbis -q:a 2 \
    vorbis-44k-stereo.webm
# A video with no audio stream: 4 frames of 16x16 grey.
ffmpeg "${input[@]}" "color=gray:s=16x16:r=4:d=1" "${exact[@]}" -c:v mpeg4 -an video-only.mp4
# Raw AAC (ADTS) whose sample rate changes half-way: 0.5 s at 48 kHz, then 0.5 s at 44.1 kHz.
ffmpeg "${input[@]}" "aevalsrc='${mono}':s=48000:d=0.5" "${exact[@]}" -c:a aac -b:a 48k -f adts part1.aac.tmp
ffmpeg "${input[@]}" "aevalsrc='${mono}':s=44100:d=0.5" "${exact[@]}" -c:a aac -b:a 48k -f adts part2.aac.tmp
cat part1.aac.tmp part2.aac.tmp > rate-change.aac
rm part1.aac.tmp part2.aac.tmp
ls -l
