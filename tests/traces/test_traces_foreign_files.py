"""A file given as a trace may be anyone's: a file of another kind is named as such with nothing of
it quoted, and a value of a trace is quoted in a short, printable excerpt."""

import pytest

from vsim.core.errors import InputError
from vsim.traces.esxtop import parse_esxtop
from vsim.traces.sipp_rtt import parse_sipp_rtt
from vsim.traces.sipp_stat import parse_sipp_stat
from vsim.traces.steal_trace import parse_steal_trace
from vsim.traces.tshark_streams import parse_tshark_streams
from vsim.traces.vsim_trace import MAGIC, parse_trace

SHADOW = "root:$6$saltsalt$hashhashhashhash:19000:0:99999:7:::\n"


@pytest.mark.parametrize("parse", [parse_esxtop, parse_sipp_rtt, parse_sipp_stat, parse_tshark_streams,
                                   parse_trace, parse_steal_trace])
def test_a_file_of_another_kind_is_not_quoted(parse):
    with pytest.raises(InputError) as caught:
        parse(SHADOW, "given.csv")
    assert caught.value.where == "line 1" and "root" not in str(caught.value)
    assert "not a" in caught.value.expected or "not the" in caught.value.expected


def test_a_value_of_a_trace_is_quoted_short_and_printable():
    text = (f"{MAGIC}\n# kind: timer\nthread,tick,scheduled_s,lateness_s\n"
            f"0,{'9' * 30}x\x1b[2J{'9' * 300},0.02,0\n")
    with pytest.raises(InputError) as caught:
        parse_trace(text, "timer.csv")
    message = str(caught.value)
    assert caught.value.where == "line 4" and "9" * 41 not in message and "\x1b" not in message
