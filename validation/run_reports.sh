#!/bin/sh
# Regenerate every validation/<set>/report/ at full length: each committed
# measured set against its scenario in configs/validation/ (run length and
# replications from the scenario, the timer_idle runs at the measured 60 s).
# Usage, from the repository root: sh validation/run_reports.sh [vsim]
# Exit status 0 even when checks fall outside tolerance (that is the finding);
# any other failure stops the script.
set -e
VSIM=${1:-vsim}
C=configs/validation
V=validation

report() {  # report OUT_DIR SCENARIO TRACE... [-- extra options]
    out=$1; scenario=$2; shift 2
    "$VSIM" validate "$@" --scenario "$scenario" --out "$out" --quiet > /dev/null || [ $? -eq 1 ]
}

report $V/cpu_cgroups/report $C/cpu_cgroups.toml $V/cpu_cgroups/cpu_ticks.csv
report $V/cpu_cgroups_contended/report $C/cpu_cgroups_contended.toml $V/cpu_cgroups_contended/cpu_ticks.csv
report $V/cpu_tick/report $C/cpu_tick.toml $V/cpu_tick/cpu_ticks.csv
report $V/timer_idle/report/python $C/timer_python.toml $V/timer_idle/python.csv --duration 60
report $V/timer_idle/report/cyclictest $C/timer_cyclictest.toml $V/timer_idle/cyclictest.csv --duration 60
report $V/timer_alternating/report/python $C/timer_python.toml $V/timer_alternating/python_1.csv \
    $V/timer_alternating/python_2.csv $V/timer_alternating/python_3.csv
report $V/timer_alternating/report/cyclictest $C/timer_cyclictest.toml $V/timer_alternating/cyclictest_1.csv \
    $V/timer_alternating/cyclictest_2.csv $V/timer_alternating/cyclictest_3.csv
report $V/timer_cyclictest_modes/report $C/timer_cyclictest.toml $V/timer_cyclictest_modes/cyclictest_verbose.csv
report $V/timer_threads/report/python $C/timer_threads_python.toml $V/timer_threads/python_1.csv \
    $V/timer_threads/python_2.csv
report $V/timer_threads/report/cyclictest $C/timer_threads_cyclictest.toml $V/timer_threads/cyclictest_1.csv \
    $V/timer_threads/cyclictest_2.csv
report $V/timer_load/report/python $C/timer_load_python.toml $V/timer_load/python.csv
report $V/timer_load/report/cyclictest $C/timer_load_cyclictest.toml $V/timer_load/cyclictest.csv
report $V/net_pfifo/report $C/net_pfifo.toml $V/net_pfifo/packets.csv
report $V/net_htb/report $C/net_htb.toml $V/net_htb/packets.csv
