#!/bin/sh
# Measure the serial collector's pauses under SipHeap's call-state heap on this machine.
#
#   sh validation/jvm_gc/measure.sh            # writes validation/jvm_gc/runs/*.log and machine.txt
#
# OpenJDK 17's serial collector (-XX:+UseSerialGC) is the descendant of Sun JDK 1.4.2's
# default: a copying young collection and a mark-compact full collection, both stopping the
# application. The heap is fixed (-Xms = -Xmx, -Xmn) so that nothing is resized, and
# -XX:MaxTenuringThreshold=0 promotes whatever survives a young collection at once, as the
# model does. 200 calls/s, 65,000 bytes of garbage and 30,000 of held state a call; what
# varies is how long a call's state is held (the live state a collection finds), and for
# the young collections the state's size.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/runs"
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
mkdir -p "$out"
javac -d "$classes" "$here/SipHeap.java"
jvm="-XX:+UseSerialGC -Xms256m -Xmx256m -Xmn32m -XX:MaxTenuringThreshold=0 -XX:+AlwaysPreTouch -XX:-UsePerfData"
run() {  # name seconds garbage state hold
    java $jvm "-Xlog:gc*:file=$out/$1.log:uptime" -cp "$classes" SipHeap 200 "$2" "$3" "$4" "$5" > "$out/$1.out"
}
for hold in 0.25 0.5 1 2 8; do run "young_hold$hold" 30 65000 30000 "$hold"; done
for state in 10000 60000; do run "young_state$state" 30 65000 "$state" 8; done
for hold in 4 8 16 24; do run "full_hold$hold" 90 65000 30000 "$hold"; done
{
    java -version 2>&1 | head -2
    uname -srm
    grep -m1 'model name' /proc/cpuinfo
    nproc
    cat /proc/loadavg
    date -u +%Y-%m-%dT%H:%M:%SZ
} > "$here/machine.txt"
