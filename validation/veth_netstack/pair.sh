# The two network namespaces joined by a veth pair that the scripts here measure across
# (10.77.0.1 on va in vsa, 10.77.0.2 on vb in vsb), removed when the sourcing script exits.
# Sourced from the repository root: . validation/veth_netstack/pair.sh
ip netns add vsa; ip netns add vsb
trap 'ip netns del vsa; ip netns del vsb' EXIT
ip link add va netns vsa type veth peer name vb netns vsb
ip -n vsa addr add 10.77.0.1/24 dev va; ip -n vsb addr add 10.77.0.2/24 dev vb
for ns in vsa vsb; do ip -n $ns link set lo up; done
ip -n vsa link set va up; ip -n vsb link set vb up
