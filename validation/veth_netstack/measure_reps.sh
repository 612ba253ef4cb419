#!/bin/sh
# Repeated short runs of this machine's Linux TCP stack between two network namespaces over a
# veth pair, for the model check in compare.py: 3 rounds of iperf3 for 3 s at MTU 1500, 4000
# and 9000 with segmentation offload off and at 1500 and 9000 with it on, then 3 rounds of
# rr.py (10,000 one-byte transactions). Sender pinned to CPU 0, receiver to CPU 1, both at
# nice 10. Run as root from the repository: sh validation/veth_netstack/measure_reps.sh.
set -e
out=validation/veth_netstack/runs
mkdir -p $out
. validation/veth_netstack/pair.sh
{ date -u; uptime; } > $out/date.txt
for round in 1 2 3; do
  for case in 1500:off 4000:off 9000:off 1500:on 9000:on; do
    mtu=${case%:*}; offload=${case#*:}
    ip -n vsa link set va mtu $mtu; ip -n vsb link set vb mtu $mtu
    ip netns exec vsa ethtool -K va tso $offload gso $offload >/dev/null
    ip netns exec vsb ethtool -K vb gro $offload >/dev/null
    ip netns exec vsb nice -n 10 taskset -c 1 iperf3 -s -1 -B 10.77.0.2 >/dev/null &
    sleep 1
    ip netns exec vsa nice -n 10 taskset -c 0 iperf3 -c 10.77.0.2 -t 3 -J \
      > $out/stream_mtu${mtu}_offload_${offload}_r${round}.json
    wait
  done
done
ip -n vsa link set va mtu 1500; ip -n vsb link set vb mtu 1500
ip netns exec vsa ethtool -K va tso on gso on >/dev/null
ip netns exec vsb ethtool -K vb gro on >/dev/null
for round in 1 2 3; do
  ip netns exec vsb nice -n 10 taskset -c 1 python3 validation/veth_netstack/rr.py server 10.77.0.2 5299 &
  sleep 1
  ip netns exec vsa nice -n 10 taskset -c 0 python3 validation/veth_netstack/rr.py client 10.77.0.2 5299 10000 \
    > $out/rr_r${round}.json
  wait
done
uptime >> $out/date.txt
