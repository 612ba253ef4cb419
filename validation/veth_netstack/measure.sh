#!/bin/sh
# Measure this machine's Linux TCP stack between two network namespaces over a veth pair:
# iperf3 TCP_STREAM-like throughput and CPU (MTU 1500 and 9000, segmentation offload on and
# off), and one-byte request/response (rr.py, one transaction in flight). Run as root from the
# repository: sh validation/veth_netstack/measure.sh. Sender pinned to CPU 0, receiver to CPU 1.
set -e
out=validation/veth_netstack
. validation/veth_netstack/pair.sh
for mtu in 1500 9000; do
  for offload in on off; do
    ip -n vsa link set va mtu $mtu; ip -n vsb link set vb mtu $mtu
    ip netns exec vsa ethtool -K va tso $offload gso $offload >/dev/null
    ip netns exec vsb ethtool -K vb gro $offload >/dev/null
    ip netns exec vsb taskset -c 1 iperf3 -s -1 -B 10.77.0.2 >/dev/null &
    sleep 1
    ip netns exec vsa taskset -c 0 iperf3 -c 10.77.0.2 -t 5 -J > $out/stream_mtu${mtu}_offload_${offload}.json
    wait
  done
done
ip -n vsa link set va mtu 1500; ip -n vsb link set vb mtu 1500
ip netns exec vsb taskset -c 1 python3 $out/rr.py server 10.77.0.2 5299 &
sleep 1
ip netns exec vsa taskset -c 0 python3 $out/rr.py client 10.77.0.2 5299 20000 > $out/rr.json
wait
