#!/bin/sh
# Each side's whole CPU per frame of this machine's Linux TCP stack: iperf3 over a veth pair
# between two network namespaces with segmentation offload off, the sender pinned to CPU 0 and
# the receiver to CPU 1, and receive packet steering on each veth so that a frame's receive
# softirq runs on its receiver's CPU (data frames on CPU 1, ACKs on CPU 0) where a plain veth
# runs it on the sending CPU. Per run: /proc/stat's cpu0 and cpu1 lines before and after,
# both veths' packet and byte counters, and iperf3's JSON. 3 rounds of 4 s at MTU 1500, 4000
# and 9000, and 4 s idle before each round for the machine's background.
# Run as root from the repository: sh validation/veth_netstack/measure_per_cpu.sh
set -e
out=validation/veth_netstack/per_cpu
mkdir -p $out
. validation/veth_netstack/pair.sh
ip netns exec vsa ethtool -K va tso off gso off gro off >/dev/null
ip netns exec vsb ethtool -K vb tso off gso off gro off >/dev/null
ip netns exec vsa sh -c 'echo 1 > /sys/class/net/va/queues/rx-0/rps_cpus'
ip netns exec vsb sh -c 'echo 2 > /sys/class/net/vb/queues/rx-0/rps_cpus'
counters() {
  for pair in vsa:va vsb:vb; do
    ns=${pair%:*}; dev=${pair#*:}
    for c in rx_packets rx_bytes tx_packets tx_bytes; do
      printf '%s %s %s\n' "$dev" "$c" "$(ip netns exec $ns cat /sys/class/net/$dev/statistics/$c)"
    done
  done
}
{ date -u; uptime; grep -m1 'cpu MHz' /proc/cpuinfo; } > $out/date.txt
for round in 1 2 3; do
  grep -E '^cpu[01] ' /proc/stat > $out/idle_r${round}.before
  sleep 4
  grep -E '^cpu[01] ' /proc/stat > $out/idle_r${round}.after
  for mtu in 1500 4000 9000; do
    ip -n vsa link set va mtu $mtu; ip -n vsb link set vb mtu $mtu
    ip netns exec vsb taskset -c 1 iperf3 -s -1 -B 10.77.0.2 >/dev/null &
    sleep 1
    run=$out/mtu${mtu}_r${round}
    { grep -E '^cpu[01] ' /proc/stat; counters; } > $run.before
    ip netns exec vsa taskset -c 0 iperf3 -c 10.77.0.2 -t 4 -J > $run.json
    { grep -E '^cpu[01] ' /proc/stat; counters; } > $run.after
    wait
  done
done
uptime >> $out/date.txt
