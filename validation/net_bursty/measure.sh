#!/bin/sh
# Voice beside a bulk sender on one drop-tail queue: vsim probe net with both in one htb class
# (20 Mbit/s, a pfifo of 100 packets; --qdisc htb_shared) on a veth, 12 voice streams sent back
# to back every 20 ms (a burst of 12), and a flood of 1000 B datagrams at 0.8-1.5 of the class's
# rate, written on 1 ms wake-ups (--flood-wakeup 0.001, iperf3's default pacing timer) or at each
# datagram's own deadline (--flood-wakeup 0). Three rounds, every setting once per round.
# Run as root from the repository's top folder:  sh validation/net_bursty/measure.sh
# (VSIM is the command that runs vsim, by default python -m vsim; ROUNDS the rounds to take,
# by default 1 2 3.) Each run's summary is kept;
# of the 1 ms wake-up runs the voice rows of the trace too (keep_voice.py), the rest and the
# captures stay in $TMP.
set -eu
VSIM=${VSIM:-"python -m vsim"}
PY=${PY:-python}
OUT=validation/net_bursty/data
TMP=${TMPDIR:-/tmp}/net_bursty.$$
mkdir -p "$OUT" "$TMP"
for round in ${ROUNDS:-1 2 3}; do
  for load in 0.8 0.9 1.0 1.1 1.2 1.5; do
    for wakeup in 0.001 0; do
      name="load${load}_wake${wakeup}_r${round}"
      uptime > "$OUT/$name.uptime"
      mkdir -p "$TMP"  # again: the machine's /tmp is shared
      $VSIM probe net --qdisc htb_shared --rate 2e7 --limit 100 --burst 5000 --streams 12 \
        --period 0.02 --pattern tick --flood-fraction "$load" --flood-size 1000 \
        --flood-wakeup "$wakeup" --duration 8 --out "$TMP/$name.csv" --pcap "$TMP/$name.pcap"
      cp "$TMP/$name.summary.txt" "$OUT/$name.summary.txt"
      if [ "$wakeup" != 0 ]; then
        $PY validation/net_bursty/keep_voice.py "$TMP/$name.csv" "$OUT/$name.voice.csv"
      fi
      rm -f "$TMP/$name.csv" "$TMP/$name.pcap"
    done
  done
done
rmdir "$TMP" 2>/dev/null || true
